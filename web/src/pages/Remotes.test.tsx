import { afterEach, describe, expect, it, vi } from "vitest";
import { cleanup, render, screen, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { MemoryRouter, Route, Routes } from "react-router-dom";
import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import Remotes from "./Remotes";
import { ApiError } from "../api";
import { adviceFor, describeCounts, describeDivergence, describePull, type Divergence, type PullResult, type Remote } from "../lib/sync";

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

const NOW = Date.parse("2026-12-07T12:00:00Z");
const div = (ahead: number, behind: number, fetched: string | null = "2026-12-07T11:56:00Z"): Divergence => ({
  branch: "main",
  remote: "origin",
  ahead,
  behind,
  fetched_at: fetched,
  description: "",
});

describe("describeDivergence", () => {
  it.each([
    [div(2, 3), "main is 2 ahead, 3 behind origin/main, fetched 4m ago"],
    [div(2, 0), "main is 2 ahead of origin/main, fetched 4m ago"],
    [div(0, 3), "main is 3 behind origin/main, fetched 4m ago"],
    [div(0, 0), "main is up to date with origin/main, fetched 4m ago"],
    [div(0, 0, null), "main is up to date with origin/main, never fetched"],
  ])("%o reads %s", (d, want) => expect(describeDivergence(d, NOW)).toBe(want));
});

describe("sync words", () => {
  it("counts what arrived, and says when nothing did", () => {
    expect(describeCounts({ checkpoints: 2, sessions: 1, turns: 6, skipped: [] })).toBe("2 checkpoints, 1 session and 6 turns");
    expect(describeCounts({ checkpoints: 1, sessions: 0, turns: 0, skipped: [] })).toBe("1 checkpoint");
    expect(describeCounts({ checkpoints: 0, sessions: 0, turns: 0, skipped: [] })).toBe("nothing new");
  });

  it("a pull that left a proposal says where the other side waits", () => {
    const res = { outcome: "merged_with_proposal", head: { commit_hash: "abcdef1234" }, conflicts: [{}], applied: { checkpoints: 1, sessions: 0, turns: 0, skipped: [] } } as unknown as PullResult;
    expect(describePull(res, "origin")).toBe(
      "Merged origin/main into main as abcdef1, keeping this copy's side of 1 item both copies changed. The other side waits in the inbox: review it item by item and accept it to take it.",
    );
  });

  it("advises a pull after a refused push, and a check of the remote when it is down", () => {
    const origin = { name: "origin", url: "http://team:8080" };
    expect(adviceFor("push", new ApiError("push refused", 409, "push refused"), origin).next).toBe("pull");
    const down = adviceFor("fetch", new ApiError("cannot reach remote origin", 503, "cannot reach"), origin);
    expect(down).toEqual({ next: "fetch", text: "origin (http://team:8080) cannot be reached or failed: check that its server is running and the address is right, then fetch again." });
    expect(adviceFor("pull", new ApiError("remote origin: upstream failed", 502, ""), origin).next).toBe("fetch");
    expect(adviceFor("fetch", new ApiError("bad", 422, "bad"), origin)).toEqual({ next: null, text: "" });
  });
});

const remote = (over: Partial<Remote> = {}): Remote => ({
  name: "origin",
  url: "http://team:8080",
  remote_space_id: "sp1",
  token: "…wxyz",
  fetched_at: new Date().toISOString(),
  created_at: new Date().toISOString(),
  heads: [],
  divergence: [{ ...div(1, 0), fetched_at: new Date().toISOString() }],
  ...over,
});

/** The remotes routes as the server answers them: the push is refused until a pull ran. */
function fakeServer() {
  const calls: { method: string; path: string; body: unknown }[] = [];
  let pulled = false;
  const json = (data: unknown, status = 200) => new Response(JSON.stringify(data), { status, headers: { "Content-Type": "application/json" } });
  const fetchFn = async (input: RequestInfo | URL, init?: RequestInit) => {
    const path = String(input);
    const method = init?.method ?? "GET";
    calls.push({ method, path, body: init?.body ? JSON.parse(String(init.body)) : undefined });
    if (path === "/api/v2/repos/sp1") return json({ id: "sp1", name: "demo" });
    if (path === "/api/v5/spaces/sp1/remotes") return json([remote(pulled ? { divergence: [{ ...div(2, 0), fetched_at: new Date().toISOString() }] } : {})]);
    if (method === "POST" && path === "/api/v5/spaces/sp1/remotes/origin/push") {
      const msg = "push refused: main on the remote is at c8141d0, not 02b076a as this copy last saw it; run `smriti pull origin`, then push again";
      return json({ detail: { message: msg, branch: "main", remote_head: "c8141d0", expected_head: "02b076a" } }, 409);
    }
    if (method === "POST" && path === "/api/v5/spaces/sp1/remotes/origin/pull") {
      pulled = true;
      return json({ outcome: "merged_with_proposal", fetch: null, head: { commit_hash: "abcdef1234" }, merge: { commit_hash: "abcdef1234" }, conflicts: [{}], proposal: { id: "p1" }, applied: { checkpoints: 1, sessions: 0, turns: 0, skipped: [] } });
    }
    return json({ detail: "no route" }, 404);
  };
  return { calls, fetchFn };
}

describe("Remotes page", () => {
  it("shows ahead/behind, turns a refused push into 'Pull first' with the pull to run, and links the pull's proposal to the inbox", async () => {
    const srv = fakeServer();
    vi.stubGlobal("fetch", vi.fn(srv.fetchFn));
    const qc = new QueryClient({ defaultOptions: { queries: { retry: false } } });
    render(
      <QueryClientProvider client={qc}>
        <MemoryRouter initialEntries={["/spaces/sp1/remotes"]}>
          <Routes>
            <Route path="/spaces/:spaceId/remotes" element={<Remotes />} />
          </Routes>
        </MemoryRouter>
      </QueryClientProvider>,
    );
    const card = await screen.findByTestId("remote");
    expect((await within(card).findByTestId("divergence")).textContent).toBe("main is 1 ahead of origin/main, fetched just now");
    expect(card.textContent).toContain("token …wxyz");
    await userEvent.click(within(card).getByRole("button", { name: "Push" }));
    const alert = await within(card).findByRole("alert");
    expect(alert.textContent).toContain("Push failed: push refused: main on the remote is at c8141d0, not 02b076a");
    expect(within(alert).getByTestId("sync-advice").textContent).toContain("Pull first: origin has checkpoints this copy does not have yet.");
    await userEvent.click(within(alert).getByRole("button", { name: "Pull from origin" }));
    const link = await within(card).findByRole("link", { name: "Review it in the inbox" });
    expect(link.getAttribute("href")).toBe("/spaces/sp1/proposals?proposal=p1");
    expect(within(card).queryByRole("alert")).toBeNull();
    expect(srv.calls.filter((c) => c.method === "POST").map((c) => [c.path, c.body])).toEqual([
      ["/api/v5/spaces/sp1/remotes/origin/push", { branch: "main" }],
      ["/api/v5/spaces/sp1/remotes/origin/pull", { branch: "main", on_conflict: "propose" }],
    ]);
    // After the pull the page reads the remote again.
    expect((await within(card).findByText("main is 2 ahead of origin/main, fetched just now")).dataset.ahead).toBe("2");
  });
});
