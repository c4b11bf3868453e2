// The wire types of the web workspace: every one is a name for a schema of
// the server's OpenAPI document, generated into api.gen.ts by
// scripts/web-types.sh. Nothing here is written by hand; a shape the server
// sends that has no schema belongs in the document, not here
// (scripts/check-wire-types.mjs holds this module to that).

import type { components, operations } from "./api.gen";

type S = components["schemas"];

export type ID = string;

export type Space = S["Repo"];
export type Session = S["SessionOut"];
export type SessionMount = S["SessionMount"];
/** A turn of a session; an assistant turn's metadata.stopped is true when its user stopped it. */
export type Turn = S["TurnOut"];
export type Head = S["Head"];
/** What the next checkpoint of a space (or of a session) builds on, as the server decides it. */
export type NextBase = S["NextBaseOut"];

/** A task as the API sends it: a plain string or a structured object. */
export type TaskWire = S["ContentOut"]["tasks"][number];
export type TaskObject = Exclude<TaskWire, string>;
export type Artifact = S["Artifact"];
export type Checkpoint = S["Commit"];

/** Item kinds of the state model; ids are prefix + 6 hex, e.g. d-7f3a9c. */
export type ItemKind = S["ItemOut"]["kind"];
export type ItemSource = S["ItemSource"];
export type ItemView = S["ItemOut"];
/** What a checkpoint (or draft, or history event) did to an item. */
export type ItemChangeWire = S["ItemChange"];
/** An item proposed when saving a checkpoint: its id keeps the item's identity when its text matches. */
export type ItemIn = S["ItemIn"];
export type ChangeOp = S["ItemChange"]["op"];
export type DraftChange = S["ChangeOut"];
/** One side's version of an item that a merge turned down; text null: that side had removed it. */
export type RejectedVersion = S["RejectedVersion"];
export type ItemOrigin = S["ItemOrigin"];
export type ItemHistoryEntry = S["ItemEventOut"];
export type ItemHistory = S["ItemHistoryOut"];
export type MergeRemove = S["MergeRemoval"];
export type Draft = S["DraftOut"];
export type Review = S["ReviewOut"];

export type ContextInfo = S["ContextInfo"];
export type ContextPreview = S["ContextPreview"];
export type ProviderStatus = S["ProviderStatus"];
export type BackgroundStatus = S["BackgroundStatus"];
export type ProvidersStatus = operations["get_v4_chat_providers"]["responses"][200]["content"]["application/json"];
/** The document marks a field with a default as required; the server fills in memory_scope when it is absent. */
export type SendBody = Omit<S["SendRequest"], "memory_scope"> & Partial<Pick<S["SendRequest"], "memory_scope">>;
export type SendResponse = S["SendResponse"];
export type CommitBody = S["CommitRequest"];

export type CheckpointNode = S["CheckpointNode"];
export type SessionNode = S["SessionNode"];
export type LineageTree = S["LineageTree"];
export type CompareResponse = S["CompareResponse"];
export type Fork = S["ForkResponse"];
export type Disposition = S["DispositionResponse"];
export type MergeConflict = S["MergeConflict"];
export type MergeResolution = S["MergeResolutionInput"];
export type MergePreview = S["MergePreview"];
export type MergeRequest = S["MergeRequest"];
export type MergeCommitted = S["MergeCommitted"];

export type Verification = S["Verification"];
/** One secret the server replaced before storing a text (a checkpoint's redactions, a turn's metadata.redactions). */
export type Redaction = S["Redaction"];
/** Where a project's code stood when a checkpoint was written (its metadata.git, all four fields present). */
export type GitState = Required<S["GitStateIn"]>;

/** A draft saved for later (GET /api/v5/spaces/{id}/proposals). */
export type Proposal = S["ProposalOut"];
/** A PATCH of a proposal: each field sent replaces the proposal's. */
export type ProposalEdit = S["ProposalEditRequest"];
/** A draft to keep for later (POST): a checkpoint's content, not committed. */
export type ProposalSave = S["ProposalRequest"];
export type ProposalAccepted = S["ProposalAccepted"];

export type Remote = S["RemoteOut"];
export type RemoteAdd = S["RemoteRequest"];
export type Divergence = S["DivergenceOut"];
export type FetchResult = S["FetchOut"];
export type PullResult = S["PullOut"];
export type PushResult = S["PushOut"];
export type SyncCounts = S["SyncCounts"];
export type Note = S["NoteOut"];
export type NoteBody = S["NoteRequest"];
export type ContextPack = S["ContextPack"];
export type Me = S["MeOut"];
export type LoginResult = S["LoginOut"];
export type Claim = S["ClaimOut"];

/** One search hit. The snippet marks matched words with <mark>…</mark>; the rest is NOT HTML-escaped. */
export type SearchHit = S["SearchHit"];
export type SearchResponse = S["SearchResponse"];
/** One result of a grouped search: an item with the checkpoints it lives in, or a single hit. */
export type SearchGroup = S["SearchGroup"];
export type SearchGroupsResponse = S["SearchGroupsResponse"];
