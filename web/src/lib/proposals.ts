import { request, type Artifact, type Checkpoint, type ID, type ItemIn, type MergeConflict, type MergeResolution, type TaskWire } from "../api";

/** A draft saved for later (GET /api/v5/spaces/{id}/proposals). */
export interface Proposal {
  id: ID;
  repo_id: ID;
  session_id: ID | null;
  base_checkpoint_id: ID | null;
  branch_name: string;
  title: string;
  source: "hook" | "cli" | "mcp" | "web" | "api";
  status: "pending" | "accepted" | "rejected" | "superseded";
  objective: string;
  summary: string;
  decisions: string[];
  assumptions: string[];
  tasks: TaskWire[];
  open_questions: string[];
  entities: string[];
  checkpoint_id: ID | null;
  created_at: string;
  updated_at: string;
  decided_at: string | null;
  /** On a proposal a pull left: the items both copies changed (accepting takes the other copy's side of each). */
  conflicts?: MergeConflict[];
}

/** A PATCH: each field sent replaces the proposal's. */
export interface ProposalEdit {
  message?: string;
  summary?: string;
  objective?: string;
  decisions?: string[];
  assumptions?: string[];
  tasks?: TaskWire[];
  open_questions?: string[];
  entities?: string[];
}

/** A draft to keep for later (POST): a checkpoint's content, not committed. */
export interface ProposalSave extends ProposalEdit {
  message: string;
  session_id?: ID | null;
  source?: Proposal["source"];
  base_checkpoint_id?: ID;
  items?: ItemIn[];
  artifacts?: Artifact[];
}

const base = (space: ID) => `/api/v5/spaces/${space}/proposals`;

export const proposalsApi = {
  save: (space: ID, p: ProposalSave) => request<Proposal>("POST", base(space), p),
  list: (space: ID, status = "pending") => request<Proposal[]>("GET", `${base(space)}${status ? `?status=${status}` : ""}`),
  edit: (space: ID, id: ID, e: ProposalEdit) => request<Proposal>("PATCH", `${base(space)}/${id}`, e),
  accept: (space: ID, id: ID, resolutions: MergeResolution[] = []) =>
    request<{ proposal: Proposal; checkpoint: Checkpoint }>("POST", `${base(space)}/${id}/accept`, { resolutions }),
  reject: (space: ID, id: ID) => request<Proposal>("POST", `${base(space)}/${id}/reject`),
};

/** The lists a reviewer goes through item by item, in the order shown. */
export const REVIEW_LISTS = [
  { field: "decisions", label: "Decisions" },
  { field: "assumptions", label: "Assumptions" },
  { field: "tasks", label: "Tasks" },
  { field: "open_questions", label: "Open questions" },
  { field: "entities", label: "Entities" },
] as const;

export type ReviewField = (typeof REVIEW_LISTS)[number]["field"];

export const taskText = (t: TaskWire) => (typeof t === "string" ? t : t.text);

/**
 * The edit that drops the items a reviewer unticked: only the lists that
 * lost an item are sent (null when nothing was dropped).
 */
export function editDropping(p: Proposal, dropped: Set<string>): ProposalEdit | null {
  const e: ProposalEdit = {};
  let any = false;
  for (const { field } of REVIEW_LISTS) {
    const list = p[field] as (string | TaskWire)[];
    const kept = list.filter((_, i) => !dropped.has(`${field}:${i}`));
    if (kept.length !== list.length) {
      (e as Record<string, unknown>)[field] = kept;
      any = true;
    }
  }
  return any ? e : null;
}
