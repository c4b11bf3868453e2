import { afterEach, describe, expect, it, vi } from "vitest";
import { cleanup, render, screen } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { Thread } from "./Thread";
import type { Turn } from "../api";
import { turnOf } from "../testing/wire";

afterEach(cleanup);

const turn = (seq: number, role: "user" | "assistant", content: string, metadata: Turn["metadata"] = {}): Turn => turnOf({
  id: `t${seq}`, session_id: "s1", role, content, provider: "mock", model: "mock", sequence_number: seq, created_at: "2026-01-01T10:00:00Z", metadata,
});

describe("Thread message actions", () => {
  it("edits a sent message as a branch, offers regenerate on the newest reply and fork only where it works", async () => {
    const onEdit = vi.fn();
    const onRegenerate = vi.fn();
    const turns = [turn(0, "user", "Plan the trip"), turn(1, "assistant", "Sure"), turn(2, "user", "By train?"), turn(3, "assistant", "Yes")];
    render(<Thread turns={turns} pending={null} actions={{ onEdit, canEdit: (t) => t.sequence_number === 2, onRegenerate, onFork: vi.fn(), canFork: (t) => t.sequence_number >= 2 }} />);
    expect(screen.queryByRole("button", { name: "Edit message 0 on a new branch" })).toBeNull();
    expect(screen.queryByRole("button", { name: "Fork from message 1" })).toBeNull();
    expect(screen.getAllByRole("button", { name: /^Fork from message/ }).map((b) => b.getAttribute("aria-label"))).toEqual(["Fork from message 2", "Fork from message 3"]);
    expect(screen.getAllByRole("button", { name: "Regenerate this reply" })).toHaveLength(1);
    await userEvent.click(screen.getByRole("button", { name: "Regenerate this reply" }));
    expect(onRegenerate).toHaveBeenCalledWith(expect.objectContaining({ sequence_number: 3 }));
    await userEvent.click(screen.getByRole("button", { name: "Edit message 2 on a new branch" }));
    const box = screen.getByRole("textbox", { name: "Edit message 2" });
    await userEvent.clear(box);
    await userEvent.type(box, "By ferry?{Enter}");
    expect(onEdit).toHaveBeenCalledWith(expect.objectContaining({ sequence_number: 2 }), "By ferry?");
  });

  it("marks a stopped reply and a turn outside the context, and is one Tab stop moved with the arrow keys", async () => {
    const turns = [turn(0, "user", "Old"), turn(1, "assistant", "Cut", { stopped: true }), turn(2, "user", "New")];
    render(<Thread turns={turns} pending={null} outside={(t) => (t.sequence_number === 0 ? "before the head checkpoint" : null)} />);
    expect(screen.getByTestId("stopped-badge").textContent).toBe("Stopped");
    const labels = [...document.querySelectorAll("article")].map((a) => [a.getAttribute("aria-label"), a.tabIndex]);
    expect(labels).toEqual([
      ["user message 0, not sent to the model: before the head checkpoint", -1],
      ["assistant message 1, stopped", -1],
      ["user message 2", 0],
    ]);
    (document.querySelector("[data-seq='2']") as HTMLElement).focus();
    await userEvent.keyboard("{ArrowUp}");
    expect(document.activeElement?.getAttribute("data-seq")).toBe("1");
    await userEvent.keyboard("{ArrowRight}");
    expect(document.activeElement?.getAttribute("aria-label")).toBe("Copy message");
    await userEvent.keyboard("{Escape}");
    expect(document.activeElement?.getAttribute("data-seq")).toBe("1");
  });
});

describe("a message with redacted secrets", () => {
  it("shows beside it, and reads out with it, what the server redacted", () => {
    const turns = [
      turn(0, "user", "my token is [redacted: github-pat]", { redactions: [{ rule: "github-pat" }] }),
      turn(1, "assistant", "Keys: [redacted: aws-access-token] and [redacted: github-pat], [redacted: github-pat]", {
        redactions: [{ field: "reply", rule: "aws-access-token" }, { rule: "github-pat" }, { rule: "github-pat" }, { rule: "" }, "junk"],
      }),
      turn(2, "user", "nothing secret here"),
    ];
    render(<Thread turns={turns} pending={null} />);
    expect(screen.getAllByTestId("redaction-badge").map((b) => b.textContent)).toEqual([" 1 secret redacted: github-pat", " 3 secrets redacted: aws-access-token, github-pat"]);
    const shown = [...document.querySelectorAll(".msg-meta")].map((m) => m.classList.contains("shown"));
    expect(shown).toEqual([true, true, false]);
    expect(document.querySelector("[data-seq='0']")?.getAttribute("aria-label")).toBe("user message 0, 1 secret redacted: github-pat");
    expect(document.querySelector("[data-seq='2']")?.getAttribute("aria-label")).toBe("user message 2");
  });
});

describe("what a message offers follows what the page learns", () => {
  it("offers fork once the checkpoints before the message are known, without a new turn", () => {
    const turns = [turn(0, "user", "Plan the trip"), turn(1, "assistant", "Sure")];
    const { rerender } = render(<Thread turns={turns} pending={null} actions={{ onFork: vi.fn(), canFork: () => false }} />);
    expect(screen.queryAllByRole("button", { name: /^Fork from message/ })).toHaveLength(0);
    // The page read the checkpoints this session reaches: forking now works.
    rerender(<Thread turns={turns} pending={null} actions={{ onFork: vi.fn(), canFork: () => true }} />);
    expect(screen.getAllByRole("button", { name: /^Fork from message/ }).map((b) => b.getAttribute("aria-label"))).toEqual(["Fork from message 0", "Fork from message 1"]);
  });
});
