import { createContext, memo, useCallback, useContext, useEffect, useMemo, useRef, useState } from "react";
import {
  ReactFlow,
  ReactFlowProvider,
  Background,
  Controls,
  MiniMap,
  MarkerType,
  Panel,
  useReactFlow,
  useStore,
  Handle,
  Position,
  type Edge,
  type MiniMapNodeProps,
  type Node,
  type NodeProps,
} from "@xyflow/react";
import "@xyflow/react/dist/style.css";
import dagre from "@dagrejs/dagre";
import { useNavigate } from "react-router-dom";
import "./review.css";
import { short, type CheckpointNode, type ID, type LineageTree } from "../api";

// Branch colours: distinct hues that hold contrast on light and dark.
const PALETTE = ["#3b6fe0", "#d2572b", "#1f9d6b", "#a04fd0", "#c7961a", "#d23f7b", "#2a9bb5", "#7a8a23", "#8a5a3c", "#5a63d8"];
export const laneColor = (i: number) => PALETTE[i % PALETTE.length];

const NODE_W = 200;
const NODE_H = 46;
const LANE_H = 78;
/** Where the lane labels start, left of the first checkpoint. */
const LANE_X = -170;

/** A rectangle in flow coordinates. */
export interface Rect {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** The minimap's longer side in px, and the bounds of its shorter one. */
export const MINIMAP_LONG = 240;
export const MINIMAP_SHORT_MIN = 64;
export const MINIMAP_SHORT_MAX = 160;
/** The smallest a node is drawn on the minimap, in screen px. */
export const MINIMAP_NODE_MIN_PX = 2;
/** React Flow's MiniMap pads its view by this many px of its own scale on each side (its offsetScale default). */
const MINIMAP_OFFSET = 5;

/**
 * The minimap's size in px for a graph's bounds: shaped to the graph, so a
 * long, flat lineage fills the overview instead of a thin stripe across a
 * 4:3 box, within [MINIMAP_SHORT_MIN, MINIMAP_SHORT_MAX] on the short side.
 */
export function minimapSize(bounds: Rect): { width: number; height: number } {
  const clamp = (v: number) => Math.round(Math.min(MINIMAP_SHORT_MAX, Math.max(MINIMAP_SHORT_MIN, v)));
  const w = Math.max(bounds.width, 1);
  const h = Math.max(bounds.height, 1);
  if (w >= h) return { width: MINIMAP_LONG, height: clamp((MINIMAP_LONG * h) / w) };
  return { width: clamp((MINIMAP_LONG * w) / h), height: MINIMAP_LONG };
}

/**
 * How many flow units one screen px of the minimap spans: React Flow's
 * MiniMap fits the union of the nodes' bounds and the visible area into its
 * box, padded by MINIMAP_OFFSET px, keeping the aspect ratio.
 */
export function minimapUnitsPerPx(bounds: Rect, view: Rect, size: { width: number; height: number }): number {
  const x0 = Math.min(bounds.x, view.x);
  const y0 = Math.min(bounds.y, view.y);
  const w = Math.max(bounds.x + bounds.width, view.x + view.width) - x0;
  const h = Math.max(bounds.y + bounds.height, view.y + view.height) - y0;
  const scale = Math.max(w / size.width, h / size.height);
  return (scale * (Math.min(size.width, size.height) + 2 * MINIMAP_OFFSET)) / Math.min(size.width, size.height);
}

/** A node's minimap rectangle grown about its centre to at least minUnits on each side. */
export function atLeast(r: Rect, minUnits: number): Rect {
  const width = Math.max(r.width, minUnits);
  const height = Math.max(r.height, minUnits);
  return { x: r.x - (width - r.width) / 2, y: r.y - (height - r.height) / 2, width, height };
}

/** Opens the branch-head menu of a branch at a screen position. */
const BranchMenu = createContext<((branch: string, x: number, y: number) => void) | null>(null);

type CpData = { cp: CheckpointNode; color: string; selected: boolean; head: boolean; tip: boolean; merge: boolean };
type LaneData = { name: string; color: string; disposition: string };
type RunData = { run: Run; color: string; onExpand: (first: ID) => void };

/** A collapsed stretch of linear history: checkpoints oldest first. */
export interface Run {
  first: ID;
  branch: string;
  ids: ID[];
}

/** Runs shorter than this are drawn checkpoint by checkpoint. */
export const MIN_RUN = 3;

/**
 * The stretches of linear history a graph can draw as one node: maximal
 * chains of checkpoints that each have one parent and one child on their own
 * branch, are no merge, no merge's source, no fork point, not a branch's
 * newest checkpoint (so never HEAD) and not in keep (selected ones). Runs of
 * fewer than MIN_RUN checkpoints are left out.
 */
export function linearRuns(tree: Pick<LineageTree, "checkpoints" | "merges">, keep: ReadonlySet<ID> = new Set()): Run[] {
  const byId = new Map(tree.checkpoints.map((c) => [c.id, c]));
  const children = new Map<ID, CheckpointNode[]>();
  for (const c of tree.checkpoints) {
    for (const p of [c.parent_checkpoint_id, c.merge_parent_id]) {
      if (p && byId.has(p)) children.set(p, [...(children.get(p) ?? []), c]);
    }
  }
  const mergeSources = new Set(tree.merges.map((m) => m.source_checkpoint_id));
  const linear = (c: CheckpointNode) => {
    const parent = c.parent_checkpoint_id ? byId.get(c.parent_checkpoint_id) : undefined;
    const kids = children.get(c.id) ?? [];
    return (
      !!parent &&
      parent.branch_name === c.branch_name &&
      !c.merge_parent_id &&
      !mergeSources.has(c.id) &&
      kids.length === 1 &&
      kids[0].branch_name === c.branch_name &&
      kids[0].parent_checkpoint_id === c.id &&
      !keep.has(c.id)
    );
  };
  const runs: Run[] = [];
  for (const c of tree.checkpoints) {
    if (!linear(c)) continue;
    const parent = byId.get(c.parent_checkpoint_id!)!;
    if (linear(parent)) continue; // not the start of its run
    const ids: ID[] = [];
    for (let at: CheckpointNode | undefined = c; at && linear(at); at = (children.get(at.id) ?? [])[0]) ids.push(at.id);
    if (ids.length >= MIN_RUN) runs.push({ first: c.id, branch: c.branch_name, ids });
  }
  return runs;
}

const CpNodeView = memo(function CpNodeView({ data }: NodeProps<Node<CpData>>) {
  const { cp, color, selected, head, tip, merge } = data;
  const menu = useContext(BranchMenu);
  return (
    <div className={selected ? "cp-node selected" : "cp-node"} style={{ ["--lane" as string]: color }} title={`${cp.message}\n${cp.branch_name} · ${cp.created_at}`}>
      <Handle type="target" position={Position.Left} isConnectable={false} />
      <span className="h">{short(cp.commit_hash)}</span> {head && <span className="badge accent">HEAD</span>} {merge && <span className="badge">merge</span>}{" "}
      {tip && !head && <span className="badge" style={{ borderColor: color }}>{cp.branch_name}</span>}
      {cp.note_count > 0 && <span className="badge warn">{cp.note_count} note{cp.note_count > 1 ? "s" : ""}</span>}
      {/* Before the message, so a node's text still ends with its message. */}
      {menu && tip && cp.branch_name !== "main" && (
        <button
          type="button"
          className="branch-menu-btn nodrag"
          aria-label={`Menu of branch ${cp.branch_name}`}
          aria-haspopup="menu"
          onClick={(e) => {
            e.stopPropagation();
            const r = (e.currentTarget as HTMLElement).getBoundingClientRect();
            menu(cp.branch_name, r.left, r.bottom);
          }}
        >
          ⋯
        </button>
      )}
      <span className="m">{cp.message}</span>
      <Handle type="source" position={Position.Right} isConnectable={false} />
      <Handle type="source" id="down" position={Position.Bottom} isConnectable={false} />
      <Handle type="source" id="up" position={Position.Top} isConnectable={false} />
      <Handle type="target" id="from-below" position={Position.Bottom} isConnectable={false} />
      <Handle type="target" id="from-above" position={Position.Top} isConnectable={false} />
    </div>
  );
});

const LaneView = memo(function LaneView({ data }: NodeProps<Node<LaneData>>) {
  return (
    <div className="lane-label" style={{ ["--lane" as string]: data.color }}>
      {data.name}
      {data.disposition !== "active" ? ` · ${data.disposition}` : ""}
    </div>
  );
});

const RunView = memo(function RunView({ data }: NodeProps<Node<RunData>>) {
  const { run, color, onExpand } = data;
  return (
    <div className="cp-node run-node" style={{ ["--lane" as string]: color }}>
      <Handle type="target" position={Position.Left} isConnectable={false} />
      <button
        type="button"
        className="run-expand"
        aria-label={`+${run.ids.length} checkpoints on ${run.branch}, collapsed: show them`}
        onClick={(e) => {
          e.stopPropagation();
          onExpand(run.first);
        }}
      >
        <span className="m">+{run.ids.length} checkpoints</span>
      </button>
      <Handle type="source" position={Position.Right} isConnectable={false} />
    </div>
  );
});

const nodeTypes = { cp: CpNodeView, lane: LaneView, run: RunView };

/**
 * Lays out the lineage: time runs left to right (dagre ranks the
 * checkpoints so every edge points forward), each branch has its own lane
 * and colour; HEAD, branch tips and merges are marked.
 */
export function layout(
  tree: LineageTree,
  branches: string[],
  selected: ID[],
  disposition: (b: string) => string,
  expanded: ReadonlySet<ID> = new Set(),
  onExpand: (first: ID) => void = () => {},
) {
  // Collapsed runs: each hidden checkpoint is drawn as its run's node.
  const runs = linearRuns(tree, new Set(selected)).filter((r) => !expanded.has(r.first));
  const shownAs = new Map<ID, string>();
  for (const r of runs) for (const id of r.ids) shownAs.set(id, `run:${r.first}`);
  const vis = (id: ID) => shownAs.get(id) ?? id;
  const g = new dagre.graphlib.Graph();
  g.setGraph({ rankdir: "LR", ranksep: 36, nodesep: 10, marginx: 0, marginy: 0 });
  g.setDefaultEdgeLabel(() => ({}));
  for (const c of tree.checkpoints) if (!shownAs.has(c.id)) g.setNode(c.id, { width: NODE_W, height: NODE_H });
  for (const r of runs) g.setNode(`run:${r.first}`, { width: NODE_W, height: NODE_H });
  const has = new Set(tree.checkpoints.map((c) => c.id));
  const link = (from: ID, to: ID) => {
    const a = vis(from);
    const b = vis(to);
    if (a !== b) g.setEdge(a, b);
  };
  for (const c of tree.checkpoints) {
    if (c.parent_checkpoint_id && has.has(c.parent_checkpoint_id)) link(c.parent_checkpoint_id, c.id);
    if (c.merge_parent_id && has.has(c.merge_parent_id)) link(c.merge_parent_id, c.id);
  }
  dagre.layout(g);
  const lane = new Map(branches.map((b, i) => [b, i]));
  const newest = new Map<string, CheckpointNode>();
  for (const c of tree.checkpoints) {
    const n = newest.get(c.branch_name);
    if (!n || c.created_at >= n.created_at) newest.set(c.branch_name, c);
  }
  const headId = newest.get("main")?.id;
  // The nodes are controlled and the graph applies no changes, so React Flow
  // never writes the sizes it measures back into them; its MiniMap reads the
  // size from the node it was given and skips every node without one. The
  // checkpoints and runs carry the box dagre laid them out in (the view still
  // sizes them by their content). Lane labels carry none: their width follows
  // their text, and the minimap shows the lanes by their nodes' colours.
  const laidOut = { initialWidth: NODE_W, initialHeight: NODE_H };
  const nodes: Node[] = branches.map((b, i) => ({
    id: `lane:${b}`,
    type: "lane",
    position: { x: LANE_X, y: i * LANE_H + 10 },
    data: { name: b, color: laneColor(i), disposition: disposition(b) },
    draggable: false,
    selectable: false,
    focusable: false,
  }));
  for (const r of runs) {
    const id = `run:${r.first}`;
    const p = g.node(id);
    const li = lane.get(r.branch) ?? 0;
    nodes.push({
      id,
      type: "run",
      position: { x: p.x - NODE_W / 2, y: li * LANE_H },
      ...laidOut,
      data: { run: r, color: laneColor(li), onExpand },
      selectable: false,
      focusable: false,
    });
  }
  for (const c of tree.checkpoints) {
    if (shownAs.has(c.id)) continue;
    const p = g.node(c.id);
    const li = lane.get(c.branch_name) ?? 0;
    nodes.push({
      id: c.id,
      type: "cp",
      position: { x: p.x - NODE_W / 2, y: li * LANE_H },
      ...laidOut,
      data: { cp: c, color: laneColor(li), selected: selected.includes(c.id), head: c.id === headId, tip: newest.get(c.branch_name)?.id === c.id, merge: !!c.merge_parent_id },
      ariaLabel: `Checkpoint ${short(c.commit_hash)} on ${c.branch_name}: ${c.message}`,
    });
  }
  const edges: Edge[] = [];
  const branchOf = new Map(tree.checkpoints.map((c) => [c.id, c.branch_name]));
  const laneOf = (id: ID) => lane.get(branchOf.get(id) ?? "main") ?? 0;
  for (const c of tree.checkpoints) {
    if (c.parent_checkpoint_id && has.has(c.parent_checkpoint_id)) {
      const source = vis(c.parent_checkpoint_id);
      const target = vis(c.id);
      if (source === target) continue;
      const from = laneOf(c.parent_checkpoint_id);
      const to = lane.get(c.branch_name) ?? 0;
      // A fork leaves its fork point from the side facing the branch's lane,
      // so the line starts at that checkpoint, not behind the next one.
      const fork = from !== to ? { sourceHandle: to > from ? "down" : "up" } : {};
      edges.push({ id: `p-${c.id}`, source, target, type: "smoothstep", ...fork, style: { stroke: laneColor(to), strokeWidth: 2 } });
    }
  }
  for (const m of tree.merges) {
    if (!has.has(m.source_checkpoint_id) || !has.has(m.checkpoint_id)) continue;
    edges.push({
      id: `m-${m.checkpoint_id}`,
      source: vis(m.source_checkpoint_id),
      target: vis(m.checkpoint_id),
      type: "smoothstep",
      // A merge enters the merge checkpoint from the side facing the source's lane.
      targetHandle: laneOf(m.source_checkpoint_id) > laneOf(m.checkpoint_id) ? "from-below" : "from-above",
      style: { strokeDasharray: "6 4", stroke: laneColor(laneOf(m.source_checkpoint_id)), strokeWidth: 2 },
      markerEnd: { type: MarkerType.ArrowClosed, color: laneColor(laneOf(m.source_checkpoint_id)) },
    });
  }
  let right = 0;
  for (const n of nodes) if (n.type !== "lane") right = Math.max(right, n.position.x + NODE_W);
  const bounds: Rect = { x: LANE_X, y: 0, width: right - LANE_X, height: Math.max(branches.length - 1, 0) * LANE_H + NODE_H };
  return { nodes, edges, shownAs, bounds, headId };
}

/** Flow units per minimap px, for the minimap's nodes to keep a visible size. */
const MinimapScale = createContext(0);

function MinimapNode({ x, y, width, height, color, borderRadius, shapeRendering }: MiniMapNodeProps) {
  const unitsPerPx = useContext(MinimapScale);
  const r = atLeast({ x, y, width, height }, MINIMAP_NODE_MIN_PX * unitsPerPx);
  // The fill goes in the style: React Flow's stylesheet sets one on the class, which beats an attribute.
  return <rect className="react-flow__minimap-node" x={r.x} y={r.y} width={r.width} height={r.height} rx={borderRadius} ry={borderRadius} style={{ fill: color }} shapeRendering={shapeRendering} />;
}

const viewRect = (s: { transform: [number, number, number]; width: number; height: number }) =>
  `${-s.transform[0] / s.transform[2]},${-s.transform[1] / s.transform[2]},${s.width / s.transform[2]},${s.height / s.transform[2]}`;
const minimapColor = (n: Node) => (n.data as { color?: string }).color ?? "#888";

/** The overview: shaped to the graph, every checkpoint drawn in its lane's colour at a visible size. */
function Overview({ bounds }: { bounds: Rect }) {
  const size = useMemo(() => minimapSize(bounds), [bounds]);
  const view = useStore(viewRect);
  const [vx, vy, vw, vh] = view.split(",").map(Number);
  const unitsPerPx = minimapUnitsPerPx(bounds, { x: vx, y: vy, width: vw, height: vh }, size);
  return (
    <MinimapScale.Provider value={unitsPerPx}>
      <MiniMap
        pannable
        zoomable
        style={size}
        nodeColor={minimapColor}
        nodeComponent={MinimapNode}
        nodeBorderRadius={0}
        offsetScale={MINIMAP_OFFSET}
        ariaLabel="Overview of the whole graph"
      />
    </MinimapScale.Provider>
  );
}

/** The zoom from which node text (12 px) is drawn at 11 px or more. */
export const READABLE_ZOOM = 11 / 12;
/** Screen-space labels: their size, and the least distance between two. */
const LABEL_PX = 12;
const LABEL_GAP = 18;

function Fit({ signature, focus }: { signature: string; focus: ID[] }) {
  const rf = useReactFlow();
  const target = useRef(focus);
  target.current = focus;
  // Refit whenever the set of checkpoints changes (a new checkpoint, a merge,
  // a run opened): on HEAD and what was written last (or the run), at a
  // zoom that keeps the text readable. Selecting a checkpoint does not move
  // the view.
  useEffect(() => {
    const t = setTimeout(() => rf.fitView({ nodes: target.current.map((id) => ({ id })), minZoom: 1, maxZoom: 1, padding: 0.15, duration: 0 }), 30);
    return () => clearTimeout(t);
  }, [signature, rf]);
  return null;
}

/** A label in screen space: where it goes and what it says. */
interface ScreenLabel {
  key: string;
  x: number;
  y: number;
  text: string;
  color: string;
  head: boolean;
}

/**
 * Keeps the labels that do not crowd one placed before them (closer than
 * LABEL_GAP px vertically while overlapping horizontally), in order: the
 * level of detail of a zoomed-out graph.
 */
export function thinLabels(labels: ScreenLabel[], width: number): ScreenLabel[] {
  const kept: ScreenLabel[] = [];
  const widthOf = (l: ScreenLabel) => Math.min(width, l.text.length * 7.5 + 24);
  for (const l of labels) {
    if (kept.some((k) => Math.abs(k.y - l.y) < LABEL_GAP && l.x < k.x + widthOf(k) && k.x < l.x + widthOf(l))) continue;
    kept.push(l);
  }
  return kept;
}

/**
 * Zoomed out below READABLE_ZOOM, the graph hides the text it would draw
 * too small and labels the lanes (pinned to the left edge) and the branch
 * heads in screen space, at LABEL_PX, as many as fit without overlapping.
 */
function Overlay({ nodes, branches, headId }: { nodes: Node[]; branches: string[]; headId?: ID }) {
  const [tx, ty, zoom] = useStore((st) => st.transform);
  const width = useStore((st) => st.width);
  const height = useStore((st) => st.height);
  if (zoom >= READABLE_ZOOM) return null;
  const labels: ScreenLabel[] = [];
  const inView = (y: number) => y > -LABEL_PX && y < height;
  nodes.forEach((n) => {
    if (n.type !== "cp") return;
    const d = n.data as CpData;
    if (!d.tip && !d.head) return;
    const x = n.position.x * zoom + tx + NODE_W * zoom + 4;
    const y = (n.position.y + NODE_H / 2) * zoom + ty - LABEL_PX / 2 - 2;
    if (x > 0 && x < width && inView(y)) labels.push({ key: `h-${n.id}`, x, y, text: d.head ? `HEAD · ${d.cp.branch_name}` : d.cp.branch_name, color: d.color, head: true });
  });
  branches.forEach((b, i) => {
    const y = (i * LANE_H + NODE_H / 2) * zoom + ty - LABEL_PX / 2 - 2;
    if (inView(y)) labels.push({ key: `l-${b}`, x: 8, y, text: b, color: laneColor(i), head: false });
  });
  // HEAD first, then the other heads, then the lanes.
  labels.sort((a, b) => Number(b.key === `h-${headId}`) - Number(a.key === `h-${headId}`) || Number(b.head) - Number(a.head));
  return (
    <ul className="graph-overlay" aria-label="Lanes and branch heads in view" data-testid="graph-overlay">
      {thinLabels(labels, width).map((l) => (
        <li key={l.key} className={l.head ? "graph-label head" : "graph-label"} style={{ left: l.x, top: l.y, ["--lane" as string]: l.color }}>
          {l.text}
        </li>
      ))}
    </ul>
  );
}

/** A node drawn without its text: out of the accessibility tree and the tab order. */
const hidden = (n: Node): Node => ({ ...n, ariaLabel: undefined, focusable: false, domAttributes: { "aria-hidden": true } });
const hiddenEdge = (e: Edge): Edge => ({ ...e, focusable: false, domAttributes: { "aria-hidden": true } });

/** Marks the graph zoomed out (hide the text drawn too small) for the stylesheet. */
function DetailLevel({ onChange }: { onChange: (far: boolean) => void }) {
  const far = useStore((st) => st.transform[2] < READABLE_ZOOM);
  useEffect(() => onChange(far), [far, onChange]);
  return null;
}

/** The menu of a branch head: compare with main, merge into main, close. */
function HeadMenu({ at, spaceId, mainHead, branchHeadId, onClose }: { at: { branch: string; x: number; y: number }; spaceId: string; mainHead?: ID; branchHeadId?: ID; onClose: () => void }) {
  const nav = useNavigate();
  const first = useRef<HTMLButtonElement>(null);
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    first.current?.focus();
    const away = (e: PointerEvent) => !box.current?.contains(e.target as globalThis.Node) && onClose();
    document.addEventListener("pointerdown", away);
    return () => document.removeEventListener("pointerdown", away);
  }, [onClose]);
  const go = (to: string) => {
    onClose();
    nav(to);
  };
  return (
    <div
      ref={box}
      className="graph-menu"
      role="menu"
      aria-label={`Branch ${at.branch}`}
      style={{ position: "fixed", left: at.x, top: at.y }}
      onKeyDown={(e) => {
        if (e.key === "Escape") onClose();
        if (e.key === "ArrowDown" || e.key === "ArrowUp") {
          e.preventDefault();
          const items = [...e.currentTarget.querySelectorAll<HTMLButtonElement>("[role=menuitem]")];
          const i = items.indexOf(document.activeElement as HTMLButtonElement);
          items[(i + (e.key === "ArrowDown" ? 1 : items.length - 1)) % items.length]?.focus();
        }
      }}
    >
      <button ref={first} type="button" role="menuitem" disabled={!mainHead || !branchHeadId} onClick={() => go(`/spaces/${spaceId}/compare/${mainHead}...${branchHeadId}`)}>
        Compare with main
      </button>
      <button type="button" role="menuitem" onClick={() => go(`/spaces/${spaceId}/merge?source=${encodeURIComponent(at.branch)}&into=main`)}>
        Merge into main
      </button>
      <button type="button" role="menuitem" onClick={onClose}>
        Close
      </button>
    </div>
  );
}

