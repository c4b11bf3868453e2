import { lazy, Suspense, useCallback, useMemo, useState } from "react";
import { Link, useNavigate, useParams, useSearchParams } from "react-router-dom";
import { useQueryClient } from "@tanstack/react-query";
import { api, relTime, short, type ID } from "../api";
import { branchHead } from "./Merge";
import { useSpaceEvents } from "../events";
import { usePageTitle } from "../lib/title";
import { queryKeys } from "../lib/queryKeys";
import { useSpace, useTree } from "../lib/queries";

// The graph (React Flow and dagre) is its own chunk.
const BranchGraph = lazy(() => import("../components/BranchGraph"));
const PAGE = 5;

const DISPOSITIONS = ["active", "integrated", "abandoned"];

export default function Lineage() {
  const { spaceId = "" } = useParams();
  const [params] = useSearchParams();
  const here = params.get("session");
  const qc = useQueryClient();
  const space = useSpace(spaceId);
  const tree = useTree(spaceId);
  useSpaceEvents(spaceId);
  const [selected, setSelected] = useState<ID[]>([]);
  const nav = useNavigate();
  const [shown, setShown] = useState<Record<string, number>>({});
  usePageTitle(space.data ? `Lineage of ${space.data.name}` : "Lineage");
  const [error, setError] = useState("");

  const t = tree.data;
  const branches = useMemo(() => {
    if (!t) return [];
    const names = new Set<string>(["main"]);
    t.checkpoints.forEach((c) => names.add(c.branch_name));
    t.sessions.forEach((s) => names.add(s.branch_name));
    // main first, then the branch with the newest activity first.
    const last = new Map<string, string>();
    for (const c of t.checkpoints) if ((last.get(c.branch_name) ?? "") < c.created_at) last.set(c.branch_name, c.created_at);
    for (const s of t.sessions) if ((last.get(s.branch_name) ?? "") < s.created_at) last.set(s.branch_name, s.created_at);
    return ["main", ...[...names].filter((n) => n !== "main").sort((a, b) => (last.get(b) ?? "").localeCompare(last.get(a) ?? "") || a.localeCompare(b))];
  }, [t]);
  const disposition = useCallback((b: string) => t?.sessions.find((s) => s.branch_name === b)?.branch_disposition ?? "active", [t]);
  const byId = useMemo(() => new Map((t?.checkpoints ?? []).map((c) => [c.id, c])), [t]);
  const label = (id: ID) => {
    const c = byId.get(id);
    return c ? `${short(c.commit_hash)} (${c.branch_name})` : id.slice(0, 8);
  };

  const toggle = (id: ID) => setSelected((s) => (s.includes(id) ? s.filter((x) => x !== id) : [...s, id].slice(-2)));

  async function setDisposition(branch: string, value: string) {
    setError("");
    try {
      await api.disposition(spaceId, branch, value);
      qc.invalidateQueries({ queryKey: queryKeys.tree(spaceId) });
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
        <Link to={`/spaces/${spaceId}/coordination`}>Coordination</Link> · <Link to={`/spaces/${spaceId}/proposals`}>Proposals</Link> · <Link to={`/spaces/${spaceId}/remotes`}>Remotes</Link> · {t.checkpoints.length} checkpoints · {branches.length} branches · {t.merges.length} merges
      </p>
      {error && (
        <p className="error" role="alert">
          {error}
        </p>
      )}
      <div className="graph" role="region" aria-label="Branch graph: click a checkpoint to select it (the lists below offer the same by keyboard)">
        <Suspense fallback={<p className="muted">Loading the graph…</p>}>
          <BranchGraph tree={t} branches={branches} selected={selected} onToggle={toggle} disposition={disposition} />
        </Suspense>
      </div>
      <div className="row" style={{ margin: "0.6rem 0" }} aria-live="polite">
        <span>{selected.length === 0 ? "Select two checkpoints to compare. To merge, open a branch's menu in the graph or use its Merge link below." : `Selected: ${selected.map(label).join(" and ")}`}</span>
        <button disabled={selected.length !== 2} onClick={() => nav(`/spaces/${spaceId}/compare/${selected[0]}...${selected[1]}`)}>
          Compare
        </button>
      </div>
      {branches.map((b) => {
        const all = t.checkpoints.filter((c) => c.branch_name === b).sort((x, y) => y.created_at.localeCompare(x.created_at));
        const limit = shown[b] ?? PAGE;
        const cps = all.slice(0, limit);
        const sessions = t.sessions.filter((s) => s.branch_name === b);
        return (
          <section key={b} className="card" aria-labelledby={`branch-${b}`}>
            <div className="row spread">
              <h2 id={`branch-${b}`} style={{ margin: 0 }}>
                Branch {b} {disposition(b) !== "active" && <span className="badge warn">{disposition(b)}</span>}
              </h2>
              {b !== "main" && branchHead(t, b) && branchHead(t, "main") && (
                <span className="row small" style={{ margin: 0 }}>
                  <Link to={`/spaces/${spaceId}/compare/${branchHead(t, "main")?.id ?? ""}...${branchHead(t, b)!.id}`}>
                    Compare {b} with main
                  </Link>
                  <Link to={`/spaces/${spaceId}/merge?source=${encodeURIComponent(b)}&into=main`}>
                    Merge {b} into main
                  </Link>
                </span>
              )}
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
            {all.length > limit && (
              <button type="button" className="small" onClick={() => setShown((m) => ({ ...m, [b]: limit + 20 }))}>
                Show {Math.min(20, all.length - limit)} older of {all.length - limit}
              </button>
            )}
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
    </>
  );
}
