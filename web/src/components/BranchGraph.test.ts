import { describe, expect, it } from "vitest";
import { layout, linearRuns } from "./BranchGraph";
import type { CheckpointNode, LineageTree } from "../api";

const cp = (id: string, branch: string, parent: string | null, merge: string | null = null): CheckpointNode => ({
  id,
  commit_hash: `${id}000000`,
  message: `checkpoint ${id}`,
  branch_name: branch,
  parent_checkpoint_id: parent,
  merge_parent_id: merge,
  created_at: `2026-01-01T00:00:${id.slice(1).padStart(2, "0")}Z`,
  summary: "",
  objective: "",
  author_agent: null,
  note_count: 0,
  note_kinds: [],
});

// main: m1 → m2 → m3 → m4 → m5 → m6 → m7 (m7 merges f6)
// feature (forked at m2): f1 → f2 → f3 → f4 → f5 → f6
const tree: LineageTree = {
  space_id: "sp1",
  checkpoints: [
    cp("m1", "main", null),
    cp("m2", "main", "m1"),
    cp("m3", "main", "m2"),
    cp("m4", "main", "m3"),
    cp("m5", "main", "m4"),
    cp("m6", "main", "m5"),
    cp("f1", "feature", "m2"),
    cp("f2", "feature", "f1"),
    cp("f3", "feature", "f2"),
    cp("f4", "feature", "f3"),
    cp("f5", "feature", "f4"),
    cp("f6", "feature", "f5"),
    cp("m7", "main", "m6", "f6"),
  ],
  sessions: [],
  merges: [{ checkpoint_id: "m7", source_checkpoint_id: "f6" }],
};

describe("collapsed runs of linear history", () => {
  it("collapses chains with one parent and one child on the same branch, never a fork point, a merge's source, a branch's first or newest checkpoint", () => {
    // m2 is a fork point, m1 has no parent, m7 is a merge and HEAD; f1's parent is on main, f6 is merged.
    expect(linearRuns(tree)).toEqual([
      { first: "m3", branch: "main", ids: ["m3", "m4", "m5", "m6"] },
      { first: "f2", branch: "feature", ids: ["f2", "f3", "f4", "f5"] },
    ]);
  });

  it("keeps a selected checkpoint visible, splitting its run, and drops runs shorter than three", () => {
    expect(linearRuns(tree, new Set(["m4", "f4"]))).toEqual([]);
    expect(linearRuns(tree, new Set(["f3"])).map((r) => r.ids)).toEqual([["m3", "m4", "m5", "m6"]]);
  });

  it("draws a collapsed run as one node wired into the graph, and an expanded run checkpoint by checkpoint", () => {
    const collapsed = layout(tree, ["main", "feature"], [], () => "active");
    expect(collapsed.nodes.filter((n) => n.type === "run").map((n) => n.ariaLabel)).toEqual(["4 checkpoints on main, collapsed", "4 checkpoints on feature, collapsed"]);
    expect(collapsed.nodes.filter((n) => n.type === "cp").map((n) => n.id)).toEqual(["m1", "m2", "f1", "f6", "m7"]);
    expect(collapsed.edges.map((e) => `${e.source}>${e.target}`)).toEqual(["m1>m2", "m2>run:m3", "m2>f1", "f1>run:f2", "run:f2>f6", "run:m3>m7", "f6>m7"]);
    const open = layout(tree, ["main", "feature"], [], () => "active", new Set(["f2"]));
    expect(open.nodes.filter((n) => n.type === "run").map((n) => n.id)).toEqual(["run:m3"]);
    expect(open.nodes.filter((n) => n.type === "cp").map((n) => n.id)).toEqual(["m1", "m2", "f1", "f2", "f3", "f4", "f5", "f6", "m7"]);
  });
});
