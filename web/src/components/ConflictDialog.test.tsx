import { afterEach, describe, expect, it, vi } from "vitest";
import { cleanup, render, screen } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { ApiError, type MergeConflict, type MergeResolution } from "../api";
import { ConflictDialog, RebasedNotice, conflictOf } from "./ConflictDialog";

afterEach(cleanup);

const conflicts: MergeConflict[] = [
  { field: "decisions", key: "d-7f3a9c", kind: "both_changed", base: "Pricing is per-seat at $12", ours: "Pricing is per-seat at $14", theirs: "Pricing is per-seat at $10" },
  { field: "tasks", key: "t-00aa11", kind: "removed_vs_edited", base: "Write the docs", ours: "", theirs: "Write the docs twice" },
];
const body = { detail: "the save conflicts with changes on main since its base; send resolutions", conflicts, head_checkpoint_id: "c3", base_checkpoint_id: "c1" };

describe("conflictOf", () => {
  it("reads a save's 409 body", () => {
    expect(conflictOf(new ApiError("x", 409, body.detail, body))).toEqual(body);
  });
  it("is null for a 409 without conflicts and for other errors", () => {
    expect(conflictOf(new ApiError("has dependents", 409, "has dependents", { detail: "has dependents" }))).toBeNull();
    expect(conflictOf(new ApiError("boom", 500, "boom", body))).toBeNull();
  });
});

describe("ConflictDialog", () => {
  it("names each conflict's field, item id and three texts, and sends one resolution per conflict once all are chosen", async () => {
    const onResolve = vi.fn<(r: MergeResolution[]) => void>();
    render(<ConflictDialog conflicts={conflicts} headId="c3000000-0000" onResolve={onResolve} onCancel={vi.fn()} />);
    const rows = screen.getAllByTestId("save-conflict");
    expect(rows).toHaveLength(2);
    expect(rows[0].textContent).toContain("decisions · item d-7f3a9c");
    expect(rows[0].textContent).toContain("ours (what the branch head holds now): Pricing is per-seat at $14");
    expect(rows[0].textContent).toContain("theirs (what this save wrote): Pricing is per-seat at $10");
    expect(rows[0].textContent).toContain("base (what the form was opened on): Pricing is per-seat at $12");
    expect(rows[1].textContent).toContain("ours (what the branch head holds now): (absent)");
    const save = screen.getByRole("button", { name: "Save with these choices" }) as HTMLButtonElement;
    expect(save.disabled).toBe(true);
    await userEvent.click(rows[0].querySelectorAll("input[type=radio]")[1] as HTMLElement); // theirs
    expect(save.disabled).toBe(true);
    await userEvent.click(rows[1].querySelectorAll("input[type=radio]")[2] as HTMLElement); // base
    expect(save.disabled).toBe(false);
    await userEvent.click(save);
    expect(onResolve).toHaveBeenCalledWith([
      { field: "decisions", key: "d-7f3a9c", choice: "theirs", value: "" },
      { field: "tasks", key: "t-00aa11", choice: "base", value: "" },
    ]);
  });

  it("shows markup in texts as text", () => {
    const hostile = [{ ...conflicts[0], theirs: '<img src=x onerror="window.__pwned=1">' }];
    render(<ConflictDialog conflicts={hostile} onResolve={vi.fn()} onCancel={vi.fn()} />);
    expect(screen.getByTestId("conflict-theirs").textContent).toBe('<img src=x onerror="window.__pwned=1">');
    expect(document.querySelector("img")).toBeNull();
  });
});

describe("RebasedNotice", () => {
  it("says where the save landed and what it was written against", () => {
    render(<RebasedNotice head="abc1234 “B”" base="def5678 “A”" />);
    expect(screen.getByRole("status").textContent).toBe("Saved onto abc1234 “B”, rebased from def5678 “A”: changes saved meanwhile are kept.");
  });
});
