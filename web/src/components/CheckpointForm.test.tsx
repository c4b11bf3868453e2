import { afterEach, describe, expect, it, vi } from "vitest";
import { cleanup, fireEvent, render, screen, waitFor } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { CheckpointForm, type CheckpointFields } from "./CheckpointForm";
import { ApiError, type Checkpoint, type Draft } from "../api";
import { checkpointOf, draftOf, itemOf } from "../testing/wire";

afterEach(cleanup);

const draft: Draft = draftOf({
  title: "Trip plan",
  objective: "Plan two weeks",
  summary: "We chose the train.",
  decisions: ["Take the train", "East coast only"],
  assumptions: ["Budget is fixed"],
  tasks: [{ text: "Book tickets", id: "t1", intent_hint: "implement", status: "open", blocked_by: "t0" }, "Check visas"],
  open_questions: ["Rent a car?"],
  entities: ["Sydney"],
});

describe("CheckpointForm", () => {
  it("fills every field from a draft, with structured tasks as editable rows", async () => {
    render(<CheckpointForm onDraft={() => Promise.resolve(draft)} onSubmit={vi.fn()} />);
    await userEvent.click(screen.getByRole("button", { name: "Draft with AI" }));
    expect((await screen.findByLabelText("Task 1 text")).getAttribute("value") ?? (screen.getByLabelText("Task 1 text") as HTMLInputElement).value).toBe("Book tickets");
    expect((screen.getByLabelText("Task 1 intent") as HTMLSelectElement).value).toBe("implement");
    expect((screen.getByLabelText("Task 1 status") as HTMLSelectElement).value).toBe("open");
    expect((screen.getByLabelText("Task 2 text") as HTMLInputElement).value).toBe("Check visas");
    expect(screen.getByTestId("blockers").textContent).toBe(" → blocked by t0");
    expect((screen.getByLabelText("Message (required)") as HTMLInputElement).value).toBe("Trip plan");
    expect((screen.getByLabelText("Decisions (one per line)") as HTMLTextAreaElement).value).toBe("Take the train\nEast coast only");
    expect(document.body.textContent).not.toContain("[object Object]");
    for (const el of document.querySelectorAll("input, textarea")) expect((el as HTMLInputElement).value).not.toContain("[object Object]");
  });

  it("submits tasks as objects with the edits made", async () => {
    const onSubmit = vi.fn<(f: CheckpointFields) => Promise<void>>().mockResolvedValue(undefined);
    render(<CheckpointForm onDraft={() => Promise.resolve(draft)} onSubmit={onSubmit} />);
    await userEvent.click(screen.getByRole("button", { name: "Draft with AI" }));
    await screen.findByLabelText("Task 1 text");
    await userEvent.selectOptions(screen.getByLabelText("Task 1 status"), "done");
    await userEvent.clear(screen.getByLabelText("Task 2 text"));
    await userEvent.type(screen.getByLabelText("Task 2 text"), "Check visas for both");
    await userEvent.click(screen.getByRole("button", { name: "Remove task 2" }));
    await userEvent.click(screen.getByRole("button", { name: "Add task" }));
    await userEvent.type(screen.getByLabelText("Task 2 text"), "Pack");
    await userEvent.click(screen.getByRole("button", { name: "Add artifact" }));
    await userEvent.type(screen.getByLabelText("Artifact 1 label"), "Route");
    await userEvent.type(screen.getByLabelText("Artifact 1 content"), "Sydney to Cairns");
    await userEvent.click(screen.getByRole("button", { name: "Save checkpoint" }));
    expect(onSubmit).toHaveBeenCalledTimes(1);
    const f = onSubmit.mock.calls[0][0];
    expect(f.message).toBe("Trip plan");
    expect(f.tasks).toEqual([
      { text: "Book tickets", id: "t1", intent_hint: "implement", blocked_by: "t0", status: "done" },
      { text: "Pack", status: "open" },
    ]);
    expect(f.decisions).toEqual(["Take the train", "East coast only"]);
    expect(f.artifacts.map((a) => [a.label, a.content, a.type])).toEqual([["Route", "Sydney to Cairns", "text"]]);
  });

  it("shows a list of blockers as chips and sends it back as a list", async () => {
    const onSubmit = vi.fn<(f: CheckpointFields) => Promise<void>>().mockResolvedValue(undefined);
    const listed: Draft = draftOf({ ...draft, proposed: undefined, tasks: [{ text: "Book tickets", id: "t1", status: "open", blocked_by: ["t0", " t2 "] }, { text: "Pack", blocked_by: "" }] });
    render(<CheckpointForm onDraft={() => Promise.resolve(listed)} onSubmit={onSubmit} />);
    await userEvent.click(screen.getByRole("button", { name: "Draft with AI" }));
    const chips = await screen.findByTestId("blockers");
    expect([...chips.querySelectorAll(".badge")].map((c) => c.textContent)).toEqual(["t0", "t2"]);
    expect(screen.getAllByTestId("blockers")).toHaveLength(1);
    await userEvent.click(screen.getByRole("button", { name: "Save checkpoint" }));
    expect(onSubmit.mock.calls[0][0].tasks).toEqual([
      { text: "Book tickets", id: "t1", blocked_by: ["t0", "t2"], status: "open" },
      { text: "Pack", status: "open" },
    ]);
  });

  it("requires a message and reports a failed draft", async () => {
    const onSubmit = vi.fn();
    render(<CheckpointForm onDraft={() => Promise.reject(new Error("Background provider not configured"))} onSubmit={onSubmit} />);
    await userEvent.click(screen.getByRole("button", { name: "Draft with AI" }));
    expect((await screen.findByRole("alert")).textContent).toBe("Draft failed: Background provider not configured");
    await userEvent.type(screen.getByLabelText("Message (required)"), "   ");
    fireEvent.submit(screen.getByRole("form", { name: "Checkpoint" }));
    await waitFor(() => expect(screen.getByRole("alert").textContent).toBe("A message is required."));
    expect(onSubmit).not.toHaveBeenCalled();
  });
});

