import { describe, expect, it } from "vitest";
import { alignByKey, compareFields, wordDiff } from "./compare";
import type { ItemView } from "../api";
import { itemOf } from "../testing/wire";

describe("wordDiff", () => {
  it("marks only the changed words and gives both texts back", () => {
    const segs = wordDiff("Pricing is per-seat at $12 a month", "Pricing is per-seat at $14 a month");
    expect(segs).toEqual([
      { op: "same", text: "Pricing is per-seat at " },
      { op: "del", text: "$12 " },
      { op: "add", text: "$14 " },
      { op: "same", text: "a month" },
    ]);
    const back = (side: "del" | "add") => segs.filter((s) => s.op === "same" || s.op === side).map((s) => s.text).join("");
    expect(back("del")).toBe("Pricing is per-seat at $12 a month");
    expect(back("add")).toBe("Pricing is per-seat at $14 a month");
  });

  it("handles an empty side", () => {
    expect(wordDiff("", "New text")).toEqual([{ op: "add", text: "New text" }]);
    expect(wordDiff("Old", "")).toEqual([{ op: "del", text: "Old" }]);
  });
});

describe("alignByKey", () => {
  it("puts an edit on one row and a B-only item after the item before it in B", () => {
    const rows = alignByKey(
      [
        { key: "d-1", text: "One" },
        { key: "d-2", text: "Two" },
        { key: "d-3", text: "Three" },
      ],
      [
        { key: "d-1", text: "One" },
        { key: "d-9", text: "Nine" },
        { key: "d-3", text: "Three, changed" },
      ],
    );
    expect(rows.map((r) => `${r.op}:${r.key}:${r.a}->${r.b}`)).toEqual(["same:d-1:One->One", "add:d-9:null->Nine", "del:d-2:Two->null", "edit:d-3:Three->Three, changed"]);
  });
});

const item = (id: string, kind: ItemView["kind"], text: string, status: ItemView["status"] = "open"): ItemView => itemOf({ id, kind, text, status });

describe("compareFields", () => {
  const a = {
    objective: "Pick a price",
    summary: "",
    artifacts: [{ id: "a1", type: "text", label: "Sheet", content: "v1" }],
    items: [item("d-1", "decision", "Pricing is per-seat at $12"), item("q-1", "open_question", "Annual plan?"), item("e-1", "entity", "Stripe"), item("t-1", "task", "Write the page")],
  };
  const b = {
    objective: "Pick a price",
    summary: "Settled on $14",
    artifacts: [{ id: "a1", type: "text", label: "Sheet", content: "v2" }],
    items: [item("d-1", "decision", "Pricing is per-seat at $14"), item("e-1", "entity", "Stripe"), item("t-1", "task", "Write the page", "done"), item("q-1", "open_question", "Annual plan?", "answered")],
  };
  const fields = Object.fromEntries(compareFields(a, b).map((f) => [f.field, f]));

  it("shows an unchanged objective as one same row, no minus and plus", () => {
    expect(fields.objective.rows).toEqual([{ key: "objective", op: "same", a: "Pick a price", b: "Pick a price" }]);
    expect(fields.objective.counts).toEqual({ added: 0, removed: 0, changed: 0, same: 1 });
  });

  it("covers summary, every item kind and artifacts, counted per field", () => {
    expect(fields.summary.rows).toEqual([{ key: "summary", op: "add", a: null, b: "Settled on $14" }]);
    expect(fields.decisions.rows).toEqual([{ key: "d-1", op: "edit", a: "Pricing is per-seat at $12", b: "Pricing is per-seat at $14" }]);
    expect(fields.open_questions.rows).toEqual([{ key: "q-1", op: "del", a: "Annual plan?", b: null }]);
    expect(fields.tasks.rows).toEqual([{ key: "t-1", op: "edit", a: "Write the page", b: "Write the page (done)" }]);
    expect(fields.entities.counts).toEqual({ added: 0, removed: 0, changed: 0, same: 1 });
    expect(fields.artifacts.rows).toEqual([{ key: "a1", op: "edit", a: "Sheet (text): v1", b: "Sheet (text): v2" }]);
    expect(fields.assumptions.rows).toEqual([]);
  });
});
