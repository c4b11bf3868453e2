// The API client: same-origin fetch, JSON bodies always sent with
// Content-Type: application/json, errors turned into ApiError with the
// server's detail.

import type {
  ContextInfo,
  Checkpoint,
  CommitBody,
  CompareResponse,
  ContextPack,
  ContextPreview,
  Claim,
  Disposition,
  Draft,
  Fork,
  Head,
  ID,
  ItemHistory,
  LineageTree,
  LoginResult,
  Me,
  MergeCommitted,
  MergePreview,
  MergeRequest,
  NextBase,
  Note,
  ProvidersStatus,
  Review,
  SearchGroupsResponse,
  SearchResponse,
  SendBody,
  SendResponse,
  Session,
  Space,
  TaskWire,
  Turn,
  Verification,
} from "./wire";

export type * from "./wire";

/** The notes a checkpoint carries under metadata.notes, oldest first; malformed entries are skipped. */
export function notesOf(c: Pick<Checkpoint, "id" | "metadata">): Note[] {
  const raw = c.metadata?.notes;
  if (!Array.isArray(raw)) return [];
  const out: Note[] = [];
  for (const n of raw) {
    if (!n || typeof n !== "object") continue;
    const o = n as Record<string, unknown>;
    if (typeof o.text !== "string") continue;
    out.push({
      id: typeof o.id === "string" ? o.id : `${out.length}`,
      checkpoint_id: typeof o.checkpoint_id === "string" ? o.checkpoint_id : c.id,
      author: typeof o.author === "string" ? o.author : "",
      text: o.text,
      kind: typeof o.kind === "string" && o.kind ? o.kind : "note",
      created_at: typeof o.created_at === "string" ? o.created_at : "",
    });
  }
  return out;
}

/** Tools a checkpoint can be exported for as a context pack. */
export const PACK_TARGETS = ["generic", "claude", "cursor", "chatgpt", "agents_md"] as const;
export type PackTarget = (typeof PACK_TARGETS)[number];

export interface DeleteDependents {
  message: string;
  dependents: {
    child_commits: { id: ID; label: string }[];
    forked_sessions: { id: ID; label: string }[];
    blocking_count: number;
  };
}

export class ApiError extends Error {
  status: number;
  detail: unknown;
  /** The whole error body (a 409 on a save carries conflicts beside detail). */
  body: unknown;
  constructor(message: string, status: number, detail: unknown, body: unknown = undefined) {
    super(message);
    this.status = status;
    this.detail = detail;
    this.body = body;
  }
}

const LOGIN_PATH = "/api/v4/auth/login";
const unauthorizedListeners = new Set<() => void>();

/**
 * Calls fn whenever an API request answers 401 (no session, or it
 * expired), except the sign-in request itself. Returns the unsubscribe.
 */
export function onUnauthorized(fn: () => void): () => void {
  unauthorizedListeners.add(fn);
  return () => {
    unauthorizedListeners.delete(fn);
  };
}

const reachListeners = new Set<(up: boolean) => void>();
let reachable = true;

/** Calls fn(false) when a request cannot reach the server and fn(true) when one reaches it again. */
export function onReachability(fn: (up: boolean) => void): () => void {
  reachListeners.add(fn);
  return () => {
    reachListeners.delete(fn);
  };
}
function noteUnreachable() {
  if (!reachable) return;
  reachable = false;
  for (const fn of [...reachListeners]) fn(false);
}
function noteReachable() {
  if (reachable) return;
  reachable = true;
  for (const fn of [...reachListeners]) fn(true);
}

/** Asks /health; true when the server answers. */
export async function ping(): Promise<boolean> {
  try {
    const r = await fetch("/health", { credentials: "same-origin" });
    if (r.ok) noteReachable();
    return r.ok;
  } catch {
    return false;
  }
}

function noteStatus(path: string, status: number) {
  if (status === 401 && path !== LOGIN_PATH) for (const fn of [...unauthorizedListeners]) fn();
}

function messageOf(detail: unknown, status: number): string {
  if (typeof detail === "string") return detail;
  if (detail && typeof detail === "object" && "message" in detail && typeof (detail as { message: unknown }).message === "string") {
    return (detail as { message: string }).message;
  }
  return `HTTP ${status}`;
}

