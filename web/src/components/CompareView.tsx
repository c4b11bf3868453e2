import * as Tabs from "@radix-ui/react-tabs";
import { Link } from "react-router-dom";
import { useQuery } from "@tanstack/react-query";
import { api, short, type Checkpoint, type CompareResponse } from "../api";
import "./review.css";
import { compareFields, wordDiff, type FieldRows, type Row } from "../lib/compare";
import { queryKeys } from "../lib/queryKeys";

const SIGN = { same: " ", del: "−", add: "+" } as const;
const LABEL = { same: "in both", del: "only in A", add: "only in B" } as const;

/** A text with the words only it has marked (del in A's text, ins in B's). */
export function WordDiff({ a, b, side }: { a: string; b: string; side: "a" | "b" }) {
  const segs = wordDiff(a, b).filter((s) => s.op === "same" || s.op === (side === "a" ? "del" : "add"));
  return (
    <span data-testid="word-diff">
      {segs.map((s, i) => (s.op === "same" ? <span key={i}>{s.text}</span> : s.op === "del" ? <del key={i}>{s.text}</del> : <ins key={i}>{s.text}</ins>))}
    </span>
  );
}

function Line({ kind, row, side }: { kind: "same" | "del" | "add"; row: Row; side: "a" | "b" }) {
  const text = side === "a" ? row.a : row.b;
  const cls = row.op === "edit" ? `${kind} edit` : kind;
  return (
    <div className={`diff-line ${cls}`} data-key={row.key} data-op={row.op}>
      <span className="sign" aria-hidden>
        {SIGN[kind]}
      </span>
      <span className="sr-only">{row.op === "edit" ? (side === "a" ? "changed, in A" : "changed, in B") : LABEL[kind]}: </span>
      <span>{row.op === "edit" ? <WordDiff a={row.a ?? ""} b={row.b ?? ""} side={side} /> : text}</span>
    </div>
  );
}

function Counts({ f }: { f: FieldRows }) {
  const c = f.counts;
  const parts = [c.added && `+${c.added}`, c.removed && `−${c.removed}`, c.changed && `~${c.changed}`].filter(Boolean);
  return (
    <span className="small muted" data-testid="field-counts">
      {parts.length ? parts.join(" ") : "unchanged"}
      {c.same ? ` · ${c.same} same` : ""}
    </span>
  );
}

function Unified({ f }: { f: FieldRows }) {
  return (
    <>
      {f.rows.map((r) =>
        r.op === "same" ? (
          <Line key={r.key} kind="same" row={r} side="b" />
        ) : (
          <div key={r.key} className="diff-pair">
            {r.a !== null && <Line kind="del" row={r} side="a" />}
            {r.b !== null && <Line kind="add" row={r} side="b" />}
          </div>
        ),
      )}
    </>
  );
}

function Split({ f }: { f: FieldRows }) {
  const cell = (r: Row, side: "a" | "b") => {
    const t = side === "a" ? r.a : r.b;
    if (t === null) return <div className="diff-line empty" aria-hidden />;
    return <Line kind={r.op === "same" ? "same" : side === "a" ? "del" : "add"} row={r} side={side} />;
  };
  return (
    <div className="diff-grid" role="table" aria-label={`${f.label}, A and B side by side`}>
      {f.rows.map((r) => (
        <div className="diff-grid-row" role="row" key={r.key} data-testid="split-row" data-key={r.key}>
          <div role="cell">{cell(r, "a")}</div>
          <div role="cell">{cell(r, "b")}</div>
        </div>
      ))}
    </div>
  );
}

export function Fields({ fields, layout }: { fields: FieldRows[]; layout: "unified" | "split" }) {
  return (
    <>
      {fields.map((f) => (
        <section className="diff-field" key={f.field} data-testid={`field-${f.field}`} aria-label={f.label}>
          <h3>
            {f.label} <Counts f={f} />
          </h3>
          {layout === "unified" ? <Unified f={f} /> : <Split f={f} />}
        </section>
      ))}
    </>
  );
}

/**
 * Two checkpoints compared field by field: items aligned by their ids, an
 * edited item on one row with its changed words marked, counts per field.
 * Unified (one column) or side by side. The items come from each
 * checkpoint's items view; the compare answer names the checkpoints and
 * their common ancestor.
 */
export function CompareView({ cmp }: { cmp: CompareResponse }) {
  const a = useQuery({ queryKey: queryKeys.checkpointItems(cmp.checkpoint_a.id), queryFn: () => api.checkpointItems(cmp.checkpoint_a.id) });
  const b = useQuery({ queryKey: queryKeys.checkpointItems(cmp.checkpoint_b.id), queryFn: () => api.checkpointItems(cmp.checkpoint_b.id) });
  const d = cmp.diff;
  const fields = a.data && b.data ? compareFields(a.data as Checkpoint, b.data as Checkpoint).filter((f) => f.rows.length) : null;
  const changed = (fields ?? []).reduce((n, f) => n + f.counts.added + f.counts.removed + f.counts.changed, 0);
  return (
    <div data-testid="compare">
      <div className="diff-cols">
        {[cmp.checkpoint_a, cmp.checkpoint_b].map((c, i) => (
          <div key={c.id} className="card" style={{ margin: 0 }}>
            <span className={`badge ${i === 0 ? "bad" : "ok"}`}>{i === 0 ? "A" : "B"}</span>{" "}
            <Link to={`/checkpoints/${c.id}`} className="mono">
              {short(c.commit_hash)}
            </Link>{" "}
            <span className="badge">{c.branch_name}</span>
            <div>{c.message}</div>
          </div>
        ))}
      </div>
      <p className="small" data-testid="compare-summary">
        {fields ? `${changed} item(s) differ` : "Loading items…"} · common ancestor:{" "}
        {d.common_ancestor_commit_id ? (
          <Link to={`/checkpoints/${d.common_ancestor_commit_id}`} className="mono">
            {short(d.common_ancestor_commit_hash)}
          </Link>
        ) : (
          "none"
        )}
      </p>
      {(a.isError || b.isError) && <p className="error">Could not load the items: {((a.error ?? b.error) as Error).message}</p>}
      <Tabs.Root defaultValue="unified">
        <Tabs.List className="tabs-list" aria-label="Diff layout">
          <Tabs.Trigger className="tabs-trigger" value="unified">
            Unified
          </Tabs.Trigger>
          <Tabs.Trigger className="tabs-trigger" value="split">
            Side by side
          </Tabs.Trigger>
        </Tabs.List>
        <Tabs.Content value="unified">{fields && <Fields fields={fields} layout="unified" />}</Tabs.Content>
        <Tabs.Content value="split">{fields && <Fields fields={fields} layout="split" />}</Tabs.Content>
      </Tabs.Root>
    </div>
  );
}
