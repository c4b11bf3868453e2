import { useState } from "react";
import type { ApiError, ID, MergeConflict, MergeResolution } from "../api";
import { Modal } from "./Modal";

/** A save's 409 body: the conflicting items, and the head the save met. */
export interface SaveConflict {
  detail: string;
  conflicts: MergeConflict[];
  head_checkpoint_id: ID;
  base_checkpoint_id: ID;
}

/** The conflicts of a save's 409, or null for any other error. */
export function conflictOf(e: ApiError): SaveConflict | null {
  if (e.status !== 409 || !e.body || typeof e.body !== "object") return null;
  const b = e.body as Partial<SaveConflict>;
  if (!Array.isArray(b.conflicts) || b.conflicts.length === 0) return null;
  return { detail: typeof b.detail === "string" ? b.detail : e.message, conflicts: b.conflicts, head_checkpoint_id: b.head_checkpoint_id ?? "", base_checkpoint_id: b.base_checkpoint_id ?? "" };
}

const SIDES = [
  { choice: "ours", label: "ours", hint: "what the branch head holds now" },
  { choice: "theirs", label: "theirs", hint: "what this save wrote" },
  { choice: "base", label: "base", hint: "what the form was opened on" },
] as const;

const keyOf = (c: { field: string; key: string }) => `${c.field}\u0000${c.key}`;

/**
 * The conflicts of a save that met newer changes to the same items: each
 * names its field and item id with the base, ours (the branch head) and
 * theirs (this save) texts; once each has a choice, onResolve sends the
 * same save again with those resolutions.
 */
export function ConflictDialog({
  conflicts,
  headId,
  busy = false,
  error = "",
  onResolve,
  onCancel,
}: {
  conflicts: MergeConflict[];
  headId?: ID;
  busy?: boolean;
  error?: string;
  onResolve: (r: MergeResolution[]) => void | Promise<void>;
  onCancel: () => void;
}) {
  const [choices, setChoices] = useState<Record<string, MergeResolution["choice"]>>({});
  const open = conflicts.filter((c) => !choices[keyOf(c)]);
  const resolutions: MergeResolution[] = conflicts.flatMap((c) => (choices[keyOf(c)] ? [{ field: c.field, key: c.key, choice: choices[keyOf(c)], value: "" }] : []));
  return (
    <Modal title="Someone else changed the same items" onClose={onCancel}>
      <p>
        The branch moved on since this form was opened{headId ? <> (its head is now <span className="mono">{headId.slice(0, 8)}</span>)</> : null}, and{" "}
        {conflicts.length === 1 ? "one item was" : `${conflicts.length} items were`} changed there too. Choose what each becomes; the rest of your
        save is kept as it is.
      </p>
      {conflicts.map((c, i) => (
        <fieldset key={keyOf(c)} className="conflict" data-testid="save-conflict">
          <legend>
            <strong>{c.field}</strong>
            {c.key && <span className="mono muted"> · item {c.key}</span>}
          </legend>
          {SIDES.map((s) => (
            <label key={s.choice} style={{ fontWeight: 400, display: "flex", gap: "0.4rem" }}>
              <input type="radio" name={`save-conflict-${i}`} checked={choices[keyOf(c)] === s.choice} onChange={() => setChoices((m) => ({ ...m, [keyOf(c)]: s.choice }))} />
              <span>
                <strong>{s.label}</strong> <span className="muted small">({s.hint})</span>: {c[s.choice] ? <span data-testid={`conflict-${s.choice}`}>{c[s.choice]}</span> : <em className="muted">(absent)</em>}
              </span>
            </label>
          ))}
        </fieldset>
      ))}
      {error && (
        <p className="error" role="alert">
          {error}
        </p>
      )}
      <div className="row">
        <button type="button" className="primary" disabled={busy || open.length > 0} onClick={() => void onResolve(resolutions)}>
          {busy ? "Saving…" : "Save with these choices"}
        </button>
        <button type="button" onClick={onCancel}>
          Back to the form
        </button>
      </div>
    </Modal>
  );
}

/** Says that a save landed on a newer head than the one it was written against. */
export function RebasedNotice({ head, base }: { head: string; base: string }) {
  return (
    <p className="small" role="status" data-testid="rebased-notice">
      Saved onto {head}, rebased from {base}: changes saved meanwhile are kept.
    </p>
  );
}