export async function request<T>(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<T> {
  const init: RequestInit = { method, headers: { Accept: "application/json", ...headers }, credentials: "same-origin" };
  if (body !== undefined) {
    init.body = JSON.stringify(body);
    (init.headers as Record<string, string>)["Content-Type"] = "application/json";
  }
  let resp: Response;
  try {
    resp = await fetch(path, init);
  } catch (e) {
    if ((e as Error).name === "AbortError") throw e;
    noteUnreachable();
    throw new ApiError("The Smriti server cannot be reached (is `smriti serve` running?).", 0, null);
  }
  noteReachable();
  noteStatus(path, resp.status);
  if (resp.status === 204) return undefined as T;
  const text = await resp.text();
  let data: unknown = undefined;
  if (text) {
    try {
      data = JSON.parse(text);
    } catch {
      data = text;
    }
  }
  if (!resp.ok) {
    const detail = data && typeof data === "object" && "detail" in data ? (data as { detail: unknown }).detail : data;
    throw new ApiError(messageOf(detail, resp.status), resp.status, detail, data);
  }
  return data as T;
}

const get = <T,>(p: string) => request<T>("GET", p);
const post = <T,>(p: string, b: unknown) => request<T>("POST", p, b);

async function text(path: string): Promise<string> {
  const resp = await fetch(path, { headers: { Accept: "text/markdown" }, credentials: "same-origin" });
  noteStatus(path, resp.status);
  if (!resp.ok) {
    let detail: unknown = `HTTP ${resp.status}`;
    try {
      detail = (await resp.json()).detail;
    } catch {
      /* not JSON */
    }
    throw new ApiError(messageOf(detail, resp.status), resp.status, detail);
  }
  return resp.text();
}

export const SEARCH_KINDS = ["checkpoint", "turn", "note"] as const;
export type SearchKind = (typeof SEARCH_KINDS)[number];

export interface SearchParams {
  q: string;
  space_id?: ID;
  kind?: SearchKind;
  branch?: string;
  limit?: number;
}

export function searchPath(p: SearchParams): string {
  const qs = new URLSearchParams({ q: p.q });
  if (p.space_id) qs.set("space_id", p.space_id);
  if (p.kind) qs.set("kind", p.kind);
  if (p.branch) qs.set("branch", p.branch);
  if (p.limit !== undefined) qs.set("limit", String(p.limit));
  return `/api/v5/search?${qs.toString()}`;
}

/** The grouped search's address: one result per item. */
export const searchGroupedPath = (p: SearchParams) => searchPath(p).replace("/api/v5/search?", "/api/v5/search/grouped?");

export const api = {
  me: () => get<Me>("/api/v4/auth/me"),
  login: (username: string, password: string) => post<LoginResult>(LOGIN_PATH, { username, password }),
  logout: () => request<void>("POST", "/api/v4/auth/logout"),
  search: (p: SearchParams) => get<SearchResponse>(searchPath(p)),
  searchGrouped: (p: SearchParams) => get<SearchGroupsResponse>(searchGroupedPath(p)),
  brief: (space: ID) => text(`/api/v5/spaces/${space}/brief`),
  claims: (space: ID) => get<Claim[]>(`/api/v5/claims?space_id=${space}&include_expired=true`),
  spaces: () => get<Space[]>("/api/v2/repos"),
  space: (id: ID) => get<Space>(`/api/v2/repos/${id}`),
  createSpace: (name: string, description = "") => post<Space>("/api/v2/repos", { name, description }),
  deleteSpace: (id: ID) => request<void>("DELETE", `/api/v2/repos/${id}`),
  head: (space: ID) => get<Head>(`/api/v4/chat/spaces/${space}/head`),
  nextBase: (space: ID, session?: ID) => get<NextBase>(`/api/v5/spaces/${space}/next-base${session ? `?session_id=${session}` : ""}`),
  sessions: () => get<Session[]>("/api/v4/chat/sessions"),
  session: (id: ID) => get<Session>(`/api/v4/chat/sessions/${id}`),
  createSession: (space: ID, title: string, provider: string, model: string, seedFrom = "head") =>
    post<Session>(`/api/v4/chat/spaces/${space}/sessions`, { title, provider, model, seed_from: seedFrom }),
  /** Mounts a checkpoint on the session; without a base only what is typed from now on reaches the model. */
  mount: (session: ID, checkpoint: ID, historyBaseSeq?: number) =>
    request<Session>("PUT", `/api/v5/chat/sessions/${session}/mount`, {
      checkpoint_id: checkpoint,
      ...(historyBaseSeq !== undefined ? { history_base_seq: historyBaseSeq } : {}),
    }),
  unmount: (session: ID) => request<Session>("DELETE", `/api/v5/chat/sessions/${session}/mount`),
  /** One page of a session's turns in order: those after sequence number `after` (-1: from the first), at most `limit` (1–1000). */
  turns: (id: ID, after = -1, limit = 1000) => get<Turn[]>(`/api/v4/chat/sessions/${id}/turns?after=${after}&limit=${limit}`),
  providers: () => get<ProvidersStatus>("/api/v4/chat/providers"),
  context: (body: SendBody) => post<ContextPreview>("/api/v5/chat/context", body),
  draft: (body: { session_id: ID }) =>
    post<Draft>("/api/v5/checkpoint/draft", body),
  commit: (body: CommitBody) => post<Checkpoint>("/api/v4/chat/commit", body),
  checkpoint: (id: ID) => get<Checkpoint>(`/api/v2/commits/${id}`),
  /** The checkpoint with its items view (the state with ids). */
  checkpointItems: (id: ID) => get<Checkpoint>(`/api/v2/commits/${id}?items=true`),
  itemHistory: (space: ID, item: string) => get<ItemHistory>(`/api/v5/spaces/${space}/items/${encodeURIComponent(item)}`),
  title: (session: ID) => request<Session>("POST", `/api/v4/chat/sessions/${session}/title`),
  checkpoints: (space: ID) => get<Checkpoint[]>(`/api/v2/repos/${space}/commits?limit=500`),
  deleteCheckpoint: (id: ID, cascade: boolean) => request<void>("DELETE", `/api/v2/commits/${id}?cascade=${cascade}`),
  review: (id: ID) =>
    post<Review>(`/api/v5/checkpoint/${id}/review`, {}),
  addNote: (id: ID, text: string, kind: string) => post<Note>(`/api/v5/checkpoint/${id}/notes`, { text, kind, author: "web" }),
  contextPack: (commit: ID, target: PackTarget) => post<ContextPack>("/api/v2/context/from-commit", { commit_id: commit, target }),
  verify: (id: ID) => get<Verification>(`/api/v5/checkpoints/${id}/verify`),
  reachable: (session: ID) => get<Checkpoint[]>(`/api/v5/lineage/sessions/${session}/checkpoints`),
  tree: (space: ID) => get<LineageTree>(`/api/v5/lineage/spaces/${space}`),
  compare: (a: ID, b: ID) => get<CompareResponse>(`/api/v5/lineage/checkpoints/${a}/compare/${b}`),
  fork: (space: ID, checkpoint: ID, branch: string) =>
    post<Fork>("/api/v5/lineage/sessions/fork", {
      space_id: space,
      checkpoint_id: checkpoint,
      branch_name: branch,
    }),
  disposition: (space: ID, branch: string, disposition: string) =>
    request<Disposition>("PATCH", "/api/v5/lineage/branches/disposition", { space_id: space, branch_name: branch, disposition }),
  mergePreview: (body: MergeRequest) => post<MergePreview>("/api/v5/lineage/merge", { ...body, dry_run: true }),
  merge: (body: MergeRequest) => post<MergeCommitted>("/api/v5/lineage/merge", { ...body, dry_run: false }),
};

export interface StreamHandlers {
  onMeta?: (meta: { provider: string; model: string; context: ContextInfo }) => void;
  onDelta: (text: string) => void;
}

/**
 * Sends a message through the streaming endpoint. The same idempotency key
 * must be passed when the caller retries a failed send, so the server never
 * stores the exchange twice.
 */
export async function sendStream(body: SendBody, idempotencyKey: string, h: StreamHandlers, signal?: AbortSignal): Promise<SendResponse> {
  const resp = await fetch("/api/v5/chat/send/stream", {
    method: "POST",
    headers: { "Content-Type": "application/json", Accept: "text/event-stream", "Idempotency-Key": idempotencyKey },
    body: JSON.stringify(body),
    signal,
    credentials: "same-origin",
  });
  noteStatus("/api/v5/chat/send/stream", resp.status);
  if (!resp.ok || !resp.body) {
    let detail: unknown = `HTTP ${resp.status}`;
    try {
      detail = (await resp.json()).detail;
    } catch {
      /* not JSON */
    }
    throw new ApiError(messageOf(detail, resp.status), resp.status, detail);
  }
  const reader = resp.body.getReader();
  const dec = new TextDecoder();
  let buf = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buf += dec.decode(value, { stream: true });
    let i: number;
    while ((i = buf.indexOf("\n\n")) >= 0) {
      const block = buf.slice(0, i);
      buf = buf.slice(i + 2);
      let event = "message";
      let data = "";
      for (const line of block.split("\n")) {
        if (line.startsWith("event: ")) event = line.slice(7);
        else if (line.startsWith("data: ")) data += line.slice(6);
      }
      if (!data) continue;
      const payload = JSON.parse(data);
      if (event === "meta") h.onMeta?.(payload);
      else if (event === "delta") h.onDelta(payload.text);
      else if (event === "done") return payload as SendResponse;
      else if (event === "error") throw new ApiError(messageOf(payload.detail, payload.status), payload.status, payload.detail);
    }
  }
  throw new ApiError("The reply stream ended early", 502, null);
}

export function newKey(): string {
  if (typeof crypto !== "undefined" && "randomUUID" in crypto) return crypto.randomUUID();
  return Math.random().toString(16).slice(2) + Date.now().toString(16);
}

export const short = (hash: string | null | undefined) => (hash ? hash.slice(0, 7) : "");

export function taskText(t: TaskWire): string {
  return typeof t === "string" ? t : t.text;
}

/** A task's blockers as a list, whichever form the server sent. */
export function blockersOf(b: string | string[] | null | undefined): string[] {
  const xs = Array.isArray(b) ? b : typeof b === "string" ? [b] : [];
  return xs.map((x) => (typeof x === "string" ? x.trim() : "")).filter(Boolean);
}

export function relTime(iso: string, now = Date.now()): string {
  const d = (now - new Date(iso).getTime()) / 1000;
  if (d < 60) return "just now";
  if (d < 3600) return `${Math.floor(d / 60)}m ago`;
  if (d < 86400) return `${Math.floor(d / 3600)}h ago`;
  if (d < 86400 * 7) return `${Math.floor(d / 86400)}d ago`;
  return new Date(iso).toLocaleDateString();
}
