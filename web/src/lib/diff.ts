import type { Checkpoint, DraftChange, ItemKind, TaskWire } from "../api";
import { keysOf, type KeyOf } from "./itemKeys";

/**
 * A change as the form shows it: a draft's change from the server, or one the
 * browser computed after a hand edit (which has no item id or source yet).
 */
export type ShownChange = Pick<DraftChange, "op" | "kind" | "before" | "after" | "before_key" | "after_key"> & { id: string | null; source: DraftChange["source"] | null };

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

const words = (s: string) => new Set(s.toLowerCase().split(/[^\p{L}\p{N}]+/u).filter((w) => w.length > 1));
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
 * that became done is resolved. Items are matched by keyOf (the server's
 * keys of the texts it sent; typed text by itself).
 */
export function clientChanges(base: Lists | null, proposed: Lists, keyOf: KeyOf = keysOf()): ShownChange[] {
  const out: ShownChange[] = [];
  const change = (op: DraftChange["op"], kind: ItemKind, before: string | null, after: string | null): ShownChange => ({
    op,
    kind,
    id: null,
    before,
    after,
    before_key: before == null ? null : keyOf(before),
    after_key: after == null ? null : keyOf(after),
    source: null,
  });
  for (const { field, kind } of LIST_FIELDS) {
    const before = field === "tasks" ? (base?.tasks ?? []).map(taskOf) : ((base?.[field] as string[] | undefined) ?? []).map((text) => ({ text, status: "open" }));
    const after = field === "tasks" ? (proposed.tasks ?? []).map(taskOf) : ((proposed[field] as string[] | undefined) ?? []).map((text) => ({ text, status: "open" }));
    const bKeys = new Map(before.map((x) => [keyOf(x.text), x]));
    const aKeys = new Map(after.map((x) => [keyOf(x.text), x]));
    const added = after.filter((x) => !bKeys.has(keyOf(x.text)));
    const removed = before.filter((x) => !aKeys.has(keyOf(x.text)));
    for (const x of after) {
      const old = bKeys.get(keyOf(x.text));
      if (old && old.status !== "done" && x.status === "done") out.push(change("resolve", kind, old.text, x.text));
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
        out.push(change("update", kind, r.text, added[best].text));
      } else out.push(change("retract", kind, r.text, null));
    }
    added.forEach((a, i) => {
      if (!paired.has(i)) out.push(change("add", kind, null, a.text));
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
