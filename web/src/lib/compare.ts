import type { Checkpoint, ItemView } from "../api";
import { LIST_FIELDS } from "./diff";

/** One run of a word diff: kept, only in the old text, or only in the new. */
export interface Segment {
  op: "same" | "del" | "add";
  text: string;
}

// Words and the white space after them, so joining the tokens gives the text back.
const tokens = (s: string) => s.match(/\S+\s*/g) ?? [];
const bare = (t: string) => t.trimEnd();

/**
 * The word-level diff of two texts (longest common subsequence of words):
 * joining the same and del segments gives a back, same and add give b.
 */
export function wordDiff(a: string, b: string): Segment[] {
  const x = tokens(a);
  const y = tokens(b);
  // lcs[i][j]: length of the common subsequence of x[i:] and y[j:].
  const lcs: number[][] = Array.from({ length: x.length + 1 }, () => new Array<number>(y.length + 1).fill(0));
  for (let i = x.length - 1; i >= 0; i--)
    for (let j = y.length - 1; j >= 0; j--) lcs[i][j] = bare(x[i]) === bare(y[j]) ? lcs[i + 1][j + 1] + 1 : Math.max(lcs[i + 1][j], lcs[i][j + 1]);
  const out: Segment[] = [];
  const push = (op: Segment["op"], text: string) => {
    const last = out[out.length - 1];
    if (last && last.op === op) last.text += text;
    else out.push({ op, text });
  };
  let i = 0;
  let j = 0;
  while (i < x.length && j < y.length) {
    if (bare(x[i]) === bare(y[j])) {
      push("same", y[j]);
      i++;
      j++;
    } else if (lcs[i + 1][j] >= lcs[i][j + 1]) push("del", x[i++]);
    else push("add", y[j++]);
  }
  while (i < x.length) push("del", x[i++]);
  while (j < y.length) push("add", y[j++]);
  return out;
}

/** A row of a compare: one item (matched by id) as A and B hold it. */
export interface Row {
  key: string;
  /** same: identical; edit: the same item with another text or status; del: only in A; add: only in B. */
  op: "same" | "edit" | "del" | "add";
  a: string | null;
  b: string | null;
}

export interface FieldRows {
  field: string;
  label: string;
  rows: Row[];
  counts: { added: number; removed: number; changed: number; same: number };
}

const live = (it: ItemView) => it.status === "open" || it.status === "done";
const shown = (it: ItemView) => (it.kind === "task" && it.status === "done" ? `${it.text} (done)` : it.text);

function countsOf(rows: Row[]): FieldRows["counts"] {
  const c = { added: 0, removed: 0, changed: 0, same: 0 };
  for (const r of rows) {
    if (r.op === "add") c.added++;
    else if (r.op === "del") c.removed++;
    else if (r.op === "edit") c.changed++;
    else c.same++;
  }
  return c;
}

/**
 * Rows of two keyed lists in A's order, each B-only entry placed after the
 * entry that precedes it in B, so an edit sits on one row and rows line up.
 */
export function alignByKey(a: { key: string; text: string }[], b: { key: string; text: string }[]): Row[] {
  const inB = new Map(b.map((x) => [x.key, x.text]));
  const inA = new Set(a.map((x) => x.key));
  const rows: Row[] = a.map((x) => {
    const other = inB.get(x.key);
    if (other === undefined) return { key: x.key, op: "del", a: x.text, b: null };
    return { key: x.key, op: other === x.text ? "same" : "edit", a: x.text, b: other };
  });
  let at = -1;
  for (const x of b) {
    if (inA.has(x.key)) {
      at = rows.findIndex((r) => r.key === x.key);
      continue;
    }
    rows.splice(at + 1, 0, { key: x.key, op: "add", a: null, b: x.text });
    at++;
  }
  return rows;
}

const textRow = (key: string, a: string, b: string): Row[] => {
  if (!a && !b) return [];
  if (a === b) return [{ key, op: "same", a, b }];
  if (!a) return [{ key, op: "add", a: null, b }];
  if (!b) return [{ key, op: "del", a, b: null }];
  return [{ key, op: "edit", a, b }];
};

type WithItems = Pick<Checkpoint, "objective" | "summary" | "artifacts" | "items">;

/**
 * Every field of two checkpoints compared: objective and summary as texts,
 * the item lists aligned by item id (the id the server gives an item and
 * keeps across checkpoints), artifacts by their ids.
 */
export function compareFields(a: WithItems, b: WithItems): FieldRows[] {
  const out: FieldRows[] = [];
  const add = (field: string, label: string, rows: Row[]) => out.push({ field, label, rows, counts: countsOf(rows) });
  add("objective", "Objective", textRow("objective", a.objective ?? "", b.objective ?? ""));
  add("summary", "Summary", textRow("summary", a.summary ?? "", b.summary ?? ""));
  for (const f of LIST_FIELDS) {
    const of = (c: WithItems) => (c.items ?? []).filter((it) => it.kind === f.kind && live(it)).map((it) => ({ key: it.id, text: shown(it) }));
    add(f.field, f.label, alignByKey(of(a), of(b)));
  }
  const arts = (c: WithItems) => (c.artifacts ?? []).map((x) => ({ key: x.id, text: `${x.label} (${x.type}): ${x.content}` }));
  add("artifacts", "Artifacts", alignByKey(arts(a), arts(b)));
  return out;
}