describe("CheckpointForm in place", () => {
  const base: Checkpoint = checkpointOf({
    id: "c1", commit_hash: "abcdef1234567",
    message: "Pricing", summary: "", objective: "", decisions: ["Pricing is per-seat at $12", "Use Go"], assumptions: [], tasks: [{ text: "Write the docs", status: "open" }],
    open_questions: ["Which region?"], entities: [], artifacts: [], metadata: {}, created_at: "2026-12-01T10:00:00Z",
    items: [
      itemOf({ id: "d-000001", kind: "decision", text: "Pricing is per-seat at $12", status: "open" }),
      itemOf({ id: "d-000002", kind: "decision", text: "Use Go", status: "open" }),
      itemOf({ id: "t-000001", kind: "task", text: "Write the docs", status: "open" }),
      itemOf({ id: "q-000001", kind: "open_question", text: "Which region?", status: "open" }),
    ],
  });

  it("sends a reworded line as an update of its id, a ticked task as resolved, a deleted line as retracted, and the base it was opened on", async () => {
    const onSubmit = vi.fn<(f: CheckpointFields) => Promise<void>>().mockResolvedValue(undefined);
    render(<CheckpointForm base={base} onSubmit={onSubmit} />);
    await userEvent.type(screen.getByLabelText("Message (required)"), "Raise the price");
    fireEvent.change(screen.getByLabelText("Decisions (one per line)"), { target: { value: "Pricing is per-seat at $14\nUse Go\nBill yearly" } });
    fireEvent.change(screen.getByLabelText("Open questions (one per line)"), { target: { value: "" } });
    await userEvent.selectOptions(screen.getByLabelText("Task 1 status"), "done");
    await userEvent.click(screen.getByRole("button", { name: "Save checkpoint" }));
    const f = onSubmit.mock.calls[0][0];
    expect(f.base_checkpoint_id).toBe("c1");
    expect(f.decisions).toEqual(["Pricing is per-seat at $14", "Use Go", "Bill yearly"]);
    expect(f.items).toEqual([
      { id: "d-000001", kind: "decision", text: "Pricing is per-seat at $14", status: "open", change: { op: "update", before: "Pricing is per-seat at $12" } },
      { id: "d-000002", kind: "decision", text: "Use Go", status: "open" },
      { kind: "decision", text: "Bill yearly", status: "open", change: { op: "add" } },
      { id: "t-000001", kind: "task", text: "Write the docs", status: "done", change: { op: "resolve", before: "Write the docs" } },
      { id: "q-000001", kind: "open_question", text: "Which region?", status: "retracted", change: { op: "retract", before: "Which region?" } },
    ]);
  });

  it("keeps the base it was opened on when a newer base arrives", async () => {
    const onSubmit = vi.fn<(f: CheckpointFields) => Promise<void>>().mockResolvedValue(undefined);
    const { rerender } = render(<CheckpointForm base={base} onSubmit={onSubmit} />);
    rerender(<CheckpointForm base={{ ...base, id: "c2", decisions: ["Something else"], items: [] }} onSubmit={onSubmit} />);
    await userEvent.type(screen.getByLabelText("Message (required)"), "Same");
    await userEvent.click(screen.getByRole("button", { name: "Save checkpoint" }));
    const f = onSubmit.mock.calls[0][0];
    expect(f.base_checkpoint_id).toBe("c1");
    expect(f.decisions).toEqual(["Pricing is per-seat at $12", "Use Go"]);
    expect(f.items?.filter((it) => it.change)).toEqual([]);
  });

  it("takes the ids when the base's items view comes after its content", async () => {
    const onSubmit = vi.fn<(f: CheckpointFields) => Promise<void>>().mockResolvedValue(undefined);
    const { rerender } = render(<CheckpointForm base={{ ...base, items: undefined }} onSubmit={onSubmit} />);
    rerender(<CheckpointForm base={base} onSubmit={onSubmit} />);
    await userEvent.type(screen.getByLabelText("Message (required)"), "Raise the price");
    fireEvent.change(screen.getByLabelText("Decisions (one per line)"), { target: { value: "Pricing is per-seat at $14\nUse Go" } });
    await userEvent.click(screen.getByRole("button", { name: "Save checkpoint" }));
    const f = onSubmit.mock.calls[0][0];
    expect(f.items?.filter((it) => it.change)).toEqual([
      { id: "d-000001", kind: "decision", text: "Pricing is per-seat at $14", status: "open", change: { op: "update", before: "Pricing is per-seat at $12" } },
    ]);
  });

  it("on a 409 shows the conflicts and sends the same save again with the chosen resolutions", async () => {
    const conflict = {
      detail: "conflicts",
      conflicts: [{ field: "decisions", key: "d-000001", kind: "both_changed", base: "Pricing is per-seat at $12", ours: "Pricing is per-seat at $10", theirs: "Pricing is per-seat at $14" }],
      head_checkpoint_id: "c3",
      base_checkpoint_id: "c1",
    };
    const onSubmit = vi
      .fn<(f: CheckpointFields) => Promise<void>>()
      .mockRejectedValueOnce(new ApiError("conflicts", 409, "conflicts", conflict))
      .mockResolvedValueOnce(undefined);
    render(<CheckpointForm base={base} onSubmit={onSubmit} />);
    await userEvent.type(screen.getByLabelText("Message (required)"), "Raise the price");
    fireEvent.change(screen.getByLabelText("Decisions (one per line)"), { target: { value: "Pricing is per-seat at $14\nUse Go" } });
    await userEvent.click(screen.getByRole("button", { name: "Save checkpoint" }));
    const row = await screen.findByTestId("save-conflict");
    expect(row.textContent).toContain("item d-000001");
    await userEvent.click(row.querySelectorAll("input[type=radio]")[0] as HTMLElement); // ours: the head's $10
    await userEvent.click(screen.getByRole("button", { name: "Save with these choices" }));
    await waitFor(() => expect(onSubmit).toHaveBeenCalledTimes(2));
    const [first, second] = onSubmit.mock.calls.map((c) => c[0]);
    expect(second).toEqual({ ...first, resolutions: [{ field: "decisions", key: "d-000001", choice: "ours", value: "" }] });
    await waitFor(() => expect(screen.queryByTestId("save-conflict")).toBeNull());
    expect(screen.queryByRole("alert")).toBeNull();
  });
});
