import { afterEach, describe, expect, it, vi } from "vitest";
import { cleanup, render, screen, waitFor } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { MemoryRouter, Route, Routes } from "react-router-dom";
import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import ChatPage from "./Chat";
import type { Checkpoint, Session, SessionMount } from "../api";

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

const checkpoint: Checkpoint = {
  id: "c1",
  repo_id: "r1",
  commit_hash: "abcdef1234567890",
  parent_commit_id: null,
  merge_parent_id: null,
  branch_name: "main",
  author_agent: null,
  author_type: "human",
  message: "Go by train",
  summary: "We go by train",
  objective: "Plan the trip",
  decisions: [],
  assumptions: [],
  tasks: [],
  open_questions: [],
  entities: [],
  artifacts: [],
  metadata: {},
  created_at: "2026-01-01T00:00:00Z",
};

/** An in-memory API that keeps the session's mount the way the server does, and records every request. */
function fakeServer(initial: SessionMount | null) {
  let mount = initial;
  const calls: { method: string; path: string; body: unknown }[] = [];
  const session = (): Session => ({
    id: "s1",
    repo_id: "r1",
    title: "Trip",
    active_provider: "mock",
    active_model: "mock",
    seeded_commit_id: null,
    forked_from_checkpoint_id: null,
    branch_name: "main",
    branch_disposition: "active",
    turn_count: 2,
    mount,
    created_at: "2026-01-01T00:00:00Z",
    updated_at: "2026-01-01T00:00:00Z",
  });
  const fetchFn = async (input: RequestInfo | URL, init?: RequestInit) => {
    const path = String(input);
    const method = init?.method ?? "GET";
    const body = init?.body ? JSON.parse(String(init.body)) : undefined;
    calls.push({ method, path, body });
    const json = (data: unknown, status = 200) => new Response(JSON.stringify(data), { status, headers: { "Content-Type": "application/json" } });
    if (path === "/api/v4/chat/sessions/s1") return json(session());
    if (path === "/api/v5/chat/sessions/s1/mount" && method === "PUT") {
      mount = { checkpoint_id: body.checkpoint_id, history_base_seq: body.history_base_seq ?? 2 };
      return json(session());
    }
    if (path === "/api/v5/chat/sessions/s1/mount" && method === "DELETE") {
      mount = null;
      return json(session());
    }
    if (path.startsWith("/api/v4/chat/sessions/s1/turns")) return json([]);
    if (path === "/api/v2/repos/r1") return json({ id: "r1", name: "Trip", description: "", project_root: null, created_at: "", updated_at: "" });
    if (path === "/api/v4/chat/spaces/r1/head")
      return json({ repo_id: "r1", commit_hash: null, commit_id: null, summary: null, objective: null, latest_session_id: null, latest_session_title: null });
    if (path === "/api/v4/chat/providers") return json({});
    if (path === "/api/v2/commits/c1") return json(checkpoint);
    if (path === "/api/v5/lineage/sessions/s1/checkpoints") return json([checkpoint]);
    return json({ detail: `no route ${method} ${path}` }, 404);
  };
  return { calls, fetchFn };
}

function renderChat() {
  const qc = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  return render(
    <QueryClientProvider client={qc}>
      <MemoryRouter initialEntries={["/sessions/s1"]}>
        <Routes>
          <Route path="/sessions/:sessionId" element={<ChatPage />} />
        </Routes>
      </MemoryRouter>
    </QueryClientProvider>,
  );
}

describe("Chat mount", () => {
  it("shows the mount the server keeps on the session after a fresh load", async () => {
    const srv = fakeServer({ checkpoint_id: "c1", history_base_seq: 2 });
    vi.stubGlobal("fetch", vi.fn(srv.fetchFn));
    renderChat();
    await waitFor(() => expect(screen.getByTestId("context-badge").textContent).toBe("MOUNTED · abcdef1"));
  });

  it("mounts and unmounts through the session's mount endpoints", async () => {
    const srv = fakeServer(null);
    vi.stubGlobal("fetch", vi.fn(srv.fetchFn));
    renderChat();
    await waitFor(() => expect(screen.getByTestId("context-badge").textContent).toBe("FRESH"));
    await userEvent.click(screen.getByRole("button", { name: "History" }));
    await userEvent.click(await screen.findByRole("button", { name: "Mount abcdef1" }));
    await waitFor(() => expect(screen.getByTestId("context-badge").textContent).toBe("MOUNTED · abcdef1"));
    expect(srv.calls.filter((c) => c.path === "/api/v5/chat/sessions/s1/mount")).toEqual([
      { method: "PUT", path: "/api/v5/chat/sessions/s1/mount", body: { checkpoint_id: "c1" } },
    ]);
    await userEvent.click(screen.getAllByRole("button", { name: "Unmount" })[0]);
    await waitFor(() => expect(screen.getByTestId("context-badge").textContent).toBe("FRESH"));
    expect(srv.calls.filter((c) => c.path === "/api/v5/chat/sessions/s1/mount").map((c) => c.method)).toEqual(["PUT", "DELETE"]);
  });
});
