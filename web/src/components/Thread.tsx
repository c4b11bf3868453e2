import { memo, useCallback, useEffect, useLayoutEffect, useRef, useState, type ReactNode } from "react";
import { useVirtualizer } from "@tanstack/react-virtual";
import * as Tooltip from "@radix-ui/react-tooltip";
import { ArrowDown, Check, Copy, GitFork, RotateCcw, Square } from "lucide-react";
import { toast } from "sonner";
import type { Turn } from "../api";
import { Markdown, warmMarkdown } from "./Markdown";

export interface Pending {
  text: string;
  reply: string;
}

/** An exchange stopped before its reply completed: the server did not store it; the page keeps it after turn afterSeq. */
export interface Stopped extends Pending {
  afterSeq: number;
}

function StoppedView({ s }: { s: Stopped }) {
  return (
    <div className="stopped-exchange" data-testid="stopped-exchange">
      <div className="turn user">
        <article className="msg user">{s.text}</article>
      </div>
      <div className="turn assistant">
        <article className="msg assistant stopped" data-testid="stopped-reply">
          {s.reply ? <Markdown text={s.reply} /> : <span className="muted">(no reply yet)</span>}
        </article>
        <div className="msg-meta shown">
          <span className="badge warn">Stopped</span> <span>not saved: the server keeps a reply only once it completes; this page shows it until you leave.</span>
        </div>
      </div>
    </div>
  );
}

const NEAR = 80;
/** How close to the top (px) scrolling asks for older turns. */
const TOP = 600;
const VIRTUAL_FROM = 40;

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

function CopyButton({ text }: { text: string }) {
  const [done, setDone] = useState(false);
  return (
    <button
      type="button"
      className="icon-btn"
      aria-label="Copy message"
      onClick={async () => {
        try {
          await navigator.clipboard.writeText(text);
          setDone(true);
          setTimeout(() => setDone(false), 1500);
        } catch {
          toast.error("The browser refused access to the clipboard.");
        }
      }}
    >
      {done ? <Check size={14} aria-hidden /> : <Copy size={14} aria-hidden />}
    </button>
  );
}

/**
 * One message with its actions. Memoised on the turn and a few flags: the
 * thread re-renders on every scroll frame (the virtualiser's window moves),
 * and a message already on screen must then cost nothing.
 */
const TurnView = memo(function TurnView({
  turn: t,
  focus,
  dim,
  busy,
  onRetry,
  onFork,
}: {
  turn: Turn;
  focus?: boolean;
  dim: boolean;
  busy: boolean;
  onRetry?: (t: Turn) => void;
  onFork?: (t: Turn) => void;
}) {
  const when = turnTime(t.created_at);
  return (
    <div className={`turn ${t.role}`}>
      <div className="turn-col">
        <article className={`msg ${t.role}${dim ? " dim" : ""}${focus ? " focus" : ""}`} data-seq={t.sequence_number} aria-label={`${t.role} message ${t.sequence_number}`} data-testid={`turn-${t.role}`}>
          {t.role === "assistant" ? <Markdown text={t.content} /> : t.content}
        </article>
        <div className="msg-meta">
          <Tip label={when.full}>
            <time dateTime={t.created_at} tabIndex={0}>
              {when.clock}
            </time>
          </Tip>
          {t.role === "assistant" && (
            <span>
              · {t.provider}/{t.model}
            </span>
          )}
          <CopyButton text={t.content} />
          {t.role === "user" && onRetry && (
            <button type="button" className="icon-btn" aria-label="Send this message again" onClick={() => onRetry(t)} disabled={busy}>
              <RotateCcw size={14} aria-hidden />
            </button>
          )}
          {onFork && (
            <button type="button" className="icon-btn" aria-label={`Fork from message ${t.sequence_number}`} onClick={() => onFork(t)}>
              <GitFork size={14} aria-hidden />
            </button>
          )}
        </div>
      </div>
    </div>
  );
});

