import { describe, expect, it } from "vitest";
import { atLeast, layout, linearRuns, minimapSize, minimapUnitsPerPx, thinLabels } from "./BranchGraph";
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
    // A run node carries no aria-label of its own (a plain div may not); its expand button names it.
    const runOf = (n: { data: unknown }) => (n.data as { run: { ids: string[]; branch: string } }).run;
    expect(collapsed.nodes.filter((n) => n.type === "run").map((n) => [n.ariaLabel, `${runOf(n).ids.length} on ${runOf(n).branch}`])).toEqual([
      [undefined, "4 on main"],
      [undefined, "4 on feature"],
    ]);
    expect(collapsed.nodes.filter((n) => n.type === "cp").map((n) => n.id)).toEqual(["m1", "m2", "f1", "f6", "m7"]);
    expect(collapsed.edges.map((e) => `${e.source}>${e.target}`)).toEqual(["m1>m2", "m2>run:m3", "m2>f1", "f1>run:f2", "run:f2>f6", "run:m3>m7", "f6>m7"]);
    const open = layout(tree, ["main", "feature"], [], () => "active", new Set(["f2"]));
    expect(open.nodes.filter((n) => n.type === "run").map((n) => n.id)).toEqual(["run:m3"]);
    expect(open.nodes.filter((n) => n.type === "cp").map((n) => n.id)).toEqual(["m1", "m2", "f1", "f2", "f3", "f4", "f5", "f6", "m7"]);
  });
});

describe("the minimap", () => {
  it("gets every checkpoint and run node's laid-out size, and the lane labels none", () => {
    const { nodes } = layout(tree, ["main", "feature"], [], () => "active");
    const sized = nodes.filter((n) => n.initialWidth !== undefined);
    expect(sized.map((n) => n.id).sort()).toEqual(["f1", "f6", "m1", "m2", "m7", "run:f2", "run:m3"]);
    expect(sized.every((n) => n.initialWidth === 200 && n.initialHeight === 46)).toBe(true);
    expect(nodes.filter((n) => n.type === "lane").map((n) => n.initialWidth)).toEqual([undefined, undefined]);
  });

  it("knows the graph's bounds: lane labels to the newest rank, first lane to last", () => {
    // Six ranks 236 px apart (200 wide, 36 between), labels from x = -170; two lanes 78 apart.
    expect(layout(tree, ["main", "feature"], [], () => "active").bounds).toEqual({ x: -170, y: 0, width: 1550, height: 124 });
  });

  it("is shaped to the graph within its limits", () => {
    expect(minimapSize({ x: -170, y: 0, width: 4400, height: 1528 })).toEqual({ width: 240, height: 83 });
    expect(minimapSize({ x: -170, y: 0, width: 1550, height: 124 })).toEqual({ width: 240, height: 64 });
    expect(minimapSize({ x: 0, y: 0, width: 300, height: 300 })).toEqual({ width: 240, height: 160 });
    expect(minimapSize({ x: 0, y: 0, width: 300, height: 600 })).toEqual({ width: 120, height: 240 });
    expect(minimapSize({ x: 0, y: 0, width: 10, height: 6000 })).toEqual({ width: 64, height: 240 });
  });

  it("spans the union of the graph and the view, padded by 5 px a side, in flow units per px", () => {
    // 1000 x 500 into 200 x 100: 5 units a px, viewBox 1050 x 550, its short side sets the scale.
    expect(minimapUnitsPerPx({ x: 0, y: 0, width: 1000, height: 500 }, { x: 100, y: 100, width: 200, height: 100 }, { width: 200, height: 100 })).toBe(5.5);
    // A view far to the left doubles what the minimap spans.
    expect(minimapUnitsPerPx({ x: 0, y: 0, width: 1000, height: 500 }, { x: -1000, y: 0, width: 500, height: 500 }, { width: 200, height: 100 })).toBe(11);
  });

  it("grows a node to the minimum about its centre and leaves a larger one alone", () => {
    expect(atLeast({ x: 10, y: 20, width: 200, height: 46 }, 100)).toEqual({ x: 10, y: -7, width: 200, height: 100 });
    expect(atLeast({ x: 10, y: 20, width: 200, height: 46 }, 2)).toEqual({ x: 10, y: 20, width: 200, height: 46 });
  });
});

describe("fork and merge edges", () => {
  it("leave the fork point from its lower side and enter the merge from below, each from its true checkpoint", () => {
    const { edges } = layout(tree, ["main", "feature"], [], () => "active", new Set(["f2"]));
    const fork = edges.find((e) => e.id === "p-f1")!;
    expect([fork.source, fork.target, fork.sourceHandle]).toEqual(["m2", "f1", "down"]);
    const merge = edges.find((e) => e.id === "m-m7")!;
    expect([merge.source, merge.target, merge.targetHandle]).toEqual(["f6", "m7", "from-below"]);
    const straight = edges.find((e) => e.id === "p-m3")!;
    expect(straight.sourceHandle).toBeUndefined();
  });
});

describe("screen-space labels", () => {
  const l = (key: string, x: number, y: number, text = "feature") => ({ key, x, y, text, color: "#000", head: false });
  it("keep the first of two that would overlap and every one that does not", () => {
    expect(thinLabels([l("a", 8, 100), l("b", 8, 110), l("c", 8, 130), l("d", 400, 110)], 1000).map((x) => x.key)).toEqual(["a", "c", "d"]);
  });
});
