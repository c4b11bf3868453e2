import { useState } from "react";
import type { Checkpoint, MergeConflict, MergePreview, MergeRemove, MergeResolution, TaskWire } from "../api";
import { taskText } from "../api";
import { norm } from "../lib/diff";

const KINDS: Record<string, string> = {
  both_changed: "changed on both sides",
  removed_vs_edited: "removed on one side, edited on the other",
};
const ITEM_ID = /^[dataqe]-[0-9a-f]{6}$/;

type Lists = Pick<MergePreview["merged"], "decisions" | "tasks" | "assumptions" | "open_questions" | "entities">;
const LISTS: { key: keyof Lists; kind: string }[] = [
  { key: "decisions", kind: "decision" },
  { key: "assumptions", kind: "assumption" },
  { key: "tasks", kind: "task" },
  { key: "open_questions", kind: "open_question" },
  { key: "entities", kind: "entity" },
];
const texts = (xs: (string | TaskWire)[] | undefined) => (xs ?? []).map((x) => taskText(x as TaskWire));

/**
 * What the merge removes: the server's list when it sends one (v5), else
 * every item of either side that the merged content no longer holds.
 */
export function mergeRemoves(preview: MergePreview, ours?: Checkpoint | null, theirs?: Checkpoint | null): MergeRemove[] {
  if (Array.isArray(preview.removes)) return preview.removes;
  if (!ours && !theirs) return [];
  const out = new Map<string, MergeRemove>();
  for (const { key, kind } of LISTS) {
    const merged = preview.merged[key];
    if (!merged) continue; // the preview does not show this list: nothing to say
    const keep = new Set(texts(merged).map(norm));
    for (const [side, cp] of [["ours", ours], ["theirs", theirs]] as const) {
      for (const t of texts(cp?.[key] as (string | TaskWire)[] | undefined)) {
        if (keep.has(norm(t))) continue;
        const k = `${kind}\u0000${norm(t)}`;
        const prev = out.get(k);
        out.set(k, prev && prev.side !== side ? { ...prev, side: "both" } : { kind, text: t, side });
      }
    }
  }
  return [...out.values()];
}

/** What the merge adds to ours (the target): merged items the target does not hold. */
export function mergeAdds(preview: MergePreview, ours?: Checkpoint | null): { kind: string; text: string }[] {
  if (!ours) return [];
  const out: { kind: string; text: string }[] = [];
  for (const { key, kind } of LISTS) {
    const merged = preview.merged[key];
    if (!merged) continue;
    const have = new Set(texts(ours[key] as (string | TaskWire)[]).map(norm));
    for (const t of texts(merged)) if (!have.has(norm(t))) out.push({ kind, text: t });
  }
  return out;
}

const keyOf = (c: { field: string; key: string }) => `${c.field}\u0000${c.key}`;

/**
 * Resolves a merge's conflicts one by one (ours / theirs / base / custom),
 * shows the dry-run preview of the merged content, and merges once every
 * conflict has a resolution.
 */
export function MergeView({
  preview,
  sourceLabel,
  targetLabel,
  onPreview,
  onMerge,
  ours,
  theirs,
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
    return !r || (r.choice === "custom" && !r.value.trim());
  });

  const removes = mergeRemoves(preview, ours, theirs);
  const adds = mergeAdds(preview, ours);
  const choose = (c: MergeConflict, choice: MergeResolution["choice"], value = "") =>
    setChoices((m) => ({ ...m, [keyOf(c)]: { field: c.field, key: c.key, choice, value } }));

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
      {conflicts.map((c, i) => {
        const r = choices[keyOf(c)];
        const name = `conflict-${i}`;
        return (
          <div className="conflict" key={keyOf(c)} data-testid="merge-conflict">
            <div>
              <strong>{c.field}</strong>
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
                    <strong>{side}</strong>: {c[side] ? <span>{c[side]}</span> : <em className="muted">(absent)</em>}
                  </span>
                </label>
              ))}
              <label style={{ fontWeight: 400, display: "flex", gap: "0.4rem" }}>
                <input type="radio" name={name} checked={r?.choice === "custom"} onChange={() => choose(c, "custom", r?.value ?? c.ours)} />
                <strong>custom</strong>
              </label>
              {r?.choice === "custom" && (
                <textarea aria-label={`Custom value for ${c.field} ${c.key}`} rows={2} value={r.value} onChange={(e) => choose(c, "custom", e.target.value)} />
              )}
            </fieldset>
          </div>
        );
      })}
      {(removes.length > 0 || adds.length > 0) && (
        <div className="card" data-testid="merge-effects">
          <h3 style={{ marginTop: 0 }}>What the merge does to {targetLabel}</h3>
          {adds.map((a, i) => (
            <div key={`a${i}`} className="diff-line add">
              <span className="sign" aria-hidden>
                +
              </span>
              <span className="sr-only">added: </span>
              <span>
                <span className="small">{a.kind.replace("_", " ")}</span> {a.text}
              </span>
            </div>
          ))}
          {removes.map((r, i) => (
            <div key={`r${i}`} className="diff-line del" data-testid="merge-remove">
              <span className="sign" aria-hidden>
                −
              </span>
              <span className="sr-only">removed: </span>
              <span>
                <span className="small">{(r.kind ?? "item").replace("_", " ")}</span> <span data-testid="merge-remove-text">{r.text}</span>
                {r.id && <span className="mono small"> {r.id}</span>}
                <span className="src">
                  removed {r.side === "both" ? "from both sides" : r.side === "ours" ? `from ${targetLabel} (ours)` : `from ${sourceLabel} (theirs)`}
                </span>
              </span>
            </div>
          ))}
        </div>
      )}
      {removes.length === 0 && (ours || theirs || preview.removes) && <p className="small muted">The merge removes nothing.</p>}
      <div className="card" data-testid="merge-preview">
        <h3 style={{ marginTop: 0 }}>Preview of the merged checkpoint</h3>
        <p>
          <strong>Message:</strong> {preview.merged.message}
        </p>
        {preview.merged.objective && (
          <p>
            <strong>Objective:</strong> {preview.merged.objective}
          </p>
        )}
        {preview.merged.summary && (
          <p>
            <strong>Summary:</strong> {preview.merged.summary}
          </p>
        )}
        <strong>Decisions</strong>
        <ul>{(preview.merged.decisions ?? []).map((d) => <li key={d}>{d}</li>)}</ul>
        <strong>Tasks</strong>
        <ul>{(preview.merged.tasks ?? []).map((t, i) => <li key={i}>{taskText(t)}</li>)}</ul>
      </div>
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
