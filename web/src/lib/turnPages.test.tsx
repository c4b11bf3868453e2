import { afterEach, describe, expect, it, vi } from "vitest";
import { act, cleanup, render, screen, waitFor } from "@testing-library/react";
import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import type { Turn } from "../api";
import { turnOf } from "../testing/wire";
import { prefetchThread, readFrom, tailStart, useThreadTurns } from "./turnPages";
import { queryKeys } from "./queryKeys";

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

const turn = (seq: number): Turn => turnOf({
  id: `t${seq}`,
  session_id: "se1",
  role: seq % 2 ? "assistant" : "user",
  content: `turn ${seq}`,
  provider: "mock",
  model: "mock",
  sequence_number: seq,
  created_at: "2026-01-01T10:00:00Z",
});

/** A server holding `n` turns that answers the turns API's after/limit like the real one. */
function serve(store: { n: number }) {
  const calls: string[] = [];
  const fetchFn = vi.fn(async (input: RequestInfo | URL) => {
    const u = new URL(String(input), "http://x");
    calls.push(u.pathname + u.search);
    const json = (v: unknown) => new Response(JSON.stringify(v), { status: 200, headers: { "Content-Type": "application/json" } });
    if (u.pathname === "/api/v4/chat/sessions/se1") return json({ id: "se1", turn_count: store.n });
    if (u.pathname === "/api/v4/chat/sessions/se1/turns") {
      const after = Number(u.searchParams.get("after"));
      const limit = Number(u.searchParams.get("limit"));
      const out: Turn[] = [];
      for (let s = after + 1; s < store.n && out.length < limit; s++) out.push(turn(s));
      return json(out);
    }
    return new Response("{}", { status: 404 });
  });
  vi.stubGlobal("fetch", fetchFn);
  return calls;
}

/** Renders se1's thread and records, per render, the range of turns it held. */
function rangesRendered(qc: QueryClient): string[] {
  const firsts: string[] = [];
  function First() {
    const t = useThreadTurns("se1");
    firsts.push(t.turns.length ? `${t.turns[0].sequence_number}-${t.turns[t.turns.length - 1].sequence_number}` : "none");
    return null;
  }
  render(
    <QueryClientProvider client={qc}>
      <First />
    </QueryClientProvider>,
  );
  return firsts;
}

describe("where a thread starts", () => {
  it("starts 200 turns before the newest, at 0 for a short session, and 20 turns before a turn asked for", () => {
    expect(tailStart(2300)).toBe(2100);
    expect(tailStart(150)).toBe(0);
    expect(tailStart(0)).toBe(0);
    expect(tailStart(2300, 500)).toBe(480);
    expect(tailStart(2300, 2250)).toBe(2100);
    expect(tailStart(2300, 9999)).toBe(2100);
  });

  it("reads past the API's 1,000-turn page to the newest turn", async () => {
    const calls = serve({ n: 2300 });
    const got = await readFrom("se1", 0);
    expect(got.length).toBe(2300);
    expect(got[2299].sequence_number).toBe(2299);
    expect(calls).toEqual([
      "/api/v4/chat/sessions/se1/turns?after=-1&limit=1000",
      "/api/v4/chat/sessions/se1/turns?after=999&limit=1000",
      "/api/v4/chat/sessions/se1/turns?after=1999&limit=1000",
    ]);
  });
});

let hook: ReturnType<typeof useThreadTurns> | null = null;
function Probe() {
  hook = useThreadTurns("se1");
  return <p data-testid="range">{hook.turns.length ? `${hook.turns[0].sequence_number}-${hook.turns[hook.turns.length - 1].sequence_number}:${hook.turns.length}:${hook.hasOlder}` : "none"}</p>;
}

