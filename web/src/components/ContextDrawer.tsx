import { useEffect, useRef } from "react";
import { useBackCloses } from "../lib/backCloses";
import { Link } from "react-router-dom";
import type { ContextPreview } from "../api";
import { short } from "../api";

/** "What the model sees": the exact context a send would be given now. */
export function ContextDrawer({ preview, error, onClose }: { preview?: ContextPreview; error?: string; onClose: () => void }) {
  const ref = useRef<HTMLElement>(null);
  useEffect(() => ref.current?.focus(), []);
  useBackCloses(true, onClose);
  return (
    <aside className="drawer" aria-label="What the model sees" tabIndex={-1} ref={ref}>
      <div className="row spread">
        <h2 style={{ margin: 0 }}>What the model sees</h2>
        <button onClick={onClose}>Close</button>
      </div>
      {error && (
        <p className="error" role="alert">
          {error}
        </p>
      )}
      {!preview && !error && <p>Loading…</p>}
      {preview && (
        <>
          <p>
            Mode <span className="badge">{preview.mode.toUpperCase()}</span> · {preview.provider || "default provider"}
            {preview.model ? ` / ${preview.model}` : ""}
          </p>
          <h3>Checkpoints ({preview.checkpoints.length})</h3>
          {preview.checkpoints.length === 0 ? (
            <p className="muted">None: the model starts from the conversation alone.</p>
          ) : (
            <ul data-testid="context-checkpoints">
              {preview.checkpoints.map((c) => (
                <li key={c.id}>
                  <Link to={`/checkpoints/${c.id}`} className="mono">
                    {short(c.commit_hash)}
                  </Link>{" "}
                  {c.message} <span className="muted small">({c.branch_name})</span>
                </li>
              ))}
            </ul>
          )}
          <h3>Turns</h3>
          <p data-testid="context-turns">
            {preview.turn_count === 0
              ? "No earlier turns included."
              : `${preview.turn_count} turn${preview.turn_count === 1 ? "" : "s"} included` +
                (preview.turn_range ? ` (#${preview.turn_range.from_seq}–#${preview.turn_range.to_seq})` : "")}
            {preview.dropped_turns > 0 && ` · ${preview.dropped_turns} dropped to fit the budget`}
          </p>
          <p data-testid="context-stopped">
            {preview.stopped_turns?.length
              ? `Stopped replies are included as far as they got: #${preview.stopped_turns.join(", #")}.`
              : "Stopped replies are included as far as they got (none among these turns)."}
          </p>
          <p>
            Token budget for history: {preview.history_budget.toLocaleString()} · estimated prompt: {preview.token_estimate.toLocaleString()} tokens
          </p>
          <h3>Messages</h3>
          <ol className="plain" data-testid="context-messages">
            {preview.messages.map((m, i) => (
              <li key={i} className="card">
                <div className="small muted">{m.role}</div>
                <div style={{ whiteSpace: "pre-wrap", overflowWrap: "anywhere" }}>{m.content}</div>
              </li>
            ))}
          </ol>
        </>
      )}
    </aside>
  );
}
