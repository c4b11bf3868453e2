import { useState } from "react";
import type { Checkpoint, ItemView, MergeConflict, MergePreview, MergeResolution } from "../api";
import { compareFields, type FieldRows } from "../lib/compare";
import { LIST_FIELDS } from "../lib/diff";
import { Fields, WordDiff } from "./CompareView";
import "./review.css";

const KINDS: Record<string, string> = {
  both_changed: "changed on both sides",
  removed_vs_edited: "removed on one side, edited on the other",
};
const ITEM_ID = /^[dataqe]-[0-9a-f]{6}$/;
type Side = "base" | "ours" | "theirs";

/** The merged content as a checkpoint the compare can read: its texts, artifacts and items. */
export function mergedAsCheckpoint(p: MergePreview): Pick<Checkpoint, "objective" | "summary" | "artifacts" | "items"> {
  return { objective: p.merged.objective, summary: p.merged.summary, artifacts: p.merged.artifacts ?? [], items: p.items };
}

/**
 * What the merge changes in the target: the target compared with the merged
 * content, item by item id, only the rows that differ. Null when the target
 * or the merged items are not known.
 */
export function mergeChanges(preview: MergePreview, ours?: Checkpoint | null): FieldRows[] | null {
  if (!ours?.items) return null;
  return compareFields(ours, mergedAsCheckpoint(preview))
    .map((f) => ({ ...f, rows: f.rows.filter((r) => r.op !== "same"), counts: { ...f.counts, same: 0 } }))
    .filter((f) => f.rows.length > 0);
}

const keyOf = (c: { field: string; key: string }) => `${c.field}\u0000${c.key}`;

function Conflict({ c, i, r, choose }: { c: MergeConflict; i: number; r?: MergeResolution; choose: (c: MergeConflict, ch: MergeResolution["choice"], v?: string) => void }) {
  const name = `conflict-${i}`;
  const shown = (side: Side) =>
    !c[side] ? <em className="muted">(absent)</em> : side === "base" || !c.base ? <span>{c[side]}</span> : <WordDiff a={c.base} b={c[side]} side="b" />;
  return (
    <div className="conflict review-conflict" data-testid="merge-conflict">
      <div>
        <strong>{c.field.replace("_", " ")}</strong>
        {c.key && <span className={ITEM_ID.test(c.key) ? "mono muted" : "muted"}> · {ITEM_ID.test(c.key) ? `item ${c.key}` : c.key}</span>}{" "}
        <span className="badge warn" title={c.kind}>
          {KINDS[c.kind] ?? c.kind}
        </span>
      </div>
      <fieldset>
        <legend className="sr-only">
          Resolution for {c.field} {c.key}
        </legend>
        {(["ours", "theirs", "base"] as const).map((side) => (
          <label key={side} style={{ fontWeight: 400, display: "flex", gap: "0.4rem" }}>
            <input type="radio" name={name} checked={r?.choice === side} onChange={() => choose(c, side)} />
            <span>
              <strong>{side}</strong>: {shown(side)}
            </span>
          </label>
        ))}
        <label style={{ fontWeight: 400, display: "flex", gap: "0.4rem" }}>
          <input type="radio" name={name} checked={r?.choice === "custom"} onChange={() => choose(c, "custom", r?.value ?? c.ours)} />
          <strong>custom</strong>
        </label>
        {r?.choice === "custom" && <textarea aria-label={`Custom value for ${c.field} ${c.key}`} rows={2} value={r.value} onChange={(e) => choose(c, "custom", e.target.value)} />}
      </fieldset>
      {c.base && (c.ours || c.theirs) && (
        <p className="small muted" style={{ margin: 0 }}>
          Changed words are marked against base.
        </p>
      )}
    </div>
  );
}

/** The merged checkpoint in full: every field and every kind of item. */
function MergedPreview({ preview }: { preview: MergePreview }) {
  const m = preview.merged;
  const live = (it: ItemView) => it.status === "open" || it.status === "done";
  const listOf = (field: (typeof LIST_FIELDS)[number]) =>
    preview.items.filter((it) => it.kind === field.kind && live(it)).map((it) => it.text);
  return (
    <div className="card" data-testid="merge-preview">
      <h3 style={{ marginTop: 0 }}>Preview of the merged checkpoint</h3>
      <p>
        <strong>Message:</strong> {m.message}
      </p>
      <p>
        <strong>Objective:</strong> {m.objective || <em className="muted">none</em>}
      </p>
      <p>
        <strong>Summary:</strong> {m.summary || <em className="muted">none</em>}
      </p>
      {LIST_FIELDS.map((f) => {
        const xs = listOf(f);
        return (
          <div key={f.field} data-testid={`merged-${f.field}`}>
            <strong>
              {f.label} ({xs.length})
            </strong>
            {xs.length ? (
              <ul>
                {xs.map((x, i) => (
                  <li key={i}>{x}</li>
                ))}
              </ul>
            ) : (
              <p className="small muted">none</p>
            )}
          </div>
        );
      })}
      <div data-testid="merged-artifacts">
        <strong>Artifacts ({m.artifacts.length})</strong>
        <ul>
          {m.artifacts.map((a) => (
            <li key={a.id}>
              {a.label} <span className="small muted">({a.type})</span>
            </li>
          ))}
        </ul>
      </div>
    </div>
  );
}

