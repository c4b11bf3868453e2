import { useMemo, useState } from "react";
import { Link, useParams, useSearchParams } from "react-router-dom";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { ReactFlow, Background, Controls, MarkerType, type Edge, type Node } from "@xyflow/react";
import "@xyflow/react/dist/style.css";
import { api, relTime, short, type CompareResponse, type ID, type MergePreview, type MergeResolution } from "../api";
import { CompareView } from "../components/CompareView";
import { MergeView } from "../components/MergeView";
import { Modal } from "../components/Modal";
import { useSpaceEvents } from "../events";

const DISPOSITIONS = ["active", "integrated", "abandoned"];

export default function Lineage() {
  const { spaceId = "" } = useParams();
  const [params] = useSearchParams();
  const here = params.get("session");
  const qc = useQueryClient();
  const space = useQuery({ queryKey: ["space", spaceId], queryFn: () => api.space(spaceId) });
  const tree = useQuery({ queryKey: ["tree", spaceId], queryFn: () => api.tree(spaceId) });
  useSpaceEvents(spaceId);
  const [selected, setSelected] = useState<ID[]>([]);
  const [compare, setCompare] = useState<CompareResponse | null>(null);
  const [merge, setMerge] = useState<{ source: ID; target: ID; preview: MergePreview } | null>(null);
  const [merged, setMerged] = useState<{ id: ID; hash: string } | null>(null);
  const [error, setError] = useState("");

  const t = tree.data;
  const branches = useMemo(() => {
    if (!t) return [];
    const names = new Set<string>(["main"]);
    t.checkpoints.forEach((c) => names.add(c.branch_name));
    t.sessions.forEach((s) => names.add(s.branch_name));
    return ["main", ...[...names].filter((n) => n !== "main").sort()];
  }, [t]);
  const disposition = (b: string) => t?.sessions.find((s) => s.branch_name === b)?.branch_disposition ?? "active";
  const byId = useMemo(() => new Map((t?.checkpoints ?? []).map((c) => [c.id, c])), [t]);
  const label = (id: ID) => {
    const c = byId.get(id);
    return c ? `${short(c.commit_hash)} (${c.branch_name})` : id.slice(0, 8);
  };

  const { nodes, edges } = useMemo(() => {
    const nodes: Node[] = [];
    const edges: Edge[] = [];
    if (!t) return { nodes, edges };
    t.checkpoints.forEach((c, i) => {
      const col = branches.indexOf(c.branch_name);
      const sel = selected.includes(c.id);
      nodes.push({
        id: c.id,
        position: { x: col * 230, y: i * 80 },
        data: { label: `${short(c.commit_hash)} · ${c.message.slice(0, 40)}` },
        style: { width: 200, fontSize: 12, border: sel ? "3px solid var(--accent)" : undefined, background: "var(--bg)", color: "var(--fg)" },
        ariaLabel: `Checkpoint ${short(c.commit_hash)} on ${c.branch_name}: ${c.message}`,
      });
      if (c.parent_checkpoint_id) edges.push({ id: `p-${c.id}`, source: c.parent_checkpoint_id, target: c.id, markerEnd: { type: MarkerType.ArrowClosed } });
    });
    for (const m of t.merges) {
      edges.push({
        id: `m-${m.checkpoint_id}`,
        source: m.source_checkpoint_id,
        target: m.checkpoint_id,
        animated: true,
        style: { strokeDasharray: "6 4", stroke: "var(--accent)" },
        label: "merge",
        markerEnd: { type: MarkerType.ArrowClosed },
      });
    }
    return { nodes, edges };
  }, [t, branches, selected]);

  const toggle = (id: ID) => setSelected((s) => (s.includes(id) ? s.filter((x) => x !== id) : [...s, id].slice(-2)));

  async function startMerge(source: ID, target: ID) {
    setError("");
    try {
      const preview = await api.mergePreview({ space_id: spaceId, source_checkpoint_id: source, target_checkpoint_id: target, resolutions: [], dry_run: true });
      setMerge({ source, target, preview });
    } catch (e) {
      setError((e as Error).message);
    }
  }

  async function setDisposition(branch: string, value: string) {
    setError("");
    try {
      await api.disposition(spaceId, branch, value);
      qc.invalidateQueries({ queryKey: ["tree", spaceId] });
    } catch (e) {
      setError((e as Error).message);
    }
  }

  if (tree.isError) return <p className="error">Could not load the lineage: {(tree.error as Error).message}</p>;
  if (!t) return <p>Loading…</p>;
  return (
    <>
      <h1>Lineage of {space.data?.name ?? "space"}</h1>
      <p className="muted">
        <Link to={`/spaces/${spaceId}/coordination`}>Coordination</Link> · {t.checkpoints.length} checkpoints · {branches.length} branches · {t.merges.length} merges
      </p>
      {error && (
        <p className="error" role="alert">
          {error}
        </p>
      )}
      <div className="graph" role="region" aria-label="Branch graph: click a checkpoint to select it (the lists below offer the same by keyboard)">
        <ReactFlow nodes={nodes} edges={edges} fitView onNodeClick={(_, n) => toggle(n.id)} nodesDraggable={false} nodesConnectable={false} proOptions={{ hideAttribution: true }}>
          <Background />
          <Controls showInteractive={false} />
        </ReactFlow>
      </div>
      <div className="row" style={{ margin: "0.6rem 0" }} aria-live="polite">
        <span>{selected.length === 0 ? "Select two checkpoints to compare or merge." : `Selected: ${selected.map(label).join(" and ")}`}</span>
        <button disabled={selected.length !== 2} onClick={async () => setCompare(await api.compare(selected[0], selected[1]))}>
          Compare
        </button>
        <button disabled={selected.length !== 2} onClick={() => startMerge(selected[0], selected[1])}>
          Merge {selected[0] ? short(byId.get(selected[0])?.commit_hash) : "first"} into {selected[1] ? short(byId.get(selected[1])?.commit_hash) : "second"}
        </button>
      </div>
      {merged && (
        <p role="status">
          Merged as <Link to={`/checkpoints/${merged.id}`}>{short(merged.hash)}</Link>.
        </p>
      )}
      {branches.map((b) => {
        const cps = t.checkpoints.filter((c) => c.branch_name === b);
        const sessions = t.sessions.filter((s) => s.branch_name === b);
        return (
          <section key={b} className="card" aria-labelledby={`branch-${b}`}>
            <div className="row spread">
              <h2 id={`branch-${b}`} style={{ margin: 0 }}>
                Branch {b} {disposition(b) !== "active" && <span className="badge warn">{disposition(b)}</span>}
              </h2>
              {sessions.length > 0 && (
                <label className="row small" style={{ margin: 0 }}>
                  Disposition
                  <select value={disposition(b)} onChange={(e) => setDisposition(b, e.target.value)} aria-label={`Disposition of ${b}`}>
                    {DISPOSITIONS.map((d) => (
                      <option key={d}>{d}</option>
                    ))}
                  </select>
                </label>
              )}
            </div>
            <ul className="plain">
              {cps.map((c) => (
                <li key={c.id} className="row" style={{ padding: "0.2rem 0" }} data-testid="lineage-checkpoint">
                  <input type="checkbox" id={`sel-${c.id}`} checked={selected.includes(c.id)} onChange={() => toggle(c.id)} />
                  <label htmlFor={`sel-${c.id}`} style={{ margin: 0, fontWeight: 400 }}>
                    <span className="mono">{short(c.commit_hash)}</span> {c.message}
                  </label>
                  {c.merge_parent_id && <span className="badge">merge of {label(c.merge_parent_id)}</span>}
                  <span className="muted small">{relTime(c.created_at)}</span>
                  <Link to={`/checkpoints/${c.id}`} aria-label={`Details of ${short(c.commit_hash)}`}>
                    Details
                  </Link>
                </li>
              ))}
              {cps.length === 0 && <li className="muted small">No checkpoints on this branch yet.</li>}
            </ul>
            {sessions.length > 0 && (
              <div className="small">
                Sessions:{" "}
                {sessions.map((s) => (
                  <Link key={s.id} to={`/sessions/${s.id}`} style={{ marginRight: "0.6rem" }}>
                    {s.title || "Untitled"}
                    {s.id === here ? " ← you are here" : ""}
                  </Link>
                ))}
              </div>
            )}
          </section>
        );
      })}
      {compare && (
        <Modal title="Compare checkpoints" onClose={() => setCompare(null)}>
          <CompareView cmp={compare} />
        </Modal>
      )}
      {merge && (
        <Modal title="Merge" onClose={() => setMerge(null)}>
          <MergeView
            preview={merge.preview}
            sourceLabel={label(merge.source)}
            targetLabel={label(merge.target)}
            onPreview={async (r: MergeResolution[]) => {
              const preview = await api.mergePreview({ space_id: spaceId, source_checkpoint_id: merge.source, target_checkpoint_id: merge.target, resolutions: r, dry_run: true });
              setMerge({ ...merge, preview });
            }}
            onMerge={async (r: MergeResolution[]) => {
              const res = await api.merge({ space_id: spaceId, source_checkpoint_id: merge.source, target_checkpoint_id: merge.target, resolutions: r, dry_run: false });
              setMerge(null);
              setSelected([]);
              setMerged({ id: res.checkpoint.id, hash: res.checkpoint.commit_hash });
              qc.invalidateQueries({ queryKey: ["tree", spaceId] });
            }}
          />
        </Modal>
      )}
    </>
  );
}
