import type { Checkpoint, DraftChange, ItemKind, TaskWire } from "../api";

/**
 * A change as the form shows it: a draft's change from the server, or one the
 * browser computed after a hand edit (which has no item id or source yet).
 */
export type ShownChange = Pick<DraftChange, "op" | "kind" | "before" | "after"> & { id: string | null; source: DraftChange["source"] | null };

/** The list fields of a checkpoint, the item kind each holds, and its label. */
export const LIST_FIELDS = [
  { field: "decisions", kind: "decision", label: "Decisions" },
  { field: "assumptions", kind: "assumption", label: "Assumptions" },
  { field: "tasks", kind: "task", label: "Tasks" },
  { field: "open_questions", kind: "open_question", label: "Open questions" },
  { field: "entities", kind: "entity", label: "Entities" },
] as const;
export type ListField = (typeof LIST_FIELDS)[number]["field"];

export const fieldOfKind = (k: ItemKind | null | undefined): ListField | null => LIST_FIELDS.find((f) => f.kind === k)?.field ?? null;
export const labelOfKind = (k: ItemKind | null | undefined) => LIST_FIELDS.find((f) => f.kind === k)?.label ?? "Items";

/** Text compared the way the server matches items: case, spacing and end punctuation ignored. */
export function norm(s: string): string {
  return s.toLowerCase().replace(/\s+/g, " ").replace(/[.!;:,]+$/, "").trim();
}

const words = (s: string) => new Set(norm(s).split(/[^\p{L}\p{N}]+/u).filter((w) => w.length > 1));
/** Word overlap (Jaccard) of two texts, 0..1. */
export function similarity(a: string, b: string): number {
  const A = words(a);
  const B = words(b);
  if (!A.size || !B.size) return 0;
  let n = 0;
  for (const w of A) if (B.has(w)) n++;
  return n / (A.size + B.size - n);
}

type Lists = Pick<Checkpoint, "decisions" | "assumptions" | "tasks" | "open_questions" | "entities">;
const taskOf = (t: TaskWire) => (typeof t === "string" ? { text: t, status: "open" } : { text: t.text, status: t.status || "open" });

/**
 * The changes that turn base into proposed, computed in the browser after
 * the user edited a draft by hand: per field, items only in the
 * proposal are added, items only in the base removed, a removed and an
 * added item that share most of their words are one change, and a task
 * that became done is resolved.
 */
export function clientChanges(base: Lists | null, proposed: Lists): ShownChange[] {
  const out: ShownChange[] = [];
  for (const { field, kind } of LIST_FIELDS) {
    const before = field === "tasks" ? (base?.tasks ?? []).map(taskOf) : ((base?.[field] as string[] | undefined) ?? []).map((text) => ({ text, status: "open" }));
    const after = field === "tasks" ? (proposed.tasks ?? []).map(taskOf) : ((proposed[field] as string[] | undefined) ?? []).map((text) => ({ text, status: "open" }));
    const bKeys = new Map(before.map((x) => [norm(x.text), x]));
    const aKeys = new Map(after.map((x) => [norm(x.text), x]));
    const added = after.filter((x) => !bKeys.has(norm(x.text)));
    const removed = before.filter((x) => !aKeys.has(norm(x.text)));
    for (const x of after) {
      const old = bKeys.get(norm(x.text));
      if (old && old.status !== "done" && x.status === "done") out.push({ op: "resolve", kind, id: null, before: old.text, after: x.text, source: null });
    }
    const paired = new Set<number>();
    for (const r of removed) {
      let best = -1;
      let score = 0.5;
      added.forEach((a, i) => {
        if (paired.has(i)) return;
        const s = similarity(r.text, a.text);
        if (s >= score) {
          best = i;
          score = s;
        }
      });
      if (best >= 0) {
        paired.add(best);
        out.push({ op: "update", kind, id: null, before: r.text, after: added[best].text, source: null });
      } else out.push({ op: "retract", kind, id: null, before: r.text, after: null, source: null });
    }
    added.forEach((a, i) => {
      if (!paired.has(i)) out.push({ op: "add", kind, id: null, before: null, after: a.text, source: null });
    });
  }
  return out;
}

export type ChangeGroup = "added" | "changed" | "resolved" | "removed";
export function groupOf(op: DraftChange["op"]): ChangeGroup {
  if (op === "add") return "added";
  if (op === "update" || op === "supersede") return "changed";
  if (op === "resolve") return "resolved";
  return "removed";
}

export function sourceLabel(c: Pick<ShownChange, "source">): string {
  const s = c.source;
  if (!s || s.from_seq == null) return "";
  const range = s.to_seq != null && s.to_seq !== s.from_seq ? `turns #${s.from_seq}–#${s.to_seq}` : `turn #${s.from_seq}`;
  return s.quote ? `${range}: “${s.quote}”` : range;
}