describe("a thread's turns", () => {
  it("opens at the newest of 2,300 turns, loads older pages on demand, and keeps them and new turns after a refetch", async () => {
    const store = { n: 2300 };
    const calls = serve(store);
    const qc = new QueryClient({ defaultOptions: { queries: { retry: false } } });
    render(
      <QueryClientProvider client={qc}>
        <Probe />
      </QueryClientProvider>,
    );
    await waitFor(() => expect(screen.getByTestId("range").textContent).toBe("2100-2299:200:true"));
    expect(calls).toEqual(["/api/v4/chat/sessions/se1", "/api/v4/chat/sessions/se1/turns?after=2099&limit=1000"]);

    await act(async () => hook!.loadOlder());
    expect(screen.getByTestId("range").textContent).toBe("1900-2299:400:true");
    expect(calls[2]).toBe("/api/v4/chat/sessions/se1/turns?after=1899&limit=200");

    // A message and its reply are stored: the refetch rereads from the same start.
    store.n = 2302;
    await act(async () => qc.invalidateQueries({ queryKey: queryKeys.turns("se1") }));
    await waitFor(() => expect(screen.getByTestId("range").textContent).toBe("1900-2301:402:true"));
    expect(calls[3]).toBe("/api/v4/chat/sessions/se1/turns?after=2099&limit=1000");
  });

  it("stops offering older turns at the first one", async () => {
    serve({ n: 250 });
    const qc = new QueryClient({ defaultOptions: { queries: { retry: false } } });
    render(
      <QueryClientProvider client={qc}>
        <Probe />
      </QueryClientProvider>,
    );
    await waitFor(() => expect(screen.getByTestId("range").textContent).toBe("50-249:200:true"));
    await act(async () => hook!.loadOlder());
    expect(screen.getByTestId("range").textContent).toBe("0-249:250:false");
  });

  it("opens with the prefetched page in its first render when the page is in, asking for nothing again", async () => {
    const calls = serve({ n: 2300 });
    // Fresh for 5 s, as in the app (lib/queryClient).
    const qc = new QueryClient({ defaultOptions: { queries: { retry: false, staleTime: 5_000 } } });
    prefetchThread("se1", null, qc);
    await waitFor(() => expect(calls.length).toBe(2));
    await new Promise((r) => setTimeout(r, 20));
    const firsts = rangesRendered(qc);
    expect(firsts[0]).toBe("2100-2299");
    await new Promise((r) => setTimeout(r, 20));
    expect(calls).toEqual(["/api/v4/chat/sessions/se1", "/api/v4/chat/sessions/se1/turns?after=2099&limit=1000"]);
  });

  it("waits for a prefetched page still on its way, and reads it once", async () => {
    const calls = serve({ n: 2300 });
    const qc = new QueryClient({ defaultOptions: { queries: { retry: false, staleTime: 5_000 } } });
    prefetchThread("se1", null, qc);
    const firsts = rangesRendered(qc);
    expect(firsts[0]).toBe("none");
    await waitFor(() => expect(firsts[firsts.length - 1]).toBe("2100-2299"));
    expect(calls).toEqual(["/api/v4/chat/sessions/se1", "/api/v4/chat/sessions/se1/turns?after=2099&limit=1000"]);
  });
});

describe("a thread opened at a turn", () => {
  it("reads in the pages down to an older turn than the cached ones hold (the thread was open at its newest before)", async () => {
    const calls = serve({ n: 2300 });
    // Fresh for 5 s, as in the app: the cached newest page is not read again.
    const qc = new QueryClient({ defaultOptions: { queries: { retry: false, staleTime: 5_000 } } });
    const newest = await readFrom("se1", 2100);
    qc.setQueryData(queryKeys.turns("se1"), newest);
    calls.length = 0;
    let got: ReturnType<typeof useThreadTurns> | null = null;
    function AtTurn() {
      got = useThreadTurns("se1", 4);
      return <p data-testid="at">{got.turns.length ? `${got.turns[0].sequence_number}-${got.turns[got.turns.length - 1].sequence_number}:${got.turns.length}` : "none"}</p>;
    }
    render(
      <QueryClientProvider client={qc}>
        <AtTurn />
      </QueryClientProvider>,
    );
    await waitFor(() => expect(screen.getByTestId("at").textContent).toBe("0-2299:2300"));
    expect(got!.turns.find((t) => t.sequence_number === 4)?.content).toBe("turn 4");
    expect(calls).toEqual([
      "/api/v4/chat/sessions/se1/turns?after=-1&limit=1000",
      "/api/v4/chat/sessions/se1/turns?after=999&limit=1000",
      "/api/v4/chat/sessions/se1/turns?after=1999&limit=100",
    ]);
  });
});
