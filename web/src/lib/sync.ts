// Copies of a space on other servers: its remotes, and fetch, pull and push
// against them (the /api/v5/spaces/{id}/remotes routes), with the words the
// Remotes page shows for each answer and each refusal.

import { ApiError, relTime, request, short, type ID } from "../api";
import type { Divergence, FetchResult, PullResult, PushResult, Remote, RemoteAdd, SyncCounts } from "../api";

export type { Divergence, FetchResult, PullResult, PushResult, Remote, RemoteAdd, SyncCounts } from "../api";

const base = (space: ID) => `/api/v5/spaces/${space}/remotes`;
const one = (space: ID, name: string) => `${base(space)}/${encodeURIComponent(name)}`;

export const syncApi = {
  list: (space: ID) => request<Remote[]>("GET", base(space)),
  add: (space: ID, r: RemoteAdd) => request<Remote>("POST", base(space), r),
  remove: (space: ID, name: string) => request<void>("DELETE", one(space, name)),
  fetch: (space: ID, name: string) => request<FetchResult>("POST", `${one(space, name)}/fetch`),
  pull: (space: ID, name: string, branch = "main") => request<PullResult>("POST", `${one(space, name)}/pull`, { branch, on_conflict: "propose" }),
  push: (space: ID, name: string, branch = "main") => request<PushResult>("POST", `${one(space, name)}/push`, { branch }),
};

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/**
 * How a local branch stands against its remote-tracking head, in words:
 * "main is 2 ahead, 3 behind origin/main, fetched 4m ago".
 */
export function describeDivergence(d: Divergence, now = Date.now()): string {
  const theirs = `${d.remote}/${d.branch}`;
  let state: string;
  if (d.ahead === 0 && d.behind === 0) state = `is up to date with ${theirs}`;
  else if (d.behind === 0) state = `is ${d.ahead} ahead of ${theirs}`;
  else if (d.ahead === 0) state = `is ${d.behind} behind ${theirs}`;
  else state = `is ${d.ahead} ahead, ${d.behind} behind ${theirs}`;
  const when = d.fetched_at ? `fetched ${relTime(d.fetched_at, now)}` : "never fetched";
  return `${d.branch} ${state}, ${when}`;
}

/** What arrived or was stored, e.g. "2 checkpoints, 1 session and 6 turns" ("nothing new" when empty). */
export function describeCounts(c: SyncCounts): string {
  const parts: string[] = [];
  if (c.checkpoints) parts.push(plural(c.checkpoints, "checkpoint"));
  if (c.sessions) parts.push(plural(c.sessions, "session"));
  if (c.turns) parts.push(plural(c.turns, "turn"));
  if (parts.length === 0) return "nothing new";
  return parts.length === 1 ? parts[0] : `${parts.slice(0, -1).join(", ")} and ${parts[parts.length - 1]}`;
}

export function describeFetch(r: FetchResult): string {
  return `Fetched from ${r.remote}: ${describeCounts(r.staged)}. No local branch moved.`;
}

export function describePull(r: PullResult, remote: string, branch = "main"): string {
  const head = r.head ? short(r.head.commit_hash) : "";
  switch (r.outcome) {
    case "up_to_date":
      return `${branch} already has everything on ${remote}/${branch}.`;
    case "fast_forward":
      return `Fast-forwarded ${branch} to ${head} (${describeCounts(r.applied)}).`;
    case "merged":
      return `Merged ${remote}/${branch} into ${branch} as ${head}.`;
    case "merged_with_proposal":
      return `Merged ${remote}/${branch} into ${branch} as ${head}, keeping this copy's side of ${plural(r.conflicts.length, "item")} both copies changed. The other side waits in the inbox: review it item by item and accept it to take it.`;
    default:
      return `Pull: ${r.outcome}.`;
  }
}

export function describePush(r: PushResult, remote: string): string {
  if (r.outcome === "up_to_date") return `${remote}/${r.branch} is already at ${short(r.new_head)}.`;
  if (r.outcome === "proposed") return `Proposed ${r.branch} on ${remote}: it waits there for review.`;
  const from = r.old_head ? `${short(r.old_head)} → ` : "";
  return `Pushed ${r.branch} to ${remote}: ${from}${short(r.new_head)} (${describeCounts(r.stored)} stored there).`;
}

/** What to do next after a sync step failed: the action the page offers, and why. */
export interface SyncAdvice {
  /** The step to run next from the page, when there is one. */
  next: "pull" | "fetch" | null;
  /** The advice in words. */
  text: string;
}

/**
 * The advice for a failed fetch, pull or push: a push refused because the
 * remote moved (409) is pulled first; a remote that cannot be reached
 * (502/503, or this server gone) is checked and fetched again.
 */
export function adviceFor(step: "fetch" | "pull" | "push", e: unknown, remote: Pick<Remote, "name" | "url">): SyncAdvice {
  const status = e instanceof ApiError ? e.status : 0;
  if (status === 409 && step === "push")
    return { next: "pull", text: `Pull first: ${remote.name} has checkpoints this copy does not have yet. Pull them in (conflicts wait in the inbox), then push again.` };
  if (status === 409 && step === "pull")
    return { next: null, text: `Merge the other line first (see the lineage), then pull again.` };
  if (status === 502 || status === 503)
    return { next: "fetch", text: `${remote.name} (${remote.url}) cannot be reached or failed: check that its server is running and the address is right, then fetch again.` };
  if (status === 0) return { next: null, text: "This server cannot be reached: check that `smriti serve` is running, then try again." };
  return { next: null, text: "" };
}
