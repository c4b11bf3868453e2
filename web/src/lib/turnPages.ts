import { useCallback, useEffect, useMemo, useRef, useState } from "react";
import { useQuery, useQueryClient, type QueryClient } from "@tanstack/react-query";
import { api, type ID, type Turn } from "../api";
import { queryKeys } from "./queryKeys";

/** Turns a thread opens with, and loads each time the reader scrolls to the top. */
export const TURN_PAGE = 200;
/** The API's largest page. */
const MAX_PAGE = 1000;

/**
 * Every turn from sequence number `from` to the newest, page by page: the
 * API pages forward only (after a sequence number), and sequence numbers
 * run from 0 without gaps.
 */
export async function readFrom(sessionId: ID, from: number): Promise<Turn[]> {
  const out: Turn[] = [];
  let after = from - 1;
  for (;;) {
    const page = await api.turns(sessionId, after, MAX_PAGE);
    out.push(...page);
    if (page.length < MAX_PAGE) return out;
    after = page[page.length - 1].sequence_number;
  }
}

/**
 * The turns from sequence number `from` up to (not including) `before`,
 * page by page.
 */
export async function readRange(sessionId: ID, from: number, before: number): Promise<Turn[]> {
  const out: Turn[] = [];
  for (let after = from - 1; after < before - 1; ) {
    const page = await api.turns(sessionId, after, Math.min(MAX_PAGE, before - 1 - after));
    out.push(...page);
    if (page.length === 0) break;
    after = page[page.length - 1].sequence_number;
  }
  return out;
}

/** Where a thread's first page starts: the newest TURN_PAGE turns, or a little before the turn asked for. */
export function tailStart(turnCount: number, at?: number | null): number {
  const count = Math.max(0, Number(turnCount) || 0);
  if (at != null && at >= 0 && at < count) return Math.max(0, Math.min(at - 20, count - TURN_PAGE));
  return Math.max(0, count - TURN_PAGE);
}

/** The page just before sequence number `before`: at most TURN_PAGE turns, none when `before` is 0. */
export async function readOlder(sessionId: ID, before: number): Promise<Turn[]> {
  if (before <= 0) return [];
  const from = Math.max(0, before - TURN_PAGE);
  return api.turns(sessionId, from - 1, before - from);
}

/**
 * A thread's first page, asked for as the page loads (see prefetchThread),
 * and the page itself once it is in.
 */
let early: { sessionId: ID; at: number | null; page: Promise<{ start: number; turns: Turn[] }>; ready?: { start: number; turns: Turn[] } } | null = null;

/**
 * Asks for a thread's first page at once, beside the sign-in check and the
 * page's own code, instead of after both: App calls it for a /sessions/ID
 * address, with the page's query cache. The thread that opens that session takes it (once); a failed
 * read (signed out, unknown session) is ignored and the thread reads again.
 */
export function prefetchThread(sessionId: ID, at: number | null, qc?: QueryClient) {
  const page = api.session(sessionId).then(async (se) => {
    // The session itself warms the page's session query: the chat page
    // then renders as soon as its code is in.
    if (qc && qc.getQueryData(queryKeys.session(sessionId)) === undefined) qc.setQueryData(queryKeys.session(sessionId), se);
    const start = tailStart(se.turn_count, at);
    return { start, turns: await readFrom(sessionId, start) };
  });
  const entry: NonNullable<typeof early> = { sessionId, at, page };
  page.then((got) => (entry.ready = got), () => {});
  early = entry;
}

function takeEarly(sessionId: ID, at: number | null) {
  if (!early || early.sessionId !== sessionId || early.at !== at) return null;
  const { page } = early;
  early = null;
  return page;
}

/** The early page when it is already in, taken as takeEarly takes it: the thread then opens with it in its first render. */
function takeReady(sessionId: ID, at: number | null) {
  const ready = early && early.sessionId === sessionId && early.at === at ? early.ready : undefined;
  if (ready) early = null;
  return ready ?? null;
}

/**
 * A thread's turns: the newest page first (or the page around `at`), older
 * pages on demand. The query under ["turns", session] always rereads from
 * the same start to the newest turn, so a refetch (after a send, or when the
 * space's stream says the session changed) keeps every turn already shown
 * and adds the new ones; the older pages are kept beside it.
 */
export function useThreadTurns(sessionId: ID, at?: number | null) {
  const qc = useQueryClient();
  const start = useRef<number | null>(null);
  // The first page, when it came in before the page's code: the query
  // starts with it (fresh for the client's staleTime), so the thread's
  // first render holds the turns instead of a render later.
  const [seed] = useState(() => (qc.getQueryData(queryKeys.turns(sessionId)) === undefined ? takeReady(sessionId, at ?? null) : null));
  if (seed && start.current == null) start.current = seed.start;
  const tail = useQuery({
    queryKey: queryKeys.turns(sessionId),
    initialData: seed?.turns,
    queryFn: async () => {
      // The session's turn count, from the page's own session query when it
      // is in flight or fresh (one request, not two in a row). A count read
      // a moment earlier only starts the page a little further back.
      if (start.current == null) {
        const pre = takeEarly(sessionId, at ?? null);
        const got = pre && (await pre.catch(() => null));
        if (got && start.current == null) {
          start.current = got.start;
          return got.turns;
        }
        const se = await qc.fetchQuery({ queryKey: queryKeys.session(sessionId), queryFn: () => api.session(sessionId) });
        start.current = tailStart(se.turn_count, at);
      }
      return readFrom(sessionId, start.current);
    },
  });
  const [older, setOlder] = useState<Turn[]>([]);
  const [loadingOlder, setLoadingOlder] = useState(false);
  const busy = useRef(false);
  const turns = useMemo(() => {
    const t = tail.data ?? [];
    const lo = t.length ? t[0].sequence_number : Infinity;
    return older.length ? [...older.filter((x) => x.sequence_number < lo), ...t] : t;
  }, [tail.data, older]);
  const lowest = turns.length ? turns[0].sequence_number : (start.current ?? 0);
  // Opened at a turn older than the turns the cache already holds (the
  // thread was open at its newest before): the pages from a little before
  // that turn are read in, so the thread can open there.
  const reached = useRef(false);
  useEffect(() => {
    if (at == null || reached.current || !tail.isSuccess || !turns.length || lowest <= at) return;
    reached.current = true;
    void readRange(sessionId, Math.max(0, at - 20), lowest).then(
      (page) => setOlder((prev) => [...page.filter((x) => x.sequence_number < lowest && !prev.some((p) => p.sequence_number === x.sequence_number)), ...prev]),
      () => (reached.current = false),
    );
  }, [at, sessionId, lowest, tail.isSuccess, turns.length]);
  const hasOlder = tail.isSuccess && lowest > 0;
  const loadOlder = useCallback(async () => {
    if (busy.current || !hasOlder) return;
    busy.current = true;
    setLoadingOlder(true);
    try {
      const page = await readOlder(sessionId, lowest);
      setOlder((prev) => [...page.filter((x) => x.sequence_number < lowest), ...prev]);
    } finally {
      busy.current = false;
      setLoadingOlder(false);
    }
  }, [sessionId, lowest, hasOlder]);
  return { turns, query: tail, hasOlder, loadingOlder, loadOlder };
}
