import { afterEach, describe, expect, it, vi } from "vitest";
import { cleanup, render, screen, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { MergeView } from "./MergeView";
import type { Checkpoint, MergePreview, MergeResolution } from "../api";
import { itemOf, mergePreviewOf } from "../testing/wire";

afterEach(cleanup);

const preview: MergePreview = mergePreviewOf({
  base_checkpoint_id: "b",
  source_checkpoint_id: "s",
  target_checkpoint_id: "t",
  merged: { message: "Merge by-bus into main", summary: "ours summary", objective: "", decisions: ["Take the bus"], tasks: [{ text: "Book passes" }, "Pack"], assumptions: [], open_questions: [], entities: [], artifacts: [] },
  conflicts: [
    { field: "summary", key: "", kind: "both_changed", base: "base summary", ours: "ours summary", theirs: "theirs summary" },
    { field: "tasks", key: "book tickets", kind: "removed_vs_edited", base: "Book tickets", ours: "Book tickets by Friday", theirs: "" },
  ],
  items: [
    itemOf({ id: "d-000001", kind: "decision", text: "Take the bus" }),
    itemOf({ id: "t-000001", kind: "task", text: "Book passes" }),
    itemOf({ id: "t-000002", kind: "task", text: "Pack" }),
  ],
});

describe("MergeView", () => {
  it("merges only once every conflict is resolved, sending each choice", async () => {
    const onMerge = vi.fn<(r: MergeResolution[]) => Promise<void>>().mockResolvedValue(undefined);
    render(<MergeView preview={preview} sourceLabel="abc1234 (by-bus)" targetLabel="def5678 (main)" onPreview={vi.fn()} onMerge={onMerge} />);
    expect(screen.getByText(/2 conflict\(s\); 2 unresolved/)).toBeTruthy();
    const merge = screen.getByRole("button", { name: "Merge" }) as HTMLButtonElement;
    expect(merge.disabled).toBe(true);
    const [summary, task] = screen.getAllByTestId("merge-conflict");
    expect(task.textContent).toContain("(absent)");
    await userEvent.click(summary.querySelectorAll("input[type=radio]")[1] as HTMLElement); // theirs
    expect(merge.disabled).toBe(true);
    await userEvent.click(task.querySelectorAll("input[type=radio]")[3] as HTMLElement); // custom
    const custom = screen.getByLabelText("Custom value for tasks book tickets") as HTMLTextAreaElement;
    expect(custom.value).toBe("Book tickets by Friday");
    await userEvent.clear(custom);
    expect(merge.disabled).toBe(true);
    await userEvent.type(custom, "Book tickets by Monday");
    expect(merge.disabled).toBe(false);
    await userEvent.click(merge);
    expect(onMerge).toHaveBeenCalledWith([
      { field: "summary", key: "", choice: "theirs", value: "" },
      { field: "tasks", key: "book tickets", choice: "custom", value: "Book tickets by Monday" },
    ]);
  });

  it("previews with the current choices and shows the merged content", async () => {
    const onPreview = vi.fn<(r: MergeResolution[]) => Promise<void>>().mockResolvedValue(undefined);
    render(<MergeView preview={preview} sourceLabel="a" targetLabel="b" onPreview={onPreview} onMerge={vi.fn()} />);
    await userEvent.click(screen.getAllByTestId("merge-conflict")[0].querySelectorAll("input[type=radio]")[2] as HTMLElement); // base
    await userEvent.click(screen.getByRole("button", { name: "Preview with these choices" }));
    expect(onPreview).toHaveBeenCalledWith([{ field: "summary", key: "", choice: "base", value: "" }]);
    const box = screen.getByTestId("merge-preview");
    expect(box.textContent).toContain("Merge by-bus into main");
    expect(box.textContent).toContain("Book passes");
    expect(box.textContent).toContain("Pack");
  });

  it("shows the server's refusal", async () => {
    const one = { ...preview, conflicts: [preview.conflicts[0]] };
    render(<MergeView preview={one} sourceLabel="a" targetLabel="b" onPreview={vi.fn()} onMerge={() => Promise.reject(new Error("target is no longer its branch head"))} />);
    await userEvent.click(screen.getAllByRole("radio")[0]);
    await userEvent.click(screen.getByRole("button", { name: "Merge" }));
    expect((await screen.findByRole("alert")).textContent).toBe("target is no longer its branch head");
  });

  it("shows what changes in the target by item id, word diffs in conflicts, and every kind in the preview", () => {
    const it = (id: string, kind: "decision" | "assumption" | "open_question" | "entity" | "task", text: string) => itemOf({ id, kind, text });
    const ours = { objective: "Trip", summary: "", artifacts: [], items: [it("d-000001", "decision", "Take the bus"), it("a-000001", "assumption", "Buses run daily")] } as unknown as Checkpoint;
    const full: MergePreview = {
      ...preview,
      conflicts: [{ field: "decisions", key: "d-000001", kind: "both_changed", base: "Take the bus", ours: "Take the night bus", theirs: "Take the early bus" }],
      merged: { ...preview.merged, objective: "Trip", assumptions: ["Buses run daily"], open_questions: ["Which stop?"], entities: ["Greyhound"] },
      items: [it("d-000001", "decision", "Take the bus"), it("a-000001", "assumption", "Buses run daily"), it("q-000001", "open_question", "Which stop?"), it("e-000001", "entity", "Greyhound")],
      removes: [],
    };
    render(<MergeView preview={full} ours={ours} sourceLabel="by-bus" targetLabel="main" onPreview={vi.fn()} onMerge={vi.fn()} />);
    const changes = screen.getByTestId("merge-changes");
    expect([...changes.querySelectorAll(".diff-line")].map((l) => `${l.getAttribute("data-op")} ${l.getAttribute("data-key")}`)).toEqual(["add summary", "add q-000001", "add e-000001"]);
    const conflict = screen.getByTestId("merge-conflict");
    expect([...conflict.querySelectorAll("ins")].map((x) => x.textContent?.trim())).toEqual(["night", "early"]);
    const box = screen.getByTestId("merge-preview");
    for (const [field, text] of [["decisions", "Take the bus"], ["assumptions", "Buses run daily"], ["open_questions", "Which stop?"], ["entities", "Greyhound"]])
      expect(within(box).getByTestId(`merged-${field}`).textContent).toContain(text);
    expect(screen.getByText("The merge removes nothing.")).toBeTruthy();
  });
});
