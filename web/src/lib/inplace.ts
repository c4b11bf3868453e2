import type { ItemIn, ItemKind, ItemView, TaskObject } from "../api";
import { keysOf, type KeyOf } from "./itemKeys";

/**
 * In-place editing of a checkpoint's items. The form shows each item as a
 * row that keeps the item's id: rewording a row is an update of that id,
 * ticking a task done resolves it, deleting a row retracts it, and a row
 * typed anew is an add. What a save sends is that change list, against the
 * checkpoint the form was opened on, so the server can rebase it by id
 * when someone else saved first.
 */

/** One line of a list field; id is the item's id (d-7f3a9c), absent for a line typed anew. */
export interface Row {
  id?: string;
  text: string;
}

/** A task row: the task's annotations plus the item id it edits. */
export type TaskRow = TaskObject & { itemId?: string };

const LIVE = new Set(["open", "done", ""]);
const live = (it: ItemView) => LIVE.has(it.status);

/**
 * Rows for texts of one kind, each taking the id of the first live item of
 * that kind and key not already taken (items: a checkpoint's or a draft's
 * items view; keyOf: the server's keys, by default those of items).
 */
export function rowsWithIds(kind: ItemKind, texts: string[] | undefined, items: ItemView[] | null | undefined, keyOf: KeyOf = keysOf(items)): Row[] {
  const pool = (items ?? []).filter((it) => it.kind === kind && it.id && live(it));
  const used = new Set<string>();
  return (texts ?? []).map((text) => {
    const hit = pool.find((it) => !used.has(it.id) && it.key === keyOf(text));
    if (!hit) return { text };
    used.add(hit.id);
    return { id: hit.id, text };
  });
}

/**
 * Rows that lack an id take one as rowsWithIds gives it, among the ids no
 * row holds yet: for a base whose items view arrives after its content.
 */
export function adoptIds<R extends { text: string }>(kind: ItemKind, rows: R[], items: ItemView[] | null | undefined, idOf: (r: R) => string | undefined, withId: (r: R, id: string) => R): R[] {
  const used = new Set(rows.flatMap((r) => (idOf(r) ? [idOf(r)!] : [])));
  const pool = (items ?? []).filter((it) => it.kind === kind && it.id && live(it) && !used.has(it.id));
  const keyOf = keysOf(items);
  return rows.map((r) => {
    if (idOf(r)) return r;
    const k = pool.findIndex((it) => it.key === keyOf(r.text));
    return k < 0 ? r : withId(r, pool.splice(k, 1)[0].id);
  });
}

/** Task rows for tasks, with item ids found as rowsWithIds finds them. */
export function taskRowsWithIds(tasks: TaskObject[], items: ItemView[] | null | undefined, keyOf: KeyOf = keysOf(items)): TaskRow[] {
  const ids = rowsWithIds(
    "task",
    tasks.map((t) => t.text),
    items,
    keyOf,
  );
  return tasks.map((t, i) => (ids[i].id ? { ...t, itemId: ids[i].id } : { ...t }));
}

/**
 * The rows after the textarea holding prev (one row a line) was changed to
 * value: lines equal to a previous row keep its id (longest common
 * subsequence), and within a stretch that changed the n-th new line takes
 * the id of the n-th old one — so rewording a line keeps its id, a line
 * deleted loses it, extra lines are new, and a line moved elsewhere
 * keeps its id. The rows' texts are exactly
 * value's lines, so the textarea round-trips what was typed.
 */
export function realign(prev: Row[], value: string): Row[] {
  const next = value.split("\n");
  const a = prev.map((r) => r.text);
  // Common head and tail first: an edit usually touches one line.
  let head = 0;
  while (head < a.length && head < next.length && a[head] === next[head]) head++;
  let tail = 0;
  while (tail < a.length - head && tail < next.length - head && a[a.length - 1 - tail] === next[next.length - 1 - tail]) tail++;
  const am = a.slice(head, a.length - tail);
  const bm = next.slice(head, next.length - tail);
  // LCS table over the middle.
  const n = am.length;
  const m = bm.length;
  const L: number[][] = Array.from({ length: n + 1 }, () => new Array<number>(m + 1).fill(0));
  for (let i = n - 1; i >= 0; i--) for (let j = m - 1; j >= 0; j--) L[i][j] = am[i] === bm[j] ? L[i + 1][j + 1] + 1 : Math.max(L[i + 1][j], L[i][j + 1]);
  const out: Row[] = [];
  const keep = (r: Row, text: string): Row => (r.id ? { id: r.id, text } : { text });
  for (let k = 0; k < head; k++) out.push(keep(prev[k], next[k]));
  let i = 0;
  let j = 0;
  let hi = 0; // start of the current changed stretch in am / bm
  let hj = 0;
  const flush = () => {
    for (let k = 0; k < j - hj; k++) out.push(k < i - hi ? keep(prev[head + hi + k], bm[hj + k]) : { text: bm[hj + k] });
  };
  while (i < n || j < m) {
    if (i < n && j < m && am[i] === bm[j]) {
      flush();
      out.push(keep(prev[head + i], bm[j]));
      i++;
      j++;
      hi = i;
      hj = j;
    } else if (j < m && (i >= n || L[i][j + 1] >= L[i + 1][j])) j++;
    else i++;
  }
  flush();
  for (let k = 0; k < tail; k++) out.push(keep(prev[a.length - tail + k], next[next.length - tail + k]));
  // A line cut and pasted elsewhere keeps its id.
  const taken = new Set(out.flatMap((r) => (r.id ? [r.id] : [])));
  const loose = prev.filter((r) => r.id && !taken.has(r.id));
  for (const r of out) {
    if (r.id || !r.text.trim()) continue;
    const k = loose.findIndex((p) => p.text === r.text);
    if (k >= 0) r.id = loose.splice(k, 1)[0].id;
  }
  return out;
}