export default function BranchGraph({
  tree,
  branches,
  selected,
  onToggle,
  disposition,
}: {
  tree: LineageTree;
  branches: string[];
  selected: ID[];
  onToggle: (id: ID) => void;
  disposition: (b: string) => string;
}) {
  // Runs the reader opened; the last one opened is where the view goes.
  const [expanded, setExpanded] = useState<{ all: ReadonlySet<ID>; last: ID | null }>({ all: new Set(), last: null });
  const expand = useCallback((first: ID) => setExpanded((e) => ({ all: new Set([...e.all, first]), last: first })), []);
  const { nodes, edges, shownAs, bounds, headId } = useMemo(
    () => layout(tree, branches, selected, disposition, expanded.all, expand),
    [tree, branches, selected, disposition, expanded.all, expand],
  );
  const [far, setFar] = useState(false);
  // Zoomed out, a node's text is not drawn, so it is not read out either:
  // the nodes and edges leave the accessibility tree and the tab order (the
  // lists below the graph offer them by keyboard), and the overlay names
  // the lanes and heads it draws.
  const shown = useMemo(() => (far ? nodes.map(hidden) : nodes), [far, nodes]);
  const shownEdges = useMemo(() => (far ? edges.map(hiddenEdge) : edges), [far, edges]);
  const [menu, setMenu] = useState<{ branch: string; x: number; y: number } | null>(null);
  const closeMenu = useCallback(() => setMenu(null), []);
  const openMenu = useCallback((branch: string, x: number, y: number) => setMenu({ branch, x, y }), []);
  const tipOf = useCallback((b: string) => {
    let best: CheckpointNode | undefined;
    for (const c of tree.checkpoints) if (c.branch_name === b && (!best || c.created_at >= best.created_at)) best = c;
    return best?.id;
  }, [tree]);
  const signature = tree.checkpoints.map((c) => c.id).join(",") + "|" + tree.merges.length + "|" + expanded.last;
  const focus = useMemo(() => {
    if (expanded.last) {
      const run = linearRuns(tree).find((r) => r.first === expanded.last);
      if (run) return run.ids.filter((id) => !shownAs.has(id)).slice(0, 8);
    }
    // HEAD, centred at a readable zoom (the newest checkpoint when main has none).
    if (headId) return [headId];
    const newest = tree.checkpoints.reduce<CheckpointNode | null>((n, c) => (!n || c.created_at > n.created_at ? c : n), null);
    return newest ? [shownAs.get(newest.id) ?? newest.id] : [];
  }, [tree, shownAs, expanded.last, headId]);
  return (
    <ReactFlowProvider>
      <BranchMenu.Provider value={openMenu}>
      <ReactFlow
        className={far ? "far" : undefined}
        nodes={shown}
        edges={shownEdges}
        nodeTypes={nodeTypes}
        onNodeClick={(_, n) => n.type === "cp" && onToggle(n.id)}
        onNodeContextMenu={(e, n) => {
          const d = n.data as CpData;
          if (n.type !== "cp" || !d.tip || d.cp.branch_name === "main") return;
          e.preventDefault();
          openMenu(d.cp.branch_name, e.clientX, e.clientY);
        }}
        nodesDraggable={false}
        nodesConnectable={false}
        minZoom={0.05}
        proOptions={{ hideAttribution: true }}
      >
        <Fit signature={signature} focus={focus} />
        <DetailLevel onChange={setFar} />
        <Overlay nodes={nodes} branches={branches} headId={headId} />
        {expanded.all.size > 0 && (
          <Panel position="top-right">
            <button type="button" className="small" onClick={() => setExpanded({ all: new Set(), last: null })}>
              Collapse linear runs
            </button>
          </Panel>
        )}
        <Background />
        <Controls showInteractive={false} />
        <Overview bounds={bounds} />
      </ReactFlow>
      </BranchMenu.Provider>
      {menu && <HeadMenu at={menu} spaceId={tree.space_id} mainHead={tipOf("main")} branchHeadId={tipOf(menu.branch)} onClose={closeMenu} />}
    </ReactFlowProvider>
  );
}
