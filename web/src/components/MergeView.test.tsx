import { afterEach, describe, expect, it, vi } from "vitest";
import { cleanup, render, screen } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { MergeView } from "./MergeView";
import type { MergePreview, MergeResolution } from "../api";

afterEach(cleanup);

const preview: MergePreview = {
  base_checkpoint_id: "b",
  source_checkpoint_id: "s",
  target_checkpoint_id: "t",
  merged: { message: "Merge by-bus into main", summary: "ours summary", objective: "", decisions: ["Take the bus"], tasks: [{ text: "Book passes" }, "Pack"] },
  conflicts: [
    { field: "summary", key: "", kind: "both changed", base: "base summary", ours: "ours summary", theirs: "theirs summary" },
    { field: "tasks", key: "book tickets", kind: "edited and removed", base: "Book tickets", ours: "Book tickets by Friday", theirs: "" },
  ],
};

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
});
