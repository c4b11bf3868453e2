import { Undo2, X } from "lucide-react";
import { groupOf, labelOfKind, sourceLabel, type ChangeGroup, type ShownChange } from "../lib/diff";

const GROUPS: { group: ChangeGroup; title: string; cls: string; sign: string }[] = [
  { group: "added", title: "Added", cls: "add", sign: "+" },
  { group: "changed", title: "Changed", cls: "chg", sign: "~" },
  { group: "resolved", title: "Resolved", cls: "res", sign: "✓" },
  { group: "removed", title: "Removed", cls: "del", sign: "−" },
];

/**
 * A draft shown as what it changes in the checkpoint it builds on: added,
 * changed, resolved and removed items, each with the turns it came from,
 * each removable from the proposal (and restorable).
 */
export function DraftDiff({
  changes,
  excluded,
  onToggle,
  fromServer,
  baseLabel,
}: {
  changes: ShownChange[];
  excluded: Set<number>;
  onToggle: (i: number) => void;
  fromServer: boolean;
  baseLabel: string;
}) {
  if (changes.length === 0)
    return (
      <div className="card" data-testid="draft-diff">
        <strong>The draft changes nothing in {baseLabel}.</strong>
      </div>
    );
  return (
    <div className="card" data-testid="draft-diff" aria-label="Proposed changes">
      <div className="row spread">
        <strong>Proposed changes to {baseLabel}</strong>
        <span className="muted small">{fromServer ? "from the draft's change list" : "compared in the browser with the base"}</span>
      </div>
      {GROUPS.map(({ group, title, cls, sign }) => {
        const rows = changes.map((c, i) => ({ c, i })).filter(({ c }) => groupOf(c.op) === group);
        if (!rows.length) return null;
        return (
          <div key={group} className="diff-field" data-testid={`draft-${group}`}>
            <h4>
              {title} ({rows.length})
            </h4>
            {rows.map(({ c, i }) => {
              const off = excluded.has(i);
              const src = sourceLabel(c);
              return (
                <div key={i} className={`diff-line ${cls}${off ? " excluded" : ""}`} data-testid="draft-change">
                  <span className="sign" aria-hidden>
                    {sign}
                  </span>
                  <span>
                    <span className="small muted">{labelOfKind(c.kind)}</span>{" "}
                    {c.op === "update" || c.op === "supersede" ? (
                      <>
                        <del>{c.before}</del> → <span>{c.after}</span>
                      </>
                    ) : (
                      <span>{c.after ?? c.before}</span>
                    )}
                    {c.id && <span className="mono small muted"> {c.id}</span>}
                    {c.op === "supersede" && <span className="badge small"> supersedes</span>}
                    {src && <span className="src">from {src}</span>}
                  </span>
                  <button
                    type="button"
                    className="icon-btn"
                    aria-label={`${off ? "Keep" : "Drop"} change: ${title.toLowerCase()} ${c.after ?? c.before ?? ""}`}
                    onClick={() => onToggle(i)}
                  >
                    {off ? <Undo2 size={14} aria-hidden /> : <X size={14} aria-hidden />}
                  </button>
                </div>
              );
            })}
          </div>
        );
      })}
    </div>
  );
}
