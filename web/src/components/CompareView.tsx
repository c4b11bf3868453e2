import * as Tabs from "@radix-ui/react-tabs";
import { Link } from "react-router-dom";
import { short, type CompareResponse } from "../api";

interface Field {
  title: string;
  a: string[];
  shared: string[];
  b: string[];
}

function fieldsOf(cmp: CompareResponse): Field[] {
  const d = cmp.diff;
  return [
    { title: "Decisions", a: d.decisions_only_a, shared: d.decisions_shared, b: d.decisions_only_b },
    { title: "Assumptions", a: d.assumptions_only_a, shared: d.assumptions_shared, b: d.assumptions_only_b },
    { title: "Tasks", a: d.tasks_only_a, shared: d.tasks_shared, b: d.tasks_only_b },
    { title: "Open questions", a: d.open_questions_only_a ?? [], shared: d.open_questions_shared ?? [], b: d.open_questions_only_b ?? [] },
  ].map((f) => ({ ...f, a: f.a ?? [], b: f.b ?? [], shared: f.shared ?? [] }));
}

function Line({ cls, sign, text, label }: { cls: string; sign: string; text: string; label: string }) {
  return (
    <div className={`diff-line ${cls}`}>
      <span className="sign" aria-hidden>
        {sign}
      </span>
      <span className="sr-only">{label}: </span>
      <span>{text}</span>
    </div>
  );
}

function TextField({ title, a, b }: { title: string; a: string; b: string }) {
  if (a === b)
    return (
      <div className="diff-field">
        <h3>{title}</h3>
        <Line cls="same" sign=" " text={a || "—"} label="same" />
      </div>
    );
  return (
    <div className="diff-field">
      <h3>{title}</h3>
      <Line cls="del" sign="−" text={a || "—"} label="only in A" />
      <Line cls="add" sign="+" text={b || "—"} label="only in B" />
    </div>
  );
}

/**
 * Two checkpoints compared field by field, coloured: red lines are only in
 * A, green only in B, grey shared. Unified (one column) or side by side.
 */
export function CompareView({ cmp }: { cmp: CompareResponse }) {
  const d = cmp.diff;
  const fields = fieldsOf(cmp).filter((f) => f.a.length || f.b.length || f.shared.length);
  const changed = fields.reduce((n, f) => n + f.a.length + f.b.length, 0);
  return (
    <div data-testid="compare">
      <div className="diff-cols">
        {[cmp.checkpoint_a, cmp.checkpoint_b].map((c, i) => (
          <div key={c.id} className="card" style={{ margin: 0 }}>
            <span className={`badge ${i === 0 ? "bad" : "ok"}`}>{i === 0 ? "A" : "B"}</span> <Link to={`/checkpoints/${c.id}`} className="mono">{short(c.commit_hash)}</Link>{" "}
            <span className="badge">{c.branch_name}</span>
            <div>{c.message}</div>
          </div>
        ))}
      </div>
      <p className="small">
        {changed} item(s) differ · common ancestor:{" "}
        {d.common_ancestor_commit_id ? <Link to={`/checkpoints/${d.common_ancestor_commit_id}`}>{d.common_ancestor_commit_id.slice(0, 8)}</Link> : "none"}
      </p>
      <Tabs.Root defaultValue="unified">
        <Tabs.List className="tabs-list" aria-label="Diff layout">
          <Tabs.Trigger className="tabs-trigger" value="unified">
            Unified
          </Tabs.Trigger>
          <Tabs.Trigger className="tabs-trigger" value="split">
            Side by side
          </Tabs.Trigger>
        </Tabs.List>
        <Tabs.Content value="unified">
          <TextField title="Objective" a={d.objective_a} b={d.objective_b} />
          <TextField title="Summary" a={d.summary_a} b={d.summary_b} />
          {fields.map((f) => (
            <div className="diff-field" key={f.title}>
              <h3>{f.title}</h3>
              {f.a.map((x) => (
                <Line key={`a${x}`} cls="del" sign="−" text={x} label="only in A" />
              ))}
              {f.b.map((x) => (
                <Line key={`b${x}`} cls="add" sign="+" text={x} label="only in B" />
              ))}
              {f.shared.map((x) => (
                <Line key={`s${x}`} cls="same" sign=" " text={x} label="in both" />
              ))}
            </div>
          ))}
        </Tabs.Content>
        <Tabs.Content value="split">
          {[{ title: "Objective", a: [d.objective_a], b: [d.objective_b], shared: [] as string[] }, ...fields].map((f) => (
            <div className="diff-field" key={f.title}>
              <h3>{f.title}</h3>
              <div className="diff-cols">
                <div>
                  {f.a.map((x, i) => (
                    <Line key={i} cls="del" sign="−" text={x || "—"} label="only in A" />
                  ))}
                  {f.shared.map((x) => (
                    <Line key={`s${x}`} cls="same" sign=" " text={x} label="in both" />
                  ))}
                </div>
                <div>
                  {f.b.map((x, i) => (
                    <Line key={i} cls="add" sign="+" text={x || "—"} label="only in B" />
                  ))}
                  {f.shared.map((x) => (
                    <Line key={`s${x}`} cls="same" sign=" " text={x} label="in both" />
                  ))}
                </div>
              </div>
            </div>
          ))}
        </Tabs.Content>
      </Tabs.Root>
    </div>
  );
}
