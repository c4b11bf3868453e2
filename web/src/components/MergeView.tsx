import { useState } from "react";
import type { MergeConflict, MergePreview, MergeResolution } from "../api";
import { taskText } from "../api";

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
}: {
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
              {c.key && <span className="muted"> · {c.key}</span>} <span className="badge">{c.kind}</span>
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
