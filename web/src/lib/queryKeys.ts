// Every query key of the workspace, in one place: a page reads and a mutation
// or an event invalidates the same key because both ask this factory for it.
// A key is an array whose first element names the resource; a shorter key is
// the prefix of the longer ones (invalidating next-base(space) refreshes
// next-base(space, session) too). scripts/check-wire-types.mjs fails on a key
// written as a literal anywhere else.

import type { ID } from "../api";

type Opt = ID | null | undefined;

export const queryKeys = {
  spaces: () => ["spaces"] as const,
  space: (space: Opt) => ["space", space] as const,
  sessions: () => ["sessions"] as const,
  session: (session: Opt) => ["session", session] as const,
  turns: (session: Opt) => ["turns", session] as const,
  providers: () => ["providers"] as const,
  head: (space: Opt) => ["head", space] as const,
  /** Without a session: every next base of the space. */
  nextBase: (space: Opt, ...session: [] | [Opt]) => ["next-base", space, ...session] as const,
  checkpoints: (space: Opt) => ["checkpoints", space] as const,
  checkpoint: (id: Opt) => ["checkpoint", id] as const,
  checkpointItems: (id: Opt) => ["checkpoint-items", id] as const,
  verify: (id: Opt) => ["verify", id] as const,
  contextPack: (id: Opt, target: string) => ["context-pack", id, target] as const,
  /** Without a session: what every session reaches. */
  reachable: (...session: [] | [Opt]) => ["reachable", ...session] as const,
  tree: (space: Opt) => ["tree", space] as const,
  compare: (a: Opt, b: Opt) => ["compare", a, b] as const,
  mergePreview: (space: Opt, theirs: Opt, ours: Opt) => ["merge-preview", space, theirs, ours] as const,
  item: (space: Opt, item: string) => ["item", space, item] as const,
  proposals: (space: Opt) => ["proposals", space] as const,
  remotes: (space: Opt) => ["remotes", space] as const,
  /** The space's coordination state; its claims and brief sit under it. */
  state: (space: Opt) => ["state", space] as const,
  stateClaims: (space: Opt) => ["state", space, "claims"] as const,
  stateBrief: (space: Opt) => ["state", space, "brief"] as const,
  searchGrouped: (q: string, kind: string) => ["search-grouped", q, kind] as const,
  /** What the model would see on the next send, for the state the chat page shows. */
  contextView: (session: Opt, lastSeq: number, mounted: Opt, head: Opt, provider: string, model: string) =>
    ["context-view", session, lastSeq, mounted, head, provider, model] as const,
};
