import { afterEach, describe, expect, it, vi } from "vitest";
import { cleanup, render, screen, waitFor } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { MemoryRouter, Route, Routes } from "react-router-dom";
import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import ChatPage from "./Chat";
import type { Checkpoint, Session, SessionMount } from "../api";
import { checkpointOf } from "../testing/wire";
import { resetThreadPainted } from "../lib/threadPainted";

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

const checkpoint: Checkpoint = checkpointOf({
  id: "c1",
  commit_hash: "abcdef1234567890",
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
});

/** An in-memory API that keeps the session's mount the way the server does, and records every request. */
function fakeServer(initial: SessionMount | null, extra?: (method: string, path: string, body: unknown) => unknown) {
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
    const answer = extra?.(method, path, body);
    if (answer !== undefined) return json(answer);
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
    if (path === "/api/v5/spaces/r1/next-base?session_id=s1")
      return json({ space_id: "r1", session_id: "s1", branch_name: "main", base_checkpoint_id: null, base_commit_hash: null });
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

describe("Chat checkpoint save", () => {
  it("sends the draft's items with their ids, so an edited item keeps its identity", async () => {
    const base: Checkpoint = { ...checkpoint, decisions: ["Access token TTL is 15 minutes"], tasks: [{ text: "Rotate the keys", status: "open" }] };
    const saved: Checkpoint = { ...base, id: "c2", commit_hash: "1234567abcdef", message: "Shorter TTL" };
    const srv = fakeServer(null, (method, path) => {
      if (path === "/api/v4/chat/spaces/r1/head")
        return { repo_id: "r1", commit_hash: base.commit_hash, commit_id: "c1", summary: base.summary, objective: base.objective, latest_session_id: "s1", latest_session_title: "Trip" };
      if (path === "/api/v5/spaces/r1/next-base?session_id=s1")
        return { space_id: "r1", session_id: "s1", branch_name: "main", base_checkpoint_id: "c1", base_commit_hash: base.commit_hash };
      if (path === "/api/v4/chat/providers") return { background_intelligence: { configured: true, using_mock: true, has_key: false } };
      if (path === "/api/v5/checkpoint/draft" && method === "POST")
        return {
          title: "Shorter TTL",
          objective: base.objective,
          summary: "TTL cut to 5 minutes",
          decisions: ["Access token TTL is 5 minutes"],
          assumptions: [],
          tasks: [{ text: "Rotate the keys", status: "open" }],
          open_questions: [],
          entities: [],
          base_checkpoint_id: "c1",
          items: [
            { id: "d-1a2b3c", kind: "decision", text: "Access token TTL is 5 minutes", key: "access token ttl is 5 minutes", status: "open", supersedes: [], change: { op: "update", before: "Access token TTL is 15 minutes" } },
            { id: "t-4d5e6f", kind: "task", text: "Rotate the keys", key: "rotate the keys", status: "open", supersedes: [], change: null },
            { id: "q-777777", kind: "open_question", text: "Do refresh tokens expire?", key: "do refresh tokens expire", status: "answered", supersedes: [], change: { op: "resolve", before: "Do refresh tokens expire?" } },
          ],
          changes: [
            {
              op: "update",
              kind: "decision",
              id: "d-1a2b3c",
              before: "Access token TTL is 15 minutes",
              after: "Access token TTL is 5 minutes",
              before_key: "access token ttl is 15 minutes",
              after_key: "access token ttl is 5 minutes",
            },
          ],
        };
      if (path === "/api/v4/chat/commit" && method === "POST") return saved;
      return undefined;
    });
    vi.stubGlobal("fetch", vi.fn(srv.fetchFn));
    renderChat();
    await userEvent.click(await screen.findByRole("button", { name: "Create checkpoint" }));
    await userEvent.click(await screen.findByRole("button", { name: "Draft with AI" }));
    await screen.findByTestId("draft-diff");
    await userEvent.click(screen.getByRole("button", { name: "Save checkpoint" }));
    await screen.findByRole("heading", { name: "Checkpoint saved" });
    const commits = srv.calls.filter((c) => c.path === "/api/v4/chat/commit");
    expect(commits).toHaveLength(1);
    const body = commits[0].body as Record<string, unknown>;
    expect(body.decisions).toEqual(["Access token TTL is 5 minutes"]);
    expect(body.base_checkpoint_id).toBe("c1");
    expect(body.items).toEqual([
      { id: "d-1a2b3c", kind: "decision", text: "Access token TTL is 5 minutes", status: "open", change: { op: "update", before: "Access token TTL is 15 minutes" } },
      { id: "t-4d5e6f", kind: "task", text: "Rotate the keys", status: "open" },
      { id: "q-777777", kind: "open_question", text: "Do refresh tokens expire?", status: "answered", change: { op: "resolve", before: "Do refresh tokens expire?" } },
    ]);
  });
});

describe("Chat stop", () => {
  it("shows the question and the partial reply the server kept, marked stopped, and leaves the box empty", async () => {
    const turn = (seq: number, role: "user" | "assistant", content: string, stopped = false) => ({
      id: `t${seq}`, session_id: "s1", role, content, provider: "mock", model: "mock", sequence_number: seq, created_at: "2026-01-01T00:00:00Z",
      metadata: stopped ? { stopped: true } : {},
    });
    let stored = false;
    const srv = fakeServer(null, (_m, path) =>
      path.startsWith("/api/v4/chat/sessions/s1/turns")
        ? [turn(0, "user", "Where first?"), turn(1, "assistant", "Sydney."), ...(stored ? [turn(2, "user", "Then how to Melbourne?"), turn(3, "assistant", "Take the night train", true)] : [])]
        : undefined,
    );
    const fetchFn = vi.fn(async (input: RequestInfo | URL, init?: RequestInit) => {
      if (String(input) !== "/api/v5/chat/send/stream") return srv.fetchFn(input, init);
      const enc = new TextEncoder();
      const signal = init!.signal!;
      const body = new ReadableStream<Uint8Array>({
        start(c) {
          c.enqueue(enc.encode('event: delta\ndata: {"text":"Take the "}\n\n'));
          c.enqueue(enc.encode('event: delta\ndata: {"text":"night train"}\n\n'));
          signal.addEventListener("abort", () => {
            stored = true; // what the server does when its client goes away
            c.error(Object.assign(new Error("aborted"), { name: "AbortError" }));
          });
        },
      });
      return new Response(body, { status: 200, headers: { "Content-Type": "text/event-stream" } });
    });
    vi.stubGlobal("fetch", fetchFn);
    renderChat();
    await screen.findByText("Sydney.");
    const box = screen.getByRole("textbox", { name: "Message" }) as HTMLTextAreaElement;
    await userEvent.type(box, "Then how to Melbourne?{Enter}");
    await waitFor(() => expect(screen.getByTestId("streaming-reply").textContent).toBe("Take the night train"));
    await userEvent.click(screen.getByRole("button", { name: "Stop" }));
    await screen.findByTestId("stopped-badge", undefined, { timeout: 3000 });
    expect(screen.queryByTestId("streaming-reply")).toBeNull();
    expect(screen.getAllByTestId("turn-user").map((e) => e.textContent)).toEqual(["Where first?", "Then how to Melbourne?"]);
    expect(screen.getAllByTestId("turn-assistant").map((e) => e.getAttribute("aria-label"))).toEqual(["assistant message 1", "assistant message 3, stopped"]);
    expect(box.value).toBe("");
  });
});

describe("Chat checkpoint base", () => {
  it("opens the form on the base the server names for the session, not on main's head", async () => {
    // main's head is c1; the server says this session's next checkpoint builds on c9 (its branch's newest).
    const own: Checkpoint = { ...checkpoint, id: "c9", commit_hash: "9999999aaaa", branch_name: "east", message: "East", decisions: ["Drive the east coast"] };
    const srv = fakeServer(null, (_method, path) => {
      if (path === "/api/v4/chat/spaces/r1/head")
        return { repo_id: "r1", commit_hash: checkpoint.commit_hash, commit_id: "c1", summary: checkpoint.summary, objective: checkpoint.objective, latest_session_id: "s1", latest_session_title: "Trip" };
      if (path === "/api/v5/spaces/r1/next-base?session_id=s1")
        return { space_id: "r1", session_id: "s1", branch_name: "east", base_checkpoint_id: "c9", base_commit_hash: own.commit_hash };
      if (path === "/api/v2/commits/c9") return own;
      if (path === "/api/v2/commits/c9?items=true") return { ...own, items: [{ id: "d-east01", kind: "decision", text: "Drive the east coast", key: "drive the east coast", status: "open", supersedes: [], change: null }] };
      return undefined;
    });
    vi.stubGlobal("fetch", vi.fn(srv.fetchFn));
    renderChat();
    await userEvent.click(await screen.findByRole("button", { name: "Create checkpoint" }));
    await waitFor(() => expect(screen.getByDisplayValue("Drive the east coast")).toBeTruthy());
    expect(srv.calls.some((c) => c.path === "/api/v5/spaces/r1/next-base?session_id=s1")).toBe(true);
    expect(srv.calls.some((c) => c.path === "/api/v2/commits/c1")).toBe(false);
  });
});

describe("Chat's first frame", () => {
  it("asks for the side reads (next base, reachable checkpoints, context) only after the thread's first frame", async () => {
    resetThreadPainted();
    const srv = fakeServer(null, (_method, path) => (path === "/api/v5/chat/context" ? { mode: "HEAD", turn_range: null, allowed_from_seq: 0, stopped_turns: [], checkpoints: [], dropped_turns: 0 } : undefined));
    vi.stubGlobal("fetch", vi.fn(srv.fetchFn));
    const frames: FrameRequestCallback[] = [];
    vi.stubGlobal("requestAnimationFrame", (cb: FrameRequestCallback) => frames.push(cb));
    vi.stubGlobal("cancelAnimationFrame", () => {});
    renderChat();
    const side = () => srv.calls.filter((c) => /next-base|lineage\/sessions|chat\/context/.test(c.path)).map((c) => c.path);
    // The session and its turns are in; no frame has been painted yet.
    await waitFor(() => expect(srv.calls.some((c) => c.path.startsWith("/api/v4/chat/sessions/s1/turns"))).toBe(true));
    await waitFor(() => expect(frames.length).toBeGreaterThan(0));
    expect(side()).toEqual([]);
    for (const cb of frames.splice(0)) cb(performance.now());
    await waitFor(() => expect(side().sort()).toEqual(["/api/v5/chat/context", "/api/v5/lineage/sessions/s1/checkpoints", "/api/v5/spaces/r1/next-base?session_id=s1"]));
  });
});