/** The form's lists as rows, by kind. */
export interface EditedLists {
  decision: Row[];
  assumption: Row[];
  open_question: Row[];
  entity: Row[];
  task: TaskRow[];
}

const KINDS: ItemKind[] = ["decision", "assumption", "task", "open_question", "entity"];

/**
 * The change list a save sends: every item of the edited lists, in order,
 * with its id and what the save does to it against the base's items —
 * nothing (carried), update (reworded), resolve (a task ticked done) or add
 * (a row without an id) — then a retract for each live base item no row
 * holds any more, then the draft's own tombstones (answered, retracted,
 * superseded) for items no row holds. A row without an id whose text is
 * that of a base or draft item no other row holds takes that id (a line
 * deleted and typed back, a change of a draft turned off), as the server
 * would match it (by the served key; typed text by its exact text, see
 * KeyOf). Draft items keep their origin, supersedes and change.
 * Rows with blank text count as deleted. Texts are trimmed.
 */
export function changeList(lists: EditedLists, baseItems: ItemView[] | null | undefined, draftItems: ItemView[] = []): ItemIn[] {
  const base = new Map((baseItems ?? []).filter((it) => it.id && live(it)).map((it) => [it.id, it]));
  const draft = new Map(draftItems.filter((it) => it.id).map((it) => [it.id, it]));
  type Entry = Pick<ItemIn, "kind" | "id" | "text"> & { status: "open" | "done" };
  const entries: Entry[] = [];
  for (const kind of KINDS) {
    for (const r of lists[kind] as (Row | TaskRow)[]) {
      const text = r.text.trim();
      if (!text) continue;
      const id = kind === "task" ? (r as TaskRow).itemId : (r as Row).id;
      const status = kind === "task" && (r as TaskRow).status === "done" ? "done" : "open";
      entries.push({ kind, id, text, status });
    }
  }
  const used = new Set(entries.flatMap((e) => (e.id ? [e.id] : [])));
  const known = [...(baseItems ?? []), ...draftItems].filter((it) => it.id && live(it));
  const keyOf = keysOf(baseItems, draftItems);
  for (const e of entries) {
    if (e.id) continue;
    const hit = known.find((it) => it.kind === e.kind && !used.has(it.id) && it.key === keyOf(e.text));
    if (hit) {
      e.id = hit.id;
      used.add(hit.id);
    }
  }
  const out: ItemIn[] = [];
  for (const e of entries) {
    const item: ItemIn = { kind: e.kind, text: e.text, status: e.status };
    if (!e.id) {
      item.change = { op: "add" };
      out.push(item);
      continue;
    }
    item.id = e.id;
    const d = draft.get(e.id);
    if (d?.supersedes?.length) item.supersedes = d.supersedes;
    if (d?.origin) item.origin = d.origin;
    const b = base.get(e.id);
    if (!b) {
      // Not in the base (or no base items to compare with): as the draft
      // describes it (null: carried) while its text is the draft's.
      if (d && d.key === keyOf(e.text)) {
        if (d.change) item.change = d.change;
      } else item.change = { op: d?.supersedes?.length ? "supersede" : d && !d.change ? "update" : "add" };
    } else if (b.text === e.text && b.status === e.status) {
      // carried unchanged
    } else if (e.kind === "task" && e.status === "done" && b.status !== "done" && b.key === keyOf(e.text)) {
      item.change = { op: "resolve", before: b.text };
    } else {
      item.change = { op: "update", before: b.text };
      if (d?.change && d.change.op === "update" && d.key === keyOf(e.text)) item.change = { ...d.change, op: "update", before: b.text };
    }
    out.push(item);
  }
  for (const b of base.values()) {
    if (used.has(b.id)) continue;
    const d = draft.get(b.id);
    if (d && !live(d)) continue; // the draft says how it ended; below
    used.add(b.id);
    out.push({ id: b.id, kind: b.kind, text: b.text, status: "retracted", change: { op: "retract", before: b.text } });
  }
  for (const d of draftItems) {
    if (!d.id || live(d) || used.has(d.id)) continue;
    used.add(d.id);
    const item: ItemIn = { id: d.id, kind: d.kind, text: d.text, status: d.status };
    if (d.supersedes?.length) item.supersedes = d.supersedes;
    if (d.change) item.change = d.change;
    out.push(item);
  }
  return out;
}

/** The change list without the items it carries unchanged: what the save does. */
export const changesOnly = (items: ItemIn[]) => items.filter((it) => it.change);
