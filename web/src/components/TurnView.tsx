import { memo, useState, type KeyboardEvent, type ReactNode } from "react";
import * as Tooltip from "@radix-ui/react-tooltip";
import { GitBranch, GitFork, Pencil, RefreshCw, RotateCcw, ShieldAlert } from "lucide-react";
import type { Turn } from "../api";
import { Markdown } from "./Markdown";
import { CopyButton } from "./CopyButton";
import { redactionNote, redactionsOf } from "../lib/redactions";

// Formatting a date through toLocale*String builds a new formatter on every
// call, which costs more than rendering the message itself; one formatter of
// each kind is made once and the texts are kept per timestamp.
const clockFormat = new Intl.DateTimeFormat(undefined, { hour: "2-digit", minute: "2-digit" });
const fullFormat = new Intl.DateTimeFormat(undefined, { dateStyle: "medium", timeStyle: "medium" });
const times = new Map<string, { clock: string; full: string }>();
export function turnTime(iso: string) {
  let t = times.get(iso);
  if (!t) {
    const d = new Date(iso);
    t = Number.isNaN(d.getTime()) ? { clock: "", full: iso } : { clock: clockFormat.format(d), full: fullFormat.format(d) };
    if (times.size > 5000) times.clear();
    times.set(iso, t);
  }
  return t;
}

function Tip({ label, children }: { label: string; children: ReactNode }) {
  return (
    <Tooltip.Root>
      <Tooltip.Trigger asChild>{children}</Tooltip.Trigger>
      <Tooltip.Portal>
        <Tooltip.Content className="tooltip" sideOffset={4}>
          {label}
        </Tooltip.Content>
      </Tooltip.Portal>
    </Tooltip.Root>
  );
}

/** What a message can do; each action is offered only where it works. */
export interface TurnActions {
  /** Put the message back in the composer to send it again. */
  onRetry?: (t: Turn) => void;
  /** Edit the message: a new branch from the state before it, with the edited text sent there. */
  onEdit?: (t: Turn, text: string) => void;
  canEdit?: (t: Turn) => boolean;
  onRegenerate?: (t: Turn) => void;
  onFork?: (t: Turn) => void;
  canFork?: (t: Turn) => boolean;
}

function EditBox({ turn, onSend, onCancel }: { turn: Turn; onSend: (text: string) => void; onCancel: () => void }) {
  const [text, setText] = useState(turn.content);
  const send = () => text.trim() && onSend(text.trim());
  const onKey = (e: KeyboardEvent<HTMLTextAreaElement>) => {
    if (e.key === "Escape") {
      e.preventDefault();
      e.stopPropagation();
      onCancel();
    } else if (e.key === "Enter" && !e.shiftKey && !e.nativeEvent.isComposing) {
      e.preventDefault();
      send();
    }
  };
  return (
    <div className="edit-box">
      <label htmlFor={`edit-${turn.id}`} className="sr-only">
        Edit message {turn.sequence_number}
      </label>
      <textarea id={`edit-${turn.id}`} autoFocus value={text} rows={Math.min(8, Math.max(2, text.split("\n").length))} onChange={(e) => setText(e.target.value)} onKeyDown={onKey} />
      <p className="muted small">Sending opens a new branch from the state before this message; this conversation stays as it is.</p>
      <div className="row">
        <button type="button" className="primary" onClick={send} disabled={!text.trim()}>
          <GitBranch size={14} aria-hidden /> Branch and send
        </button>
        <button type="button" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </div>
  );
}

/**
 * One message with its actions. Memoised on the turn and a few flags: the
 * thread re-renders on every scroll frame (the virtualiser's window moves),
 * and a message already on screen must then cost nothing. The message is
 * one stop of the thread's roving focus (tabStop); its actions are reached
 * with the arrow keys, so the thread costs one Tab however long it is.
 */
