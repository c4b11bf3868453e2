import { describe, expect, it } from "vitest";
import { contextLine } from "./contextLine";
import type { ContextPreview } from "../api";

const preview = (mode: ContextPreview["mode"], allowed: number, range: [number, number] | null, stopped: number[] = []) => ({
  mode,
  allowed_from_seq: allowed,
  turn_range: range ? { from_seq: range[0], to_seq: range[1] } : null,
  stopped_turns: stopped,
  checkpoints: mode === "FRESH" ? [] : [{ id: "c1", commit_hash: "abc", message: "Base", branch_name: "main" }],
});

describe("contextLine", () => {
  it("HeadModeDimsTurnsBeforeTheCheckpointAndOverTheBudget", () => {
    const l = contextLine(preview("HEAD", 4, [6, 9]))!;
    expect([3, 4, 5, 6, 9].map((s) => l.outside(s))).toEqual(["before the head checkpoint", "over the token budget", "over the token budget", null, null]);
    expect(l.startSeq).toBe(6);
    expect(l.label).toBe("The model's context starts here (HEAD): the checkpoint and the messages below.");
  });
  it("MountedWithNoTurnsSendsNoneOfThem", () => {
    const l = contextLine(preview("MOUNTED", 6, null))!;
    expect(l.startSeq).toBeNull();
    expect(l.outside(5)).toBe("before the mounted checkpoint");
    expect(l.label).toBe("The model's context starts here (MOUNTED): the checkpoint and your next message; none of the messages above are sent.");
  });
  it("ATurnNewerThanThePreviewIsNotCalledOverTheBudget", () => {
    const l = contextLine(preview("FORKED", 0, null))!;
    expect(l.outside(0)).toBeNull();
    const dropped = contextLine({ ...preview("FORKED", 0, null), dropped_turns: 2 })!;
    expect(dropped.outside(1)).toBe("over the token budget");
  });
  it("FreshIncludesEverythingAndNamesStoppedReplies", () => {
    const l = contextLine(preview("FRESH", 0, [0, 3], [1]))!;
    expect([0, 3].map((s) => l.outside(s))).toEqual([null, null]);
    expect(l.label).toBe("The model's context starts here (FRESH): the messages below; stopped replies are included as far as they got (#1).");
  });
});
