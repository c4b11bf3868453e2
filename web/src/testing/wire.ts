// Complete wire objects for tests: each builder fills every field the
// OpenAPI document requires with the value the server sends when there is
// nothing to say (null, [], ""), so a test names only what it is about and
// its fixtures stay the shape the server really sends.

import type {
  Checkpoint,
  ContextPreview,
  Draft,
  DraftChange,
  ItemChangeWire,
  ItemHistoryEntry,
  ItemOrigin,
  ItemSource,
  ItemView,
  MergePreview,
  Turn,
} from "../api";

export const sourceOf = (p: Partial<ItemSource> = {}): ItemSource => ({ session_id: null, from_seq: null, to_seq: null, quote: null, ...p });

export const originOf = (p: Partial<ItemOrigin> = {}): ItemOrigin => ({ ...sourceOf(), checkpoint_id: null, author_agent: null, model: null, ...p });

export const itemChangeOf = (p: Pick<ItemChangeWire, "op"> & Partial<Omit<ItemChangeWire, "source">> & { source?: Partial<ItemSource> }): ItemChangeWire => ({
  before: null,
  by: null,
  merge: null,
  reason: null,
  ...p,
  source: sourceOf(p.source ?? {}),
});

export const itemOf = (p: Pick<ItemView, "id" | "kind" | "text"> & Partial<Omit<ItemView, "origin">> & { origin?: Partial<ItemOrigin> }): ItemView => ({
  status: "open",
  change: null,
  refs: [],
  supersedes: [],
  version: null,
  // The server's key; a fixture keys an item by its text unless it says otherwise.
  key: p.key ?? p.text,
  ...p,
  origin: originOf(p.origin ?? {}),
});

export const changeOf = (p: Pick<DraftChange, "op" | "kind"> & Partial<Omit<DraftChange, "source">> & { source?: Partial<ItemSource> }): DraftChange => ({
  id: "",
  before: null,
  after: null,
  by: null,
  reason: null,
  before_key: p.before_key ?? p.before ?? null,
  after_key: p.after_key ?? p.after ?? null,
  ...p,
  source: sourceOf(p.source ?? {}),
});

export const turnOf = (p: Pick<Turn, "id" | "session_id" | "role" | "content" | "sequence_number"> & Partial<Turn>): Turn => ({
  provider: "mock",
  model: "mock",
  created_at: "2026-12-01T10:00:00Z",
  metadata: {},
  repo_id: null,
  ...p,
});

export const checkpointOf = (p: Pick<Checkpoint, "id"> & Partial<Checkpoint>): Checkpoint => ({
  repo_id: "r1",
  commit_hash: `${p.id}0000000000`,
  parent_commit_id: null,
  merge_parent_id: null,
  branch_name: "main",
  author_agent: null,
  author_type: "user",
  message: "",
  summary: "",
  objective: "",
  decisions: [],
  assumptions: [],
  tasks: [],
  open_questions: [],
  entities: [],
  artifacts: [],
  metadata: {},
  context_blob: {},
  project_root: null,
  raw_source_text: null,
  created_at: "2026-12-01T10:00:00Z",
  ...p,
});

export function draftOf(p: Partial<Draft>): Draft {
  const d: Draft = {
    title: "",
    objective: "",
    summary: "",
    decisions: [],
    assumptions: [],
    tasks: [],
    open_questions: [],
    entities: [],
    base_checkpoint_id: null,
    changes: [],
    items: [],
    chunks: 0,
    model: null,
    source_turns: null,
    warnings: [],
    proposed: { message: "", objective: "", summary: "", decisions: [], assumptions: [], tasks: [], open_questions: [], entities: [], artifacts: [] },
    ...p,
  };
  const { title, objective, summary, decisions, assumptions, tasks, open_questions, entities } = d;
  return p.proposed ? d : { ...d, proposed: { ...d.proposed, message: title, objective, summary, decisions, assumptions, tasks, open_questions, entities } };
}

export const historyEntryOf = (p: Pick<ItemHistoryEntry, "checkpoint_id" | "event" | "text"> & Partial<Omit<ItemHistoryEntry, "origin">> & { origin?: Partial<ItemOrigin> }): ItemHistoryEntry => ({
  commit_hash: `${p.checkpoint_id}0000000000`,
  branch_name: "main",
  created_at: "2026-12-01T10:00:00Z",
  merge: false,
  item_id: "",
  status: "open",
  version: null,
  ...p,
  change: itemChangeOf(p.change ?? { op: "add" }),
  origin: originOf(p.origin ?? {}),
});

export const previewOf = (p: Partial<ContextPreview>): ContextPreview => ({
  mode: "HEAD",
  provider: "mock",
  model: "mock",
  checkpoint_ids: [],
  checkpoints: [],
  turn_range: null,
  turn_count: 0,
  dropped_turns: 0,
  history_budget: 0,
  token_estimate: 0,
  messages: [],
  allowed_from_seq: 0,
  stopped_turns: [],
  exact_tokens: false,
  last_usage: null,
  mount: null,
  reply_tokens: 0,
  ...p,
});

export const mergePreviewOf = (p: Partial<MergePreview>): MergePreview => ({
  base_checkpoint_id: null,
  base_commit_hash: null,
  source_checkpoint_id: "src",
  source_commit_hash: "src0000000000",
  target_checkpoint_id: "tgt",
  target_commit_hash: "tgt0000000000",
  conflicts: [],
  items: [],
  removes: [],
  merged: { message: "", summary: "", objective: "", decisions: [], assumptions: [], tasks: [], open_questions: [], entities: [], artifacts: [] },
  ...p,
});