export const TurnView = memo(function TurnView({
  turn: t,
  focus,
  outside,
  busy,
  last,
  tabStop,
  actions,
  editable = true,
  forkable = true,
}: {
  turn: Turn;
  focus?: boolean;
  /** Why the model does not see this turn (null: it does). */
  outside: string | null;
  busy: boolean;
  /** The newest turn of the thread (regenerate is offered on it). */
  last: boolean;
  tabStop: boolean;
  actions: TurnActions;
  /**
   * Whether editing as a branch and forking work from this message: passed
   * as values (not asked of the actions) so that the message renders again
   * when the answer changes, e.g. once the checkpoints before it are read.
   */
  editable?: boolean;
  forkable?: boolean;
}) {
  const when = turnTime(t.created_at);
  const [editing, setEditing] = useState(false);
  const stopped = t.role === "assistant" && t.metadata?.stopped === true;
  // Secrets the server replaced before storing the message: said beside it, and read out with it.
  const redacted = redactionNote(redactionsOf(t.metadata));
  const label = `${t.role} message ${t.sequence_number}${stopped ? ", stopped" : ""}${redacted ? `, ${redacted}` : ""}${outside ? `, not sent to the model: ${outside}` : ""}`;
  return (
    <div className={`turn ${t.role}`}>
      <div className="turn-col">
        {editing && actions.onEdit ? (
          <EditBox
            turn={t}
            onCancel={() => setEditing(false)}
            onSend={(text) => {
              setEditing(false);
              actions.onEdit!(t, text);
            }}
          />
        ) : (
          <article
            className={`msg ${t.role}${outside ? " dim" : ""}${focus ? " focus" : ""}${stopped ? " stopped" : ""}`}
            data-seq={t.sequence_number}
            aria-label={label}
            data-testid={`turn-${t.role}`}
            tabIndex={tabStop ? 0 : -1}
            title={outside ? `Not sent to the model: ${outside}` : undefined}
          >
            {t.role === "assistant" ? <Markdown text={t.content} /> : t.content}
          </article>
        )}
        <div className={stopped || outside || redacted ? "msg-meta shown" : "msg-meta"}>
          {redacted && (
            <span className="badge warn" data-testid="redaction-badge" title="Replaced by the server before it was stored or sent to a model">
              <ShieldAlert size={12} aria-hidden /> {redacted}
            </span>
          )}
          {stopped && (
            <span className="badge warn" data-testid="stopped-badge">
              Stopped
            </span>
          )}
          {outside && <span className="outside-reason">not sent: {outside}</span>}
          <Tip label={when.full}>
            <time dateTime={t.created_at}>{when.clock}</time>
          </Tip>
          {t.role === "assistant" && (
            <span>
              · {t.provider}/{t.model}
            </span>
          )}
          <CopyButton label="Copy message" text={() => t.content} />
          {t.role === "user" && actions.onEdit && editable && (
            <button type="button" className="icon-btn" tabIndex={-1} aria-label={`Edit message ${t.sequence_number} on a new branch`} onClick={() => setEditing(true)} disabled={busy}>
              <Pencil size={14} aria-hidden />
            </button>
          )}
          {t.role === "user" && actions.onRetry && (
            <button type="button" className="icon-btn" tabIndex={-1} aria-label="Put this message in the box to send it again" onClick={() => actions.onRetry!(t)}>
              <RotateCcw size={14} aria-hidden />
            </button>
          )}
          {t.role === "assistant" && last && actions.onRegenerate && (
            <button type="button" className="icon-btn" tabIndex={-1} aria-label="Regenerate this reply" onClick={() => actions.onRegenerate!(t)} disabled={busy}>
              <RefreshCw size={14} aria-hidden />
            </button>
          )}
          {actions.onFork && forkable && (
            <button type="button" className="icon-btn" tabIndex={-1} aria-label={`Fork from message ${t.sequence_number}`} onClick={() => actions.onFork!(t)}>
              <GitFork size={14} aria-hidden />
            </button>
          )}
        </div>
      </div>
    </div>
  );
});