/**
 * The conversation: virtualised (only the messages in view are in the
 * DOM), opened at the newest message, following new ones while the reader
 * is at the bottom; scrolled up, it stays put and offers "Jump to latest".
 */
export function Thread({
  turns,
  pending,
  stopped,
  onStop,
  onRetry,
  onFork,
  isDim,
  dividerAfter,
  empty,
  hasOlder,
  loadingOlder,
  onReachTop,
  focusSeq,
}: {
  turns: Turn[];
  pending: Pending | null;
  stopped?: Stopped[];
  onStop?: () => void;
  onRetry?: (t: Turn) => void;
  onFork?: (t: Turn) => void;
  isDim?: (t: Turn) => boolean;
  dividerAfter?: (t: Turn, i: number) => ReactNode;
  empty?: ReactNode;
  /** Older turns exist above the first one given: scrolling near the top calls onReachTop. */
  hasOlder?: boolean;
  loadingOlder?: boolean;
  onReachTop?: () => void;
  /** Open at this turn (by sequence number), marked, instead of at the newest. */
  focusSeq?: number | null;
}) {
  const scroller = useRef<HTMLDivElement>(null);
  const [atBottom, setAtBottom] = useState(true);
  const focusAt = focusSeq != null ? turns.findIndex((t) => t.sequence_number === focusSeq) : -1;
  const follow = useRef(focusSeq == null);
  const count = turns.length;
  // The page passes new callbacks on each of its renders (every streamed
  // delta); the rows get stable ones that call the latest.
  const latest = useRef({ onRetry, onFork, onReachTop, hasOlder });
  latest.current = { onRetry, onFork, onReachTop, hasOlder };
  const retry = useCallback((t: Turn) => latest.current.onRetry?.(t), []);
  const fork = useCallback((t: Turn) => latest.current.onFork?.(t), []);
  const v = useVirtualizer({
    count,
    getScrollElement: () => scroller.current,
    estimateSize: (i) => (turns[i]?.role === "user" ? 72 : 140),
    overscan: 6,
    getItemKey: (i) => turns[i]?.id ?? i,
    initialRect: { width: 800, height: 800 },
  });

  const toBottom = useCallback((smooth = false) => {
    const el = scroller.current;
    if (!el) return;
    if (smooth && typeof el.scrollTo === "function") el.scrollTo({ top: el.scrollHeight, behavior: "smooth" });
    else el.scrollTop = el.scrollHeight;
  }, []);

  // Open at the newest message, then keep following while at the bottom.
  // Sizes are measured as rows render, so the jump is repeated on the next
  // frames until the height settles.
  const total = v.getTotalSize();
  useLayoutEffect(() => {
    if (!follow.current) return;
    if (count > VIRTUAL_FROM) v.scrollToIndex(count - 1, { align: "end" });
    toBottom();
    const raf = requestAnimationFrame(() => follow.current && toBottom());
    return () => cancelAnimationFrame(raf);
  }, [count, total, pending?.reply, pending?.text, v, toBottom]);

  // Older turns put above the first one keep the message in view where it
  // was: the scroll position moves down by the height they added.
  const firstKey = turns[0]?.id;
  const shape = useRef({ firstKey, height: 0 });
  useLayoutEffect(() => {
    const el = scroller.current;
    const was = shape.current;
    if (el && was.firstKey && firstKey !== was.firstKey && !follow.current && turns.some((t) => t.id === was.firstKey)) {
      el.scrollTop += el.scrollHeight - was.height;
    }
  }, [firstKey, turns]);

  // Opened at a given turn: scrolled to it once it is there.
  const focused = useRef(false);
  useLayoutEffect(() => {
    if (focused.current || focusAt < 0) return;
    focused.current = true;
    if (count > VIRTUAL_FROM) v.scrollToIndex(focusAt, { align: "center" });
    else scroller.current?.querySelector(`[data-index="${focusAt}"]`)?.scrollIntoView?.({ block: "center" });
  }, [focusAt, count, v]);

  // A long thread's older replies are rendered ahead, while the browser is
  // idle, so scrolling back through them does not parse markdown.
  useEffect(() => {
    if (count <= VIRTUAL_FROM) return;
    return warmMarkdown(turns.filter((t) => t.role === "assistant").map((t) => t.content));
  }, [turns, count]);

  useEffect(() => {
    const el = scroller.current;
    if (!el) return;
    const onScroll = () => {
      const near = el.scrollHeight - el.scrollTop - el.clientHeight < NEAR;
      follow.current = near;
      setAtBottom(near);
      if (el.scrollTop < TOP && latest.current.hasOlder) latest.current.onReachTop?.();
    };
    el.addEventListener("scroll", onScroll, { passive: true });
    return () => el.removeEventListener("scroll", onScroll);
  }, []);

  // Remembered after every render, for the next prepend.
  useLayoutEffect(() => {
    shape.current = { firstKey, height: scroller.current?.scrollHeight ?? 0 };
  });

  // Short threads render every message; long ones only those in view.
  const virtual = count > VIRTUAL_FROM;
  const items = virtual ? v.getVirtualItems() : turns.map((t, i) => ({ index: i, key: t.id, start: 0 }));
  return (
    <Tooltip.Provider delayDuration={300}>
    <div className="thread-wrap">
      <div className="thread" ref={scroller} data-testid="thread">
        {hasOlder && (
          <div className="muted small older-turns" role="status">
            {loadingOlder ? "Loading earlier messages…" : (
              <button type="button" className="small" onClick={() => onReachTop?.()}>
                Load earlier messages
              </button>
            )}
          </div>
        )}
        <section className="thread-inner" aria-label="Conversation" style={{ height: virtual ? total : undefined, position: "relative" }}>
          {count === 0 && !pending && !stopped?.length && empty}
          {items.map((row) => {
            const t = turns[row.index];
            return (
              <div
                key={row.key}
                data-index={row.index}
                className={virtual ? "row-v" : undefined}
                ref={virtual ? v.measureElement : undefined}
                style={virtual ? { transform: `translateY(${row.start}px)` } : undefined}
              >
                <TurnView turn={t} focus={row.index === focusAt} dim={isDim?.(t) ?? false} busy={!!pending} onRetry={onRetry ? retry : undefined} onFork={onFork ? fork : undefined} />
                {dividerAfter?.(t, row.index)}
                {stopped?.filter((s) => s.afterSeq === t.sequence_number).map((s, k) => <StoppedView key={k} s={s} />)}
              </div>
            );
          })}
        </section>
        {!!stopped?.length && (
          <div className="thread-inner">
            {stopped
              .filter((s) => !turns.some((t) => t.sequence_number === s.afterSeq))
              .map((s, k) => (
                <StoppedView key={k} s={s} />
              ))}
          </div>
        )}
        {pending && (
          <div className="thread-inner" aria-live="polite">
            <div className="turn user">
              <article className="msg user">{pending.text}</article>
            </div>
            <div className="turn assistant">
              <article className="msg assistant" aria-busy="true" data-testid="streaming-reply">
                {pending.reply ? <Markdown text={pending.reply} /> : <span className="muted">Thinking…</span>}
                <span className="cursor" aria-hidden />
              </article>
              {onStop && (
                <div className="msg-meta shown">
                  <button type="button" onClick={onStop}>
                    <Square size={12} aria-hidden /> Stop generating
                  </button>
                </div>
              )}
            </div>
          </div>
        )}
      </div>
      {!atBottom && (
        <button
          type="button"
          className="jump"
          onClick={() => {
            follow.current = true;
            setAtBottom(true);
            toBottom(true);
          }}
        >
          <ArrowDown size={14} aria-hidden /> Jump to latest
        </button>
      )}
    </div>
    </Tooltip.Provider>
  );
}
