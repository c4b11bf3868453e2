import { useEffect, useRef, useState, type KeyboardEvent, type MutableRefObject } from "react";
import { Send as SendIcon, Square } from "lucide-react";
import { newKey } from "../api";

export interface ProviderChoice {
  name: string;
  label: string;
  ready: boolean;
  defaultModel: string;
}

const DRAFT = "smriti.draft.";

/** What the page can ask of the message box: the focus, a text to edit, a send, a stop. */
export interface ComposerControl {
  focus(): void;
  /** Puts text in the box (replacing what is there) and focuses it, without sending. */
  fill(text: string): void;
  /** Sends text as if typed and sent, leaving what is typed in the box alone. */
  send(text: string): void;
  /** Stops the reply that is streaming; false when none is. */
  stop(): boolean;
}

/** The unsent text of a session's message box, kept for the tab's life (sessionStorage). */
export const drafts = {
  get(key: string): string {
    try {
      return sessionStorage.getItem(DRAFT + key) ?? "";
    } catch {
      return "";
    }
  },
  set(key: string, text: string) {
    try {
      if (text) sessionStorage.setItem(DRAFT + key, text);
      else sessionStorage.removeItem(DRAFT + key);
    } catch {
      // Storage refused (private mode, quota): the draft lives as long as the page.
    }
  },
};

/**
 * The message box. Sending empties it at once, and it takes new text while
 * the reply streams. A send that fails puts its text back (when the box is
 * still empty) and offers a retry that reuses the same Idempotency-Key, so
 * a send that in fact reached the server is never stored twice. Stop aborts
 * a streaming reply; the server keeps the question and the reply as far as
 * it got, so nothing comes back to the box. With a draftKey (the session) unsent text survives
 * leaving the page and coming back.
 */
export function Composer({
  providers,
  provider,
  model,
  onProvider,
  onModel,
  send,
  status,
  disabled,
  draftKey,
  control,
}: {
  providers: ProviderChoice[];
  provider: string;
  model: string;
  onProvider: (p: string) => void;
  onModel: (m: string) => void;
  send: (text: string, key: string, signal: AbortSignal) => Promise<void>;
  status?: string;
  disabled?: boolean;
  /** Where the unsent text is kept between visits: the session's id. */
  draftKey?: string;
  control?: MutableRefObject<ComposerControl | null>;
}) {
  const [text, setTextState] = useState(() => (draftKey ? drafts.get(draftKey) : ""));
  const [sending, setSending] = useState(false);
  const [error, setError] = useState("");
  const key = useRef<{ text: string; key: string } | null>(null);
  const abort = useRef<AbortController | null>(null);
  const box = useRef<HTMLTextAreaElement>(null);
  const draft = useRef(draftKey);
  draft.current = draftKey;

  function setText(next: string | ((cur: string) => string)) {
    setTextState((cur) => {
      const v = typeof next === "function" ? next(cur) : next;
      if (draft.current) drafts.set(draft.current, v);
      return v;
    });
  }

  // A new session, a fork or a fresh load: the box is where typing goes.
  useEffect(() => {
    box.current?.focus();
  }, [draftKey]);

  if (control)
    control.current = {
      focus: () => box.current?.focus(),
      fill: (t) => {
        setText(t);
        requestAnimationFrame(() => box.current?.focus());
      },
      send: (t) => void submit(t),
      stop: () => {
        if (!abort.current) return false;
        abort.current.abort();
        return true;
      },
    };

  /** Sends what is typed, or (Retry) the text whose send failed. */
  async function submit(again?: string) {
    const t = (again ?? text).trim();
    if (!t || sending) return;
    // The same text after a failure is a retry: same key.
    if (!key.current || key.current.text !== t) key.current = { text: t, key: newKey() };
    const ctl = new AbortController();
    abort.current = ctl;
    setSending(true);
    setError("");
    setText((cur) => (cur.trim() === t ? "" : cur));
    try {
      await send(t, key.current.key, ctl.signal);
      key.current = null;
    } catch (e) {
      // Stopped: the server keeps the question and the partial reply.
      if ((e as Error).name === "AbortError") {
        key.current = null;
        return;
      }
      // The text comes back to an empty box; what was typed meanwhile stays.
      setText((cur) => (cur.trim() ? cur : t));
      setError((e as Error).message || "Send failed");
    } finally {
      setSending(false);
      abort.current = null;
    }
  }

  function onKey(e: KeyboardEvent<HTMLTextAreaElement>) {
    if (e.key === "Enter" && !e.shiftKey && !e.nativeEvent.isComposing) {
      e.preventDefault();
      void submit();
    }
  }

  const current = providers.find((p) => p.name === provider);
  return (
    <div className="composer">
      <div className="composer-box">
        <label htmlFor="composer-text" className="sr-only">
          Message
        </label>
        <textarea
          ref={box}
          id="composer-text"
          rows={Math.min(8, Math.max(2, text.split("\n").length))}
          value={text}
          placeholder="Message (Enter sends, Shift+Enter for a new line)"
          aria-keyshortcuts="Shift+Escape"
          onChange={(e) => setText(e.target.value)}
          onKeyDown={onKey}
          disabled={disabled}
        />
        <div className="composer-bar">
          <div className="composer-opts">
            <label htmlFor="composer-provider">Provider</label>
            <select id="composer-provider" value={provider} onChange={(e) => onProvider(e.target.value)}>
              {providers.map((p) => (
                <option key={p.name} value={p.name} disabled={!p.ready}>
                  {p.label}
                  {p.ready ? "" : " (not configured)"}
                </option>
              ))}
            </select>
            <label htmlFor="composer-model">Model</label>
            <input id="composer-model" value={model} placeholder={current?.defaultModel || "default"} onChange={(e) => onModel(e.target.value)} size={14} />
            {provider === "mock" && (
              <span className="badge warn" title="Replies come from the built-in deterministic mock, not a real model">
                MOCK — offline test replies
              </span>
            )}
          </div>
          <div className="row">
            {error && !sending && (
              <>
                <span className="error small" role="alert">
                  {error}
                </span>
                <button type="button" onClick={() => void submit(key.current?.text)}>
                  Retry
                </button>
              </>
            )}
            {sending ? (
              <button type="button" onClick={() => abort.current?.abort()} aria-keyshortcuts="Escape" title="Stop (Esc)">
                <Square size={12} aria-hidden /> Stop
              </button>
            ) : (
              <button type="button" className="primary" onClick={() => void submit()} disabled={disabled || !text.trim()}>
                <SendIcon size={14} aria-hidden /> Send
              </button>
            )}
          </div>
        </div>
      </div>
      <div className="muted small mono composer-status" aria-live="polite" data-testid="context-status">
        {status}
      </div>
    </div>
  );
}
