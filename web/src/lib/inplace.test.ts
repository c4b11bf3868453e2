import { describe, expect, it } from "vitest";
import type { ItemView } from "../api";
import { changeOf, itemChangeOf, itemOf } from "../testing/wire";
import { keysOf } from "./itemKeys";
import { adoptIds, changeList, changesOnly, realign, rowsWithIds, taskRowsWithIds, type EditedLists, type Row } from "./inplace";

const base: ItemView[] = [
  itemOf({ id: "d-000001", kind: "decision", text: "Pricing is per-seat at $12", status: "open" }),
  itemOf({ id: "d-000002", kind: "decision", text: "Use Go", key: "use go", status: "open" }),
  itemOf({ id: "d-000003", kind: "decision", text: "Old idea", status: "retracted" }),
  itemOf({ id: "t-000001", kind: "task", text: "Write the docs", status: "open" }),
  itemOf({ id: "q-000001", kind: "open_question", text: "Which region?", status: "open" }),
];

const lists = (over: Partial<EditedLists>): EditedLists => ({ decision: [], assumption: [], open_question: [], entity: [], task: [], ...over });

describe("rowsWithIds", () => {
  it("gives each text the id of the live item of its kind and key, once", () => {
    // "use go." as a draft's change served it, with the server's key.
    const keyOf = keysOf(base, [changeOf({ op: "update", kind: "decision", after: "use go.", after_key: "use go" })]);
    expect(rowsWithIds("decision", ["use go.", "Pricing is per-seat at $12", "Old idea", "Use Go"], base, keyOf)).toEqual([
      { id: "d-000002", text: "use go." },
      { id: "d-000001", text: "Pricing is per-seat at $12" },
      { text: "Old idea" },
      { text: "Use Go" },
    ]);
  });
  it("matches a text the server did not key only to an item of exactly that text", () => {
    expect(rowsWithIds("decision", ["use go.", "Use Go "], base)).toEqual([{ text: "use go." }, { id: "d-000002", text: "Use Go " }]);
  });
  it("finds task item ids by text, keeping the task's annotations", () => {
    expect(taskRowsWithIds([{ text: "Write the docs", id: "t1", status: "open" }, { text: "New" }], base)).toEqual([
      { text: "Write the docs", id: "t1", status: "open", itemId: "t-000001" },
      { text: "New" },
    ]);
  });
});

describe("adoptIds", () => {
  it("gives rows without an id the id of a matching item no row holds", () => {
    const rows: Row[] = [{ text: "Use Go" }, { id: "d-000001", text: "Pricing is per-seat at $13" }, { text: "Pricing is per-seat at $12" }, { text: "New" }];
    expect(adoptIds("decision", rows, base, (r) => r.id, (r, id) => ({ ...r, id }))).toEqual([
      { id: "d-000002", text: "Use Go" },
      { id: "d-000001", text: "Pricing is per-seat at $13" },
      { text: "Pricing is per-seat at $12" },
      { text: "New" },
    ]);
  });
});

describe("realign", () => {
  const rows = [
    { id: "d-000001", text: "Pricing is per-seat at $12" },
    { id: "d-000002", text: "Use Go" },
    { id: "d-000004", text: "Ship in March" },
  ];
  it("keeps the id of a reworded line", () => {
    expect(realign(rows, "Pricing is per-seat at $14\nUse Go\nShip in March")).toEqual([
      { id: "d-000001", text: "Pricing is per-seat at $14" },
      { id: "d-000002", text: "Use Go" },
      { id: "d-000004", text: "Ship in March" },
    ]);
  });
  it("drops the id of a deleted line and leaves the others", () => {
    expect(realign(rows, "Pricing is per-seat at $12\nShip in March")).toEqual([
      { id: "d-000001", text: "Pricing is per-seat at $12" },
      { id: "d-000004", text: "Ship in March" },
    ]);
  });
  it("adds a line typed in the middle without an id", () => {
    expect(realign(rows, "Pricing is per-seat at $12\nUse Go\nBudget is 40k\nShip in March")).toEqual([
      { id: "d-000001", text: "Pricing is per-seat at $12" },
      { id: "d-000002", text: "Use Go" },
      { text: "Budget is 40k" },
      { id: "d-000004", text: "Ship in March" },
    ]);
  });
  it("pairs a changed stretch line by line; the extra new line is new", () => {
    expect(realign(rows, "Pricing is per-seat at $12\nUse Rust\nUse Zig\nShip in March")).toEqual([
      { id: "d-000001", text: "Pricing is per-seat at $12" },
      { id: "d-000002", text: "Use Rust" },
      { text: "Use Zig" },
      { id: "d-000004", text: "Ship in March" },
    ]);
  });
  it("keeps an emptied line (with its id) so the next keystroke keeps it", () => {
    const emptied = realign(rows, "Pricing is per-seat at $12\n\nShip in March");
    expect(emptied).toEqual([
      { id: "d-000001", text: "Pricing is per-seat at $12" },
      { id: "d-000002", text: "" },
      { id: "d-000004", text: "Ship in March" },
    ]);
    expect(realign(emptied, "Pricing is per-seat at $12\nShip in March")).toEqual([
      { id: "d-000001", text: "Pricing is per-seat at $12" },
      { id: "d-000004", text: "Ship in March" },
    ]);
  });
  it("moves ids with lines that moved", () => {
    expect(realign(rows, "Ship in March\nPricing is per-seat at $12\nUse Go")).toEqual([
      { id: "d-000004", text: "Ship in March" },
      { id: "d-000001", text: "Pricing is per-seat at $12" },
      { id: "d-000002", text: "Use Go" },
    ]);
  });
  it("round-trips the typed value exactly", () => {
    const v = "  a \n\nb\n";
    expect(realign([], v).map((r) => r.text).join("\n")).toBe(v);
  });
});

