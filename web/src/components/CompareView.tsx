import { Link } from "react-router-dom";
import { short, type CompareResponse } from "../api";

function Cols({ title, a, shared, b }: { title: string; a: string[]; shared: string[]; b: string[] }) {
  if (!a.length && !shared.length && !b.length) return null;
  return (
    <>
      <h3>{title}</h3>
      <div className="grid3">
        {[
          ["Only in A", a],
          ["Shared", shared],
          ["Only in B", b],
        ].map(([label, items]) => (
          <div key={label as string}>
            <div className="small muted">{label as string}</div>
            <ul>{(items as string[]).map((x) => <li key={x}>{x}</li>)}</ul>
          </div>
        ))}
      </div>
    </>
  );
}

export function CompareView({ cmp }: { cmp: CompareResponse }) {
  const d = cmp.diff;
  return (
    <div data-testid="compare">
      <div className="grid2">
        {[cmp.checkpoint_a, cmp.checkpoint_b].map((c, i) => (
          <div key={c.id} className="card">
            <strong>{i === 0 ? "A" : "B"}</strong> <span className="mono">{short(c.commit_hash)}</span> <span className="badge">{c.branch_name}</span>
            <div>{c.message}</div>
            <div className="small">
              <strong>Objective:</strong> {i === 0 ? d.objective_a : d.objective_b}
            </div>
          </div>
        ))}
      </div>
      <p className="small">
        Common ancestor:{" "}
        {d.common_ancestor_commit_id ? <Link to={`/checkpoints/${d.common_ancestor_commit_id}`}>{d.common_ancestor_commit_id.slice(0, 8)}</Link> : "none"}
      </p>
      <Cols title="Decisions" a={d.decisions_only_a} shared={d.decisions_shared} b={d.decisions_only_b} />
      <Cols title="Assumptions" a={d.assumptions_only_a} shared={d.assumptions_shared} b={d.assumptions_only_b} />
      <Cols title="Tasks" a={d.tasks_only_a} shared={d.tasks_shared} b={d.tasks_only_b} />
      <Cols title="Open questions" a={d.open_questions_only_a ?? []} shared={d.open_questions_shared ?? []} b={d.open_questions_only_b ?? []} />
    </div>
  );
}