/**
 * A merge as a pull request: what it changes in the target (item by item
 * id), its conflicts (base / ours / theirs / custom, the changed words
 * marked), what it removes, and the merged checkpoint in full. It merges
 * once every conflict has a resolution.
 */
export function MergeView({
  preview,
  sourceLabel,
  targetLabel,
  onPreview,
  onMerge,
  ours,
}: {
  ours?: Checkpoint | null;
  theirs?: Checkpoint | null;
  preview: MergePreview;
  sourceLabel: string;
  targetLabel: string;
  onPreview: (r: MergeResolution[]) => Promise<void>;
  onMerge: (r: MergeResolution[]) => Promise<void>;
}) {
  const [choices, setChoices] = useState<Record<string, MergeResolution>>({});
  // A preview with resolutions lists only what is still open; the view keeps
  // showing every conflict met so far, with the choice made for it.
  const [seen, setSeen] = useState<MergeConflict[]>(preview.conflicts);
  const fresh = preview.conflicts.filter((c) => !seen.some((s) => keyOf(s) === keyOf(c)));
  if (fresh.length) setSeen([...seen, ...fresh]);
  const conflicts = fresh.length ? [...seen, ...fresh] : seen;
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState("");
  const resolutions = Object.values(choices);
  const unresolved = conflicts.filter((c) => {
    const r = choices[keyOf(c)];
    return !r || (r.choice === "custom" && !(r.value ?? "").trim());
  });
  const changes = mergeChanges(preview, ours);
  const removes = preview.removes;
  const choose = (c: MergeConflict, choice: MergeResolution["choice"], value = "") => setChoices((m) => ({ ...m, [keyOf(c)]: { field: c.field, key: c.key, choice, value } }));

  async function run(fn: (r: MergeResolution[]) => Promise<void>) {
    setBusy(true);
    setError("");
    try {
      await fn(resolutions);
    } catch (e) {
      setError((e as Error).message);
    } finally {
      setBusy(false);
    }
  }

  return (
    <section aria-label="Merge">
      <p>
        Merging <strong>{sourceLabel}</strong> (theirs) into <strong>{targetLabel}</strong> (ours).{" "}
        {conflicts.length === 0 ? "No conflicts." : `${conflicts.length} conflict(s); ${unresolved.length} unresolved.`}
      </p>
      {changes && (
        <div className="card" data-testid="merge-changes">
          <h3 style={{ marginTop: 0 }}>What changes in {targetLabel}</h3>
          {changes.length ? <Fields fields={changes} layout="unified" /> : <p className="small muted">The merge changes nothing in {targetLabel}.</p>}
        </div>
      )}
      {conflicts.length > 0 && <h3>Conflicts</h3>}
      {conflicts.map((c, i) => (
        <Conflict key={keyOf(c)} c={c} i={i} r={choices[keyOf(c)]} choose={choose} />
      ))}
      {removes.length > 0 && (
        <div className="card" data-testid="merge-effects">
          <h3 style={{ marginTop: 0 }}>What the merge removes</h3>
          {removes.map((r, i) => (
            <div key={`r${i}`} className="diff-line del" data-testid="merge-remove">
              <span className="sign" aria-hidden>
                −
              </span>
              <span className="sr-only">removed: </span>
              <span>
                <span className="small">{(r.kind ?? "item").replace("_", " ")}</span> <span data-testid="merge-remove-text">{r.text}</span>
                {r.id && <span className="mono small"> {r.id}</span>}
                <span className="src"> removed {r.side === "both" ? "on both sides" : r.side === "ours" ? `in ${targetLabel} (ours)` : `in ${sourceLabel} (theirs)`}</span>
              </span>
            </div>
          ))}
        </div>
      )}
      {removes.length === 0 && <p className="small muted">The merge removes nothing.</p>}
      <MergedPreview preview={preview} />
      {error && (
        <p className="error" role="alert">
          {error}
        </p>
      )}
      <div className="row">
        <button type="button" disabled={busy} onClick={() => run(onPreview)}>
          Preview with these choices
        </button>
        <button type="button" className="primary" disabled={busy || unresolved.length > 0} onClick={() => run(onMerge)}>
          Merge
        </button>
      </div>
    </section>
  );
}