describe("changeList", () => {
  it("sends a reworded row as an update of its id, nothing removed or added", () => {
    const items = changeList(
      lists({ decision: [{ id: "d-000001", text: "Pricing is per-seat at $14" }, { id: "d-000002", text: "Use Go" }], task: [{ text: "Write the docs", itemId: "t-000001" }], open_question: [{ id: "q-000001", text: "Which region?" }] }),
      base,
    );
    expect(items).toEqual([
      { id: "d-000001", kind: "decision", text: "Pricing is per-seat at $14", status: "open", change: { op: "update", before: "Pricing is per-seat at $12" } },
      { id: "d-000002", kind: "decision", text: "Use Go", status: "open" },
      { id: "t-000001", kind: "task", text: "Write the docs", status: "open" },
      { id: "q-000001", kind: "open_question", text: "Which region?", status: "open" },
    ]);
    expect(changesOnly(items).map((it) => `${it.change!.op} ${it.id}`)).toEqual(["update d-000001"]);
  });

  it("resolves a ticked task, retracts deleted rows and adds new ones", () => {
    const items = changeList(
      lists({ decision: [{ id: "d-000002", text: "Use Go" }, { text: "  Budget is 40k " }, { id: "d-000001", text: "   " }], task: [{ text: "Write the docs", itemId: "t-000001", status: "done" }] }),
      base,
    );
    expect(changesOnly(items)).toEqual([
      { kind: "decision", text: "Budget is 40k", status: "open", change: { op: "add" } },
      { id: "t-000001", kind: "task", text: "Write the docs", status: "done", change: { op: "resolve", before: "Write the docs" } },
      { id: "d-000001", kind: "decision", text: "Pricing is per-seat at $12", status: "retracted", change: { op: "retract", before: "Pricing is per-seat at $12" } },
      { id: "q-000001", kind: "open_question", text: "Which region?", status: "retracted", change: { op: "retract", before: "Which region?" } },
    ]);
  });

  it("gives a row typed back the id of the base item it matches instead of retracting that item", () => {
    const items = changeList(lists({ decision: [{ id: "d-000002", text: "Use Go" }, { text: "Pricing is per-seat at $12" }] }), base);
    expect(items.filter((it) => it.kind === "decision")).toEqual([
      { id: "d-000002", kind: "decision", text: "Use Go", status: "open" },
      { id: "d-000001", kind: "decision", text: "Pricing is per-seat at $12", status: "open" },
    ]);
  });

  it("sends a row typed as a variant of a base item as new, for the server to match by its key on save", () => {
    const items = changeList(lists({ decision: [{ id: "d-000002", text: "Use Go" }, { text: "pricing is per-seat at $12" }] }), base);
    expect(changesOnly(items).filter((it) => it.kind === "decision")).toEqual([
      { kind: "decision", text: "pricing is per-seat at $12", status: "open", change: { op: "add" } },
      { id: "d-000001", kind: "decision", text: "Pricing is per-seat at $12", status: "retracted", change: { op: "retract", before: "Pricing is per-seat at $12" } },
    ]);
  });

  it("gives a row typed back the id of the draft item of that text", () => {
    const draft = [itemOf({ id: "d-0000bb", kind: "decision", text: "Ship weekly!", key: "ship weekly", change: itemChangeOf({ op: "add" }) })];
    const items = changeList(lists({ decision: [{ text: "Ship weekly!" }] }), [], draft);
    expect(items).toEqual([{ id: "d-0000bb", kind: "decision", text: "Ship weekly!", status: "open", origin: draft[0].origin, change: draft[0].change }]);
  });

  it("keeps a draft's origin and change, and sends its tombstones for items no row holds", () => {
    const draft: ItemView[] = [
      itemOf({ id: "d-000001", kind: "decision", text: "Pricing is per-seat at $10", change: itemChangeOf({ op: "update", before: "Pricing is per-seat at $12", source: { session_id: "s1", from_seq: 2, to_seq: 3, quote: null } }) }),
      itemOf({ id: "d-0000aa", kind: "decision", text: "Bill yearly", origin: { session_id: "s1", from_seq: 2, to_seq: 3, quote: "bill yearly" }, change: itemChangeOf({ op: "add" }) }),
      itemOf({ id: "q-000001", kind: "open_question", text: "Which region?", status: "answered", change: itemChangeOf({ op: "resolve", by: "EU only" }) }),
    ];
    const items = changeList(
      lists({ decision: [{ id: "d-000001", text: "Pricing is per-seat at $10" }, { id: "d-0000aa", text: "Bill yearly" }, { id: "d-000002", text: "Use Go" }], task: [{ text: "Write the docs", itemId: "t-000001" }] }),
      base,
      draft,
    );
    expect(changesOnly(items)).toEqual([
      { id: "d-000001", kind: "decision", text: "Pricing is per-seat at $10", status: "open", origin: draft[0].origin, change: draft[0].change },
      { id: "d-0000aa", kind: "decision", text: "Bill yearly", status: "open", origin: { session_id: "s1", from_seq: 2, to_seq: 3, quote: "bill yearly", checkpoint_id: null, author_agent: null, model: null }, change: draft[1].change },
      { id: "q-000001", kind: "open_question", text: "Which region?", status: "answered", change: draft[2].change },
    ]);
  });

  it("with no base, every row is an add", () => {
    expect(changeList(lists({ decision: [{ text: "Pricing is per-seat at $12" }] }), undefined)).toEqual([
      { kind: "decision", text: "Pricing is per-seat at $12", status: "open", change: { op: "add" } },
    ]);
  });
});
