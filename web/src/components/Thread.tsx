import { useCallback, useEffect, useLayoutEffect, useMemo, useRef, useState, type KeyboardEvent, type ReactNode } from "react";
import { useVirtualizer } from "@tanstack/react-virtual";
import * as Tooltip from "@radix-ui/react-tooltip";
import { ArrowDown, Square } from "lucide-react";
import type { Turn } from "../api";
import { Markdown, warmMarkdown } from "./Markdown";
import { TurnView, type TurnActions } from "./TurnView";

export { turnTime } from "./TurnView";

export interface Pending {
  text: string;
  reply: string;
}

const NEAR = 80;
/** How close to the top (px) scrolling asks for older turns. */
const TOP = 600;
const VIRTUAL_FROM = 40;
/** Estimated row heights (px) until a row is measured. */
const USER_ROW = 72;
const ASSISTANT_ROW = 140;
/** The scroller's size assumed until it is measured. */
const INITIAL_RECT = { width: 800, height: 800 };
/** Keys that move the thread's roving focus from message to message. */
const MOVES: Record<string, (i: number, n: number) => number> = {
  ArrowDown: (i, n) => Math.min(n - 1, i + 1),
  ArrowUp: (i) => Math.max(0, i - 1),
  Home: () => 0,
  End: (_, n) => n - 1,
};

/**
 * The conversation: virtualised (only the messages in view are in the
 * DOM), opened at the newest message, following new ones while the reader
 * is at the bottom; scrolled up, it stays put and offers "Jump to latest".
 */
export function Thread({
  turns,
  pending,
  onStop,
  actions = {},
  outside,
  dividerBefore,
  dividerAfter,
  empty,
  hasOlder,
  loadingOlder,
  onReachTop,
  focusSeq,
}: {
  turns: Turn[];
  pending: Pending | null;
  onStop?: () => void;
  /** What a message offers: send again, edit as a branch, regenerate, fork. */
  actions?: TurnActions;
  /** Why the model does not see a turn (null when it does). */
  outside?: (t: Turn) => string | null;
  dividerBefore?: (t: Turn, i: number) => ReactNode;
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
  const latest = useRef({ actions, onReachTop, hasOlder });
  latest.current = { actions, onReachTop, hasOlder };
  const has = (k: keyof TurnActions) => !!actions[k];
  const stable: TurnActions = useMemo(() => {
    const a: TurnActions = {};
    const call =
      <K extends keyof TurnActions>(k: K) =>
      (...args: unknown[]) =>
        (latest.current.actions[k] as ((...x: unknown[]) => unknown) | undefined)?.(...args);
    if (has("onRetry")) a.onRetry = call("onRetry");
    if (has("onEdit")) a.onEdit = call("onEdit");
    if (has("canEdit")) a.canEdit = call("canEdit") as (t: Turn) => boolean;
    if (has("onRegenerate")) a.onRegenerate = call("onRegenerate");
    if (has("onFork")) a.onFork = call("onFork");
    if (has("canFork")) a.canFork = call("canFork") as (t: Turn) => boolean;
    return a;
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [has("onRetry"), has("onEdit"), has("canEdit"), has("onRegenerate"), has("onFork"), has("canFork")]);
  // Roving focus: one message is the thread's tab stop (the newest unless
  // the reader moved), the arrow keys move between messages and, sideways,
  // through a message's actions.
  const [active, setActive] = useState<number | null>(null);
  const tabAt = active != null && active < count ? active : focusAt >= 0 ? focusAt : count - 1;
  // Until the thread's first frame is on screen, it renders the rows in
  // view and one more either side; the others of the overscan come after.
  const [painted, setPainted] = useState(false);
  useEffect(() => {
    if (painted || count <= VIRTUAL_FROM) return;
    const raf = requestAnimationFrame(() => setPainted(true));
    return () => cancelAnimationFrame(raf);
  }, [painted, count]);
  const estimateSize = (i: number) => (turns[i]?.role === "user" ? USER_ROW : ASSISTANT_ROW);
  const v = useVirtualizer({
    count,
    getScrollElement: () => scroller.current,
    estimateSize,
    overscan: painted ? 6 : 1,
    getItemKey: (i) => turns[i]?.id ?? i,
    initialRect: INITIAL_RECT,
    // Opened at the newest message, the first render already holds the
    // rows at the bottom (by their estimated heights), not those at the top.
    initialOffset: () => {
      if (!follow.current) return 0;
      let total = 0;
      for (let i = 0; i < count; i++) total += estimateSize(i);
      return Math.max(0, total - INITIAL_RECT.height);
    },
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

  const focusRow = useCallback(
    (i: number) => {
      setActive(i);
      const go = () => scroller.current?.querySelector<HTMLElement>(`[data-index="${i}"] article`)?.focus();
      if (count > VIRTUAL_FROM) {
        v.scrollToIndex(i, { align: "auto" });
        requestAnimationFrame(go);
      } else go();
    },
    [count, v],
  );
  function onKey(e: KeyboardEvent<HTMLElement>) {
    const el = e.target as HTMLElement;
    if (el.tagName === "TEXTAREA") return;
    const row = el.closest<HTMLElement>("[data-index]");
    if (!row) return;
    const i = Number(row.dataset.index);
    if (MOVES[e.key]) {
      e.preventDefault();
      focusRow(MOVES[e.key](i, count));
    } else if (e.key === "ArrowRight" || e.key === "ArrowLeft") {
      const stops = [row.querySelector<HTMLElement>("article"), ...row.querySelectorAll<HTMLElement>(".code-copy, .msg-meta button:not([disabled])")].filter(
        (x): x is HTMLElement => !!x,
      );
      const at = stops.indexOf(el);
      const next = stops[Math.max(0, Math.min(stops.length - 1, at + (e.key === "ArrowRight" ? 1 : -1)))];
      if (next) {
        e.preventDefault();
        next.focus();
      }
    } else if (e.key === "Escape" && el.tagName === "BUTTON") {
      e.preventDefault();
      e.stopPropagation();
      focusRow(i);
    }
  }

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
        <section className="thread-inner" aria-label="Conversation" onKeyDown={onKey} style={{ height: virtual ? total : undefined, position: "relative" }}>
          {count === 0 && !pending && empty}
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
                {dividerBefore?.(t, row.index)}
                <TurnView
                  turn={t}
                  focus={row.index === focusAt}
                  outside={outside?.(t) ?? null}
                  busy={!!pending}
                  last={row.index === count - 1}
                  tabStop={row.index === tabAt}
                  actions={stable}
                  editable={actions.canEdit?.(t) ?? true}
                  forkable={actions.canFork?.(t) ?? true}
                />
                {dividerAfter?.(t, row.index)}
              </div>
            );
          })}
        </section>
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
