import { afterEach, describe, expect, it, vi } from "vitest";
import { cleanup, render, screen, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { CheckpointForm } from "./CheckpointForm";
import { clientChanges } from "../lib/diff";
import { keysOf } from "../lib/itemKeys";
import type { Checkpoint, Draft } from "../api";
import { changeOf, checkpointOf, draftOf } from "../testing/wire";

afterEach(cleanup);

const base: Checkpoint = checkpointOf({
  id: "base-1",
  commit_hash: "abc1234def",
  message: "Main plan",
  summary: "We use Go.",
  objective: "Ship the CLI",
  decisions: ["Use Go with cobra", "Access token TTL is 15 minutes"],
  assumptions: ["Users have git installed"],
  tasks: [{ text: "Write the install script", status: "open" }],
  open_questions: [],
  entities: [],
  artifacts: [],
  created_at: "2026-01-01T00:00:00Z",
});

// A draft in the v5 contract's shape: the proposed full content plus the change list.
const v5Draft: Draft = draftOf({
  title: "Branch plan",
  objective: "Ship the CLI",
  summary: "We use Go with viper too.",
  decisions: ["Use Go with cobra and viper", "Access token TTL is 15 minutes", "Use SQLite"],
  assumptions: [],
  tasks: [{ text: "Write the install script", status: "done" }],
  open_questions: [],
  entities: [],
  base_checkpoint_id: "base-1",
  changes: [
    changeOf({ op: "add", kind: "decision", id: "d-000001", before: null, after: "Use SQLite", source: { session_id: "s1", from_seq: 3, to_seq: 3, quote: "Decision: use SQLite" } }),
    changeOf({ op: "update", kind: "decision", id: "d-7f3a9c", before: "Use Go with cobra", after: "Use Go with cobra and viper", source: { session_id: "s1", from_seq: 5, to_seq: 5, quote: null } }),
    changeOf({ op: "resolve", kind: "task", id: "t-1a2b3c", before: "Write the install script", after: "Write the install script", source: { session_id: "s1", from_seq: 6, to_seq: 6, quote: "Done: install script" } }),
    changeOf({ op: "retract", kind: "assumption", id: "a-9f9f9f", before: "Users have git installed", after: null, source: { session_id: "s1", from_seq: 7, to_seq: 7, quote: "Drop the git assumption" } }),
  ],
});

const lines = (label: string) => (screen.getByLabelText(label) as HTMLTextAreaElement).value.split("\n").filter(Boolean);

describe("clientChanges", () => {
  it("derives added, changed, resolved and removed items from the base and the proposal", () => {
    const got = clientChanges(base, v5Draft, keysOf(v5Draft.changes));
    // The fixtures' keys are their texts.
    const keyed = (before: string | null, after: string | null) => ({ before, after, before_key: before, after_key: after });
    expect(got).toEqual([
      { op: "update", kind: "decision", id: null, ...keyed("Use Go with cobra", "Use Go with cobra and viper"), source: null },
      { op: "add", kind: "decision", id: null, ...keyed(null, "Use SQLite"), source: null },
      { op: "retract", kind: "assumption", id: null, ...keyed("Users have git installed", null), source: null },
      { op: "resolve", kind: "task", id: null, ...keyed("Write the install script", "Write the install script"), source: null },
    ]);
  });

  it("matches items by the server's keys, and typed text by itself", () => {
    const lists = (decisions: string[]) => ({ decisions, assumptions: [], tasks: [], open_questions: [], entities: [] });
    const keyOf = keysOf([changeOf({ op: "update", kind: "decision", before: "Use SQLite.", before_key: "use sqlite", after: "use sqlite", after_key: "use sqlite" })]);
    expect(clientChanges(lists(["Use SQLite."]), lists(["use sqlite"]), keyOf)).toEqual([]);
    expect(clientChanges(lists(["Use SQLite."]), lists(["use SQLite"]), keyOf).map((c) => `${c.op}:${c.before}>${c.after}`)).toEqual(["update:Use SQLite.>use SQLite"]);
  });

  it("against no base, everything is added", () => {
    expect(clientChanges(null, { decisions: ["A"], assumptions: [], tasks: ["T"], open_questions: [], entities: [] }).map((c) => `${c.op}:${c.after}`)).toEqual(["add:A", "add:T"]);
  });
});

describe("CheckpointForm with a base", () => {
  it("opens with the base's content, so saving unchanged keeps the whole state", async () => {
    const onSubmit = vi.fn(async () => {});
    render(<CheckpointForm base={base} onSubmit={onSubmit} onDraft={async () => v5Draft} />);
    expect(lines("Decisions (one per line)")).toEqual(["Use Go with cobra", "Access token TTL is 15 minutes"]);
    expect((screen.getByLabelText("Task 1 text") as HTMLInputElement).value).toBe("Write the install script");
    await userEvent.type(screen.getByLabelText("Message (required)"), "Same again");
    await userEvent.click(screen.getByRole("button", { name: "Save checkpoint" }));
    const sent = (onSubmit.mock.calls[0] as unknown[])[0] as Record<string, unknown>;
    expect(sent.decisions).toEqual(["Use Go with cobra", "Access token TTL is 15 minutes"]);
    expect(sent.assumptions).toEqual(["Users have git installed"]);
    expect(sent.base_checkpoint_id).toBe("base-1");
  });

  it("shows the server's change list by group with source turns, and a dropped change leaves the form", async () => {
    const onSubmit = vi.fn(async () => {});
    render(<CheckpointForm base={base} onSubmit={onSubmit} onDraft={async () => v5Draft} />);
    await userEvent.click(screen.getByRole("button", { name: "Draft with AI" }));
    const diff = await screen.findByTestId("draft-diff");
    expect(within(diff).getByText("from the draft's change list")).toBeTruthy();
    expect(within(screen.getByTestId("draft-added")).getByText("Use SQLite")).toBeTruthy();
    expect(screen.getByTestId("draft-added").textContent).toContain("from turn #3: “Decision: use SQLite”");
    expect(screen.getByTestId("draft-changed").textContent).toContain("Use Go with cobra → Use Go with cobra and viper");
    expect(screen.getByTestId("draft-resolved").textContent).toContain("Write the install script");
    expect(screen.getByTestId("draft-removed").textContent).toContain("Users have git installed");

    // Drop the SQLite addition and the git retraction, undo the update.
    await userEvent.click(screen.getByRole("button", { name: "Drop change: added Use SQLite" }));
    await userEvent.click(screen.getByRole("button", { name: "Drop change: removed Users have git installed" }));
    await userEvent.click(screen.getByRole("button", { name: "Drop change: changed Use Go with cobra and viper" }));
    expect(lines("Decisions (one per line)")).toEqual(["Use Go with cobra", "Access token TTL is 15 minutes"]);
    expect(lines("Assumptions (one per line)")).toEqual(["Users have git installed"]);
    expect((screen.getByLabelText("Task 1 status") as HTMLSelectElement).value).toBe("done");
    // Keep the SQLite addition after all.
    await userEvent.click(screen.getByRole("button", { name: "Keep change: added Use SQLite" }));
    expect(lines("Decisions (one per line)")).toEqual(["Use Go with cobra", "Access token TTL is 15 minutes", "Use SQLite"]);
    // Un-resolve the task.
    await userEvent.click(screen.getByRole("button", { name: "Drop change: resolved Write the install script" }));
    expect((screen.getByLabelText("Task 1 status") as HTMLSelectElement).value).toBe("open");
  });
});
