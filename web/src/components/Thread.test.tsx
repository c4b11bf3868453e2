import { afterEach, describe, expect, it, vi } from "vitest";
import { act, cleanup, render, screen } from "@testing-library/react";
import { QueryClient, QueryClientProvider, useQuery } from "@tanstack/react-query";
import { Thread } from "./Thread";
import { useSpaceEvents } from "../events";
import { api, type Turn } from "../api";
import { turnOf } from "../testing/wire";
import { queryKeys } from "../lib/queryKeys";

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

/** An EventSource the test drives: it records every stream opened and lets the test emit events. */
class FakeEventSource {
  static all: FakeEventSource[] = [];
  static CLOSED = 2;
  readyState = 1;
  listeners = new Map<string, ((m: MessageEvent) => void)[]>();
  onerror: (() => void) | null = null;
  constructor(public url: string) {
    FakeEventSource.all.push(this);
  }
  addEventListener(kind: string, fn: (m: MessageEvent) => void) {
    this.listeners.set(kind, [...(this.listeners.get(kind) ?? []), fn]);
  }
  close() {
    this.readyState = 2;
  }
  emit(kind: string, data: unknown) {
    for (const fn of this.listeners.get(kind) ?? []) fn(new MessageEvent(kind, { data: JSON.stringify(data) }));
  }
}

const turn = (seq: number, role: "user" | "assistant", content: string): Turn => turnOf({
  id: `t${seq}`,
  session_id: "se1",
  role,
  content,
  provider: "mock",
  model: "mock",
  sequence_number: seq,
  created_at: "2026-01-01T10:00:00Z",
});

function LiveThread() {
  const turns = useQuery({ queryKey: queryKeys.turns("se1"), queryFn: () => api.turns("se1") });
  useSpaceEvents("sp1");
  return <Thread turns={turns.data ?? []} pending={null} />;
}

describe("the live thread", () => {
  it("shows a reply sent elsewhere when the space's stream says the session changed", async () => {
    let stored = [turn(0, "user", "Hello"), turn(1, "assistant", "Hi there")];
    const fetchFn = vi.fn(async (input: RequestInfo | URL) => {
      const p = String(input);
      if (p.startsWith("/api/v4/chat/sessions/se1/turns")) return new Response(JSON.stringify(stored), { status: 200, headers: { "Content-Type": "application/json" } });
      return new Response("{}", { status: 404 });
    });
    vi.stubGlobal("fetch", fetchFn);
    vi.stubGlobal("EventSource", FakeEventSource);
    FakeEventSource.all = [];
    const qc = new QueryClient({ defaultOptions: { queries: { retry: false } } });
    render(
      <QueryClientProvider client={qc}>
        <LiveThread />
      </QueryClientProvider>,
    );
    expect((await screen.findAllByTestId("turn-assistant")).map((e) => e.textContent)).toEqual(["Hi there"]);
    expect(FakeEventSource.all.map((e) => e.url)).toEqual(["/api/v5/spaces/sp1/events"]);

    // The CLI sends a message: the server stores two turns and announces the session update.
    stored = [...stored, turn(2, "user", "From the CLI"), turn(3, "assistant", "**Stored** reply")];
    await act(async () => FakeEventSource.all[0].emit("session.updated", { position: 9, space_id: "sp1", kind: "session.updated", subject_id: "se1", branch_name: "main" }));
    await screen.findByText("From the CLI");
    expect(screen.getAllByTestId("turn-assistant").map((e) => e.innerHTML.includes("<strong>Stored</strong>"))).toEqual([false, true]);
    expect(screen.getAllByTestId("turn-user").map((e) => e.textContent)).toEqual(["Hello", "From the CLI"]);

    // An event about another session does not refetch this thread.
    const turnFetches = () => fetchFn.mock.calls.filter((c) => String(c[0]).includes("/sessions/se1/turns")).length;
    const before = turnFetches();
    await act(async () => FakeEventSource.all[0].emit("session.updated", { position: 10, space_id: "sp1", kind: "session.updated", subject_id: "other", branch_name: "main" }));
    expect(turnFetches()).toBe(before);
  });

  it("offers copy, retry and fork on each message, and time on hover", async () => {
    const onRetry = vi.fn();
    const onFork = vi.fn();
    render(<Thread turns={[turn(0, "user", "Plan the trip"), turn(1, "assistant", "Sure")]} pending={null} actions={{ onRetry, onFork }} />);
    expect(screen.getAllByRole("button", { name: "Copy message" })).toHaveLength(2);
    screen.getByRole("button", { name: "Put this message in the box to send it again" }).click();
    expect(onRetry).toHaveBeenCalledWith(expect.objectContaining({ content: "Plan the trip" }));
    screen.getByRole("button", { name: "Fork from message 1" }).click();
    expect(onFork).toHaveBeenCalledWith(expect.objectContaining({ sequence_number: 1 }));
    expect(document.querySelectorAll("time[datetime='2026-01-01T10:00:00Z']")).toHaveLength(2);
  });

  it("shows a streaming reply with its cursor while it arrives", () => {
    render(<Thread turns={[]} pending={{ text: "Go?", reply: "Partial *answer*" }} />);
    const live = screen.getByTestId("streaming-reply");
    expect(live.getAttribute("aria-busy")).toBe("true");
    expect(live.querySelector("em")?.textContent).toBe("answer");
    expect(live.querySelector(".cursor")).not.toBeNull();
  });

  it("asks for older turns when scrolled to the top, and offers a button for them", () => {
    const onReachTop = vi.fn();
    const { rerender } = render(<Thread turns={[turn(400, "user", "Older"), turn(401, "assistant", "Reply")]} pending={null} hasOlder onReachTop={onReachTop} />);
    const el = screen.getByTestId("thread");
    el.scrollTop = 0;
    el.dispatchEvent(new Event("scroll"));
    expect(onReachTop).toHaveBeenCalledTimes(1);
    screen.getByRole("button", { name: "Load earlier messages" }).click();
    expect(onReachTop).toHaveBeenCalledTimes(2);
    rerender(<Thread turns={[turn(400, "user", "Older"), turn(401, "assistant", "Reply")]} pending={null} hasOlder loadingOlder onReachTop={onReachTop} />);
    expect(screen.getByRole("status").textContent).toBe("Loading earlier messages…");
    rerender(<Thread turns={[turn(0, "user", "First"), turn(1, "assistant", "Reply")]} pending={null} hasOlder={false} onReachTop={onReachTop} />);
    el.dispatchEvent(new Event("scroll"));
    expect(onReachTop).toHaveBeenCalledTimes(2);
    expect(screen.queryByRole("button", { name: "Load earlier messages" })).toBeNull();
  });

  it("marks the turn it was opened at", () => {
    render(<Thread turns={[turn(7, "user", "Use Postgres"), turn(8, "assistant", "Agreed")]} pending={null} focusSeq={8} />);
    expect([...document.querySelectorAll("article.focus")].map((e) => e.getAttribute("data-seq"))).toEqual(["8"]);
  });
});
