import { request, type ID, type MergeResolution, type Proposal, type ProposalAccepted, type ProposalEdit, type ProposalSave, type TaskWire } from "../api";

export type { Proposal, ProposalEdit, ProposalSave } from "../api";

const base = (space: ID) => `/api/v5/spaces/${space}/proposals`;

export const proposalsApi = {
  save: (space: ID, p: ProposalSave) => request<Proposal>("POST", base(space), p),
  list: (space: ID, status = "pending") => request<Proposal[]>("GET", `${base(space)}${status ? `?status=${status}` : ""}`),
  edit: (space: ID, id: ID, e: ProposalEdit) => request<Proposal>("PATCH", `${base(space)}/${id}`, e),
  accept: (space: ID, id: ID, resolutions: MergeResolution[] = []) =>
    request<ProposalAccepted>("POST", `${base(space)}/${id}/accept`, { resolutions }),
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
