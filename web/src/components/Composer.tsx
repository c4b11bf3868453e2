import { useRef, useState, type KeyboardEvent } from "react";
import { Send as SendIcon, Square } from "lucide-react";
import { newKey } from "../api";

export interface ProviderChoice {
  name: string;
  label: string;
  ready: boolean;
  defaultModel: string;
}

/**
 * The message box. A send that fails keeps the typed text and offers a
 * retry that reuses the same Idempotency-Key, so a send that in fact
 * reached the server is never stored twice. Stop aborts a streaming reply.
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
}: {
  providers: ProviderChoice[];
  provider: string;
  model: string;
  onProvider: (p: string) => void;
  onModel: (m: string) => void;
  send: (text: string, key: string, signal: AbortSignal) => Promise<void>;
  status?: string;
  disabled?: boolean;
}) {
  const [text, setText] = useState("");
  const [sending, setSending] = useState(false);
  const [error, setError] = useState("");
  const key = useRef<{ text: string; key: string } | null>(null);
  const abort = useRef<AbortController | null>(null);

  async function submit() {
    const t = text.trim();
    if (!t || sending) return;
    // The same text after a failure is a retry: same key.
    if (!key.current || key.current.text !== t) key.current = { text: t, key: newKey() };
    const ctl = new AbortController();
    abort.current = ctl;
    setSending(true);
    setError("");
    try {
      await send(t, key.current.key, ctl.signal);
      setText("");
      key.current = null;
    } catch (e) {
      if ((e as Error).name === "AbortError") setError("Stopped. Your message is still here; send it again to retry.");
      else setError((e as Error).message || "Send failed");
    } finally {
      setSending(false);
      abort.current = null;
    }
  }

  function onKey(e: KeyboardEvent<HTMLTextAreaElement>) {
    if (e.key === "Enter" && !e.shiftKey && !e.nativeEvent.isComposing) {
      e.preventDefault();
      submit();
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
          id="composer-text"
          rows={Math.min(8, Math.max(2, text.split("\n").length))}
          value={text}
          placeholder="Message (Enter sends, Shift+Enter for a new line)"
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
                <button type="button" onClick={submit}>
                  Retry
                </button>
              </>
            )}
            {sending ? (
              <button type="button" onClick={() => abort.current?.abort()}>
                <Square size={12} aria-hidden /> Stop
              </button>
            ) : (
              <button type="button" className="primary" onClick={submit} disabled={disabled || !text.trim()}>
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
