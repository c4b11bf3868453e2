import { afterEach, describe, expect, it, vi } from "vitest";
import { cleanup, render, screen } from "@testing-library/react";
import renderMarkdown from "react-markdown";
import { Thread, turnTime } from "./Thread";
import type { Turn } from "../api";
import { turnOf } from "../testing/wire";

// Counts how often markdown is parsed: the real renderer, wrapped.
vi.mock("react-markdown", async (importOriginal) => {
  const real = await importOriginal<typeof import("react-markdown")>();
  return { ...real, default: vi.fn(real.default) };
});
const parses = vi.mocked(renderMarkdown);

afterEach(cleanup);

const turn = (seq: number, role: "user" | "assistant", content: string): Turn => turnOf({
  id: `r${seq}`,
  session_id: "se1",
  role,
  content,
  provider: "mock",
  model: "mock",
  sequence_number: seq,
  created_at: "2026-01-01T10:00:00Z",
});

describe("the thread's rendering cost", () => {
  it("parses each reply's markdown once: not again when the page re-renders, nor when the message is mounted again", () => {
    parses.mockClear();
    const turns = [turn(0, "user", "Plan it"), turn(1, "assistant", "**First** cached reply"), turn(2, "user", "More"), turn(3, "assistant", "Second *cached* reply")];
    const view = render(<Thread turns={turns} pending={null} actions={{ onRetry: () => {}, onFork: () => {} }} />);
    expect(parses).toHaveBeenCalledTimes(2);
    // The page re-renders (a streamed delta): new callbacks, same turns.
    view.rerender(<Thread turns={turns} pending={{ text: "Next", reply: "" }} actions={{ onRetry: () => {}, onFork: () => {} }} />);
    view.rerender(<Thread turns={turns} pending={null} actions={{ onRetry: () => {}, onFork: () => {} }} />);
    expect(parses).toHaveBeenCalledTimes(2);
    // Scrolled out of the window and back: mounted anew, not parsed anew.
    view.unmount();
    render(<Thread turns={turns} pending={null} />);
    expect(parses).toHaveBeenCalledTimes(2);
    expect(screen.getAllByTestId("turn-assistant").map((e) => e.innerHTML)).toEqual(["<div class=\"md\"><p><strong>First</strong> cached reply</p></div>", "<div class=\"md\"><p>Second <em>cached</em> reply</p></div>"]);
  });

  it("opens a long thread with the newest messages in its first render, parsing none from the top", () => {
    parses.mockClear();
    const turns = Array.from({ length: 200 }, (_, i) => turn(1800 + i, i % 2 ? "assistant" : "user", `Message ${1800 + i}`));
    // What the first render put in the DOM, before any effect or measurement.
    let first: string[] = [];
    const ref = (el: HTMLDivElement | null) => {
      if (el && !first.length) first = [...el.querySelectorAll("article")].map((a) => a.getAttribute("data-seq")!);
    };
    render(
      <div ref={ref}>
        <Thread turns={turns} pending={null} />
      </div>,
    );
    expect(first).toContain("1999");
    expect(first).not.toContain("1800");
    // Only the rows in view and one more either side: 800 px of estimated rows.
    expect(first.length).toBeLessThanOrEqual(12);
    expect(parses.mock.calls.length).toBeLessThanOrEqual(6);
  });

  it("formats a message's time once per timestamp", () => {
    const a = turnTime("2026-01-01T10:00:00Z");
    expect(turnTime("2026-01-01T10:00:00Z")).toBe(a);
    expect(a.clock).toBe(new Date("2026-01-01T10:00:00Z").toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" }));
    expect(turnTime("not a date")).toEqual({ clock: "", full: "not a date" });
  });
});
