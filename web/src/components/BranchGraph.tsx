import { memo, useEffect, useMemo } from "react";
import { ReactFlow, ReactFlowProvider, Background, Controls, MiniMap, MarkerType, useReactFlow, Handle, Position, type Edge, type Node, type NodeProps } from "@xyflow/react";
import "@xyflow/react/dist/style.css";
import dagre from "@dagrejs/dagre";
import { short, type CheckpointNode, type ID, type LineageTree } from "../api";

// Branch colours: distinct hues that hold contrast on light and dark.
const PALETTE = ["#3b6fe0", "#d2572b", "#1f9d6b", "#a04fd0", "#c7961a", "#d23f7b", "#2a9bb5", "#7a8a23", "#8a5a3c", "#5a63d8"];
export const laneColor = (i: number) => PALETTE[i % PALETTE.length];

const NODE_W = 200;
const NODE_H = 46;
const LANE_H = 78;

type CpData = { cp: CheckpointNode; color: string; selected: boolean; head: boolean; tip: boolean; merge: boolean };
type LaneData = { name: string; color: string; disposition: string };

const CpNodeView = memo(function CpNodeView({ data }: NodeProps<Node<CpData>>) {
  const { cp, color, selected, head, tip, merge } = data;
  return (
    <div className={selected ? "cp-node selected" : "cp-node"} style={{ ["--lane" as string]: color }} title={`${cp.message}\n${cp.branch_name} · ${cp.created_at}`}>
      <Handle type="target" position={Position.Left} isConnectable={false} />
      <span className="h">{short(cp.commit_hash)}</span> {head && <span className="badge accent">HEAD</span>} {merge && <span className="badge">merge</span>}{" "}
      {tip && !head && <span className="badge" style={{ borderColor: color }}>{cp.branch_name}</span>}
      {cp.note_count > 0 && <span className="badge warn">{cp.note_count} note{cp.note_count > 1 ? "s" : ""}</span>}
      <span className="m">{cp.message}</span>
      <Handle type="source" position={Position.Right} isConnectable={false} />
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

const nodeTypes = { cp: CpNodeView, lane: LaneView };

/**
 * Lays out the lineage: time runs left to right (dagre ranks the
 * checkpoints so every edge points forward), each branch has its own lane
 * and colour; HEAD, branch tips and merges are marked.
 */
export function layout(tree: LineageTree, branches: string[], selected: ID[], disposition: (b: string) => string) {
  const g = new dagre.graphlib.Graph();
  g.setGraph({ rankdir: "LR", ranksep: 36, nodesep: 10, marginx: 0, marginy: 0 });
  g.setDefaultEdgeLabel(() => ({}));
  for (const c of tree.checkpoints) g.setNode(c.id, { width: NODE_W, height: NODE_H });
  const has = new Set(tree.checkpoints.map((c) => c.id));
  for (const c of tree.checkpoints) {
    if (c.parent_checkpoint_id && has.has(c.parent_checkpoint_id)) g.setEdge(c.parent_checkpoint_id, c.id);
    if (c.merge_parent_id && has.has(c.merge_parent_id)) g.setEdge(c.merge_parent_id, c.id);
  }
  dagre.layout(g);
  const lane = new Map(branches.map((b, i) => [b, i]));
  const newest = new Map<string, CheckpointNode>();
  for (const c of tree.checkpoints) {
    const n = newest.get(c.branch_name);
    if (!n || c.created_at >= n.created_at) newest.set(c.branch_name, c);
  }
  const headId = newest.get("main")?.id;
  const nodes: Node[] = branches.map((b, i) => ({
    id: `lane:${b}`,
    type: "lane",
    position: { x: -170, y: i * LANE_H + 10 },
    data: { name: b, color: laneColor(i), disposition: disposition(b) },
    draggable: false,
    selectable: false,
    focusable: false,
  }));
  for (const c of tree.checkpoints) {
    const p = g.node(c.id);
    const li = lane.get(c.branch_name) ?? 0;
    nodes.push({
      id: c.id,
      type: "cp",
      position: { x: p.x - NODE_W / 2, y: li * LANE_H },
      data: { cp: c, color: laneColor(li), selected: selected.includes(c.id), head: c.id === headId, tip: newest.get(c.branch_name)?.id === c.id, merge: !!c.merge_parent_id },
      ariaLabel: `Checkpoint ${short(c.commit_hash)} on ${c.branch_name}: ${c.message}`,
    });
  }
  const edges: Edge[] = [];
  const laneOf = (id: ID) => lane.get(tree.checkpoints.find((c) => c.id === id)?.branch_name ?? "main") ?? 0;
  for (const c of tree.checkpoints) {
    if (c.parent_checkpoint_id && has.has(c.parent_checkpoint_id)) {
      edges.push({ id: `p-${c.id}`, source: c.parent_checkpoint_id, target: c.id, type: "smoothstep", style: { stroke: laneColor(lane.get(c.branch_name) ?? 0), strokeWidth: 2 } });
    }
  }
  for (const m of tree.merges) {
    if (!has.has(m.source_checkpoint_id) || !has.has(m.checkpoint_id)) continue;
    edges.push({
      id: `m-${m.checkpoint_id}`,
      source: m.source_checkpoint_id,
      target: m.checkpoint_id,
      type: "smoothstep",
      style: { strokeDasharray: "6 4", stroke: laneColor(laneOf(m.source_checkpoint_id)), strokeWidth: 2 },
      markerEnd: { type: MarkerType.ArrowClosed, color: laneColor(laneOf(m.source_checkpoint_id)) },
    });
  }
  return { nodes, edges };
}

function Fit({ signature, focus }: { signature: string; focus: ID[] }) {
  const rf = useReactFlow();
  // Refit whenever the set of checkpoints changes (a new checkpoint, a merge):
  // on the newest ones, at a zoom that keeps the text readable.
  useEffect(() => {
    const t = setTimeout(() => rf.fitView({ nodes: focus.map((id) => ({ id })), minZoom: 0.95, maxZoom: 1.2, padding: 0.15, duration: 0 }), 30);
    return () => clearTimeout(t);
  }, [signature, rf, focus]);
  return null;
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
  const { nodes, edges } = useMemo(() => layout(tree, branches, selected, disposition), [tree, branches, selected, disposition]);
  const signature = tree.checkpoints.map((c) => c.id).join(",") + "|" + tree.merges.length;
  const focus = useMemo(() => {
    const byTime = tree.checkpoints.slice().sort((a, b) => b.created_at.localeCompare(a.created_at));
    return [...byTime.slice(0, 8).map((c) => c.id), ...branches.slice(0, 6).map((b) => `lane:${b}`)];
  }, [tree, branches]);
  return (
    <ReactFlowProvider>
      <ReactFlow
        nodes={nodes}
        edges={edges}
        nodeTypes={nodeTypes}
        onNodeClick={(_, n) => n.type === "cp" && onToggle(n.id)}
        nodesDraggable={false}
        nodesConnectable={false}
        minZoom={0.05}
        proOptions={{ hideAttribution: true }}
      >
        <Fit signature={signature} focus={focus} />
        <Background />
        <Controls showInteractive={false} />
        <MiniMap pannable zoomable nodeColor={(n) => (n.data as { color?: string }).color ?? "#888"} ariaLabel="Overview of the whole graph" />
      </ReactFlow>
    </ReactFlowProvider>
  );
}
