import { afterEach, describe, expect, it, vi } from "vitest";
import { cleanup, render, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { MemoryRouter, Route, Routes } from "react-router-dom";
import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import Proposals from "./Proposals";
import { editDropping, type Proposal } from "../lib/proposals";

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

const proposal = (over: Partial<Proposal> = {}): Proposal => ({
  id: "p1aaaaaa-0000-4000-8000-000000000001",
  repo_id: "sp1",
  session_id: "se1",
  base_checkpoint_id: "c1bbbbbb-0000-4000-8000-000000000001",
  branch_name: "main",
  title: "Weekly releases",
  source: "hook",
  status: "pending",
  objective: "",
  summary: "Drafted at compaction",
  decisions: ["Use SQLite", "Ship weekly"],
  assumptions: ["Users update monthly"],
  tasks: ["Write the release notes"],
  open_questions: [],
  entities: [],
  checkpoint_id: null,
  created_at: new Date().toISOString(),
  updated_at: new Date().toISOString(),
  decided_at: null,
  artifacts: [],
  author_agent: null,
  author_type: "llm",
  conflicts: [],
  git: null,
  items: [],
  model: null,
  project_root: null,
  source_turns: null,
  ...over,
});

const conflicts = [{ field: "decisions", key: "d-7f3a9c", kind: "both_changed", base: "Ship monthly", ours: "Ship daily", theirs: "Ship weekly" }];

/** The proposals routes, as the server answers them; the first accept meets a conflicting save. */
function fakeServer(list: Proposal[]) {
  const calls: { method: string; path: string; body: unknown }[] = [];
  let accepts = 0;
  const json = (data: unknown, status = 200) => new Response(JSON.stringify(data), { status, headers: { "Content-Type": "application/json" } });
  const fetchFn = async (input: RequestInfo | URL, init?: RequestInit) => {
    const path = String(input);
    const method = init?.method ?? "GET";
    const body = init?.body ? JSON.parse(String(init.body)) : undefined;
    calls.push({ method, path, body });
    const p = list[0];
    if (path === "/api/v2/repos/sp1") return json({ id: "sp1", name: "demo" });
    if (path === "/api/v5/spaces/sp1/proposals?status=pending") return json(list.filter((x) => x.status === "pending"));
    if (method === "PATCH" && path === `/api/v5/spaces/sp1/proposals/${p.id}`) {
      Object.assign(p, body, body.message ? { title: body.message } : {}, { updated_at: new Date(Date.now() + 1000).toISOString() });
      return json(p);
    }
    if (method === "POST" && path === `/api/v5/spaces/sp1/proposals/${p.id}/accept`) {
      if (accepts++ === 0)
        return json({ detail: "Branch 'main' moved on since checkpoint c1", conflicts, head_checkpoint_id: "c2cccccc-0000", base_checkpoint_id: p.base_checkpoint_id }, 409);
      p.status = "accepted";
      return json({ proposal: p, checkpoint: { id: "c3dddddd", commit_hash: "3d3d3d3d3d3d", message: p.title, parent_commit_id: "c2cccccc-0000", rebased_from: p.base_checkpoint_id } }, 201);
    }
    if (method === "POST" && path === `/api/v5/spaces/sp1/proposals/${p.id}/reject`) {
      p.status = "rejected";
      return json(p);
    }
    return json({ detail: "no route" }, 404);
  };
  return { calls, fetchFn };
}

function renderInbox(at = "/spaces/sp1/proposals") {
  const qc = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  render(
    <QueryClientProvider client={qc}>
      <MemoryRouter initialEntries={[at]}>
        <Routes>
          <Route path="/spaces/:spaceId/proposals" element={<Proposals />} />
        </Routes>
      </MemoryRouter>
    </QueryClientProvider>,
  );
}

describe("Proposals inbox", () => {
  it("reviews item by item: an unticked item is dropped before the accept, whose 409 shows the conflicts to settle", async () => {
    const srv = fakeServer([proposal()]);
    vi.stubGlobal("fetch", vi.fn(srv.fetchFn));
    renderInbox();
    const row = await screen.findByRole("button", { name: /Weekly releases/ });
    expect(row.textContent).toContain("from hook on main");
    const review = screen.getByTestId("review");
    expect(within(screen.getByTestId("review-decisions")).getAllByRole("checkbox")).toHaveLength(2);
    expect(within(screen.getByTestId("review-tasks")).getByLabelText("Write the release notes")).toBeTruthy();
    await userEvent.click(within(review).getByLabelText("Use SQLite"));
    await userEvent.click(within(review).getByRole("button", { name: "Accept" }));
    const dialog = await screen.findByRole("dialog");
    expect(within(dialog).getByTestId("save-conflict").textContent).toContain("decisions · item d-7f3a9c");
    const patch = srv.calls.find((c) => c.method === "PATCH");
    expect(patch?.body).toEqual({ decisions: ["Ship weekly"] });
    await userEvent.click(within(dialog).getAllByRole("radio")[1]); // theirs
    await userEvent.click(within(dialog).getByRole("button", { name: "Save with these choices" }));
    const done = await screen.findByTestId("accepted");
    expect(done.textContent).toContain("Saved “Weekly releases” as checkpoint 3d3d3d3");
    expect(within(done).getByTestId("rebased-notice").textContent).toBe("Saved onto c2cccccc, rebased from c1bbbbbb: changes saved meanwhile are kept.");
    expect(srv.calls.filter((c) => c.method === "PATCH")).toHaveLength(1);
    const accepts = srv.calls.filter((c) => c.path.endsWith("/accept"));
    expect(accepts.map((c) => c.body)).toEqual([{ resolutions: [] }, { resolutions: [{ field: "decisions", key: "d-7f3a9c", choice: "theirs", value: "" }] }]);
    await waitFor(() => expect(screen.getByText("Nothing waits for review in this space.")).toBeTruthy());
  });

  it("edits the title, then rejects", async () => {
    const srv = fakeServer([proposal()]);
    vi.stubGlobal("fetch", vi.fn(srv.fetchFn));
    renderInbox();
    const title = (await screen.findByLabelText("Title")) as HTMLInputElement;
    await userEvent.clear(title);
    await userEvent.type(title, "Releases on Fridays");
    await userEvent.click(screen.getByRole("button", { name: "Save edits" }));
    await waitFor(() => expect(srv.calls.some((c) => c.method === "PATCH")).toBe(true));
    expect(srv.calls.find((c) => c.method === "PATCH")?.body).toEqual({ message: "Releases on Fridays" });
    await screen.findByRole("button", { name: /Releases on Fridays/ });
    await userEvent.click(screen.getByRole("button", { name: "Reject" }));
    await waitFor(() => expect(screen.getByText("Nothing waits for review in this space.")).toBeTruthy());
    expect(srv.calls.filter((c) => c.path.endsWith("/reject"))).toHaveLength(1);
  });
});

describe("a pull's proposal in the inbox", () => {
  it("opens the proposal the address names and shows each item both copies changed, with both versions", async () => {
    const pulled = proposal({
      id: "p2bbbbbb-0000-4000-8000-000000000002",
      title: "Take origin/main's side of 1 conflict(s)",
      source: "api",
      decisions: ["Ship weekly", "Use SQLite"],
      conflicts: [{ field: "decisions", key: "d-7f3a9c", kind: "both_changed", base: "Ship monthly", ours: "Ship daily", theirs: "Ship weekly" }],
    });
    const srv = fakeServer([proposal(), pulled]);
    vi.stubGlobal("fetch", vi.fn(srv.fetchFn));
    renderInbox(`/spaces/sp1/proposals?proposal=${pulled.id}`);
    const conflict = await screen.findByTestId("pull-conflict");
    expect(conflict.dataset.key).toBe("d-7f3a9c");
    expect(conflict.textContent).toBe("decisions d-7f3a9c · was “Ship monthly”This copy: Ship dailyOther copy: Ship weekly");
    expect(screen.getByRole("button", { name: /Take origin\/main's side/ }).getAttribute("aria-pressed")).toBe("true");
    expect(screen.getByRole("button", { name: /Take origin\/main's side/ }).textContent).toContain("from a pull, 1 item(s) both copies changed, on main");
    expect(within(screen.getByTestId("review")).getByRole("heading", { level: 2 }).textContent).toBe("Review p2bbbbbb");
  });
});

describe("editDropping", () => {
  it("sends only the lists that lost an item, and nothing when none did", () => {
    const p = proposal();
    expect(editDropping(p, new Set())).toBeNull();
    expect(editDropping(p, new Set(["decisions:1", "tasks:0"]))).toEqual({ decisions: ["Use SQLite"], tasks: [] });
  });
});
