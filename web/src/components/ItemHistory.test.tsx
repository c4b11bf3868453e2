import { afterEach, describe, expect, it } from "vitest";
import { cleanup, render, screen, within } from "@testing-library/react";
import { MemoryRouter } from "react-router-dom";
import { HistoryTimeline } from "./ItemHistory";
import type { ItemHistory } from "../api";
import { itemOf, originOf } from "../testing/wire";

afterEach(cleanup);

const S1 = "11111111-2222-3333-4444-555555555555";
const S2 = "99999999-8888-7777-6666-555555555555";
const none = { session_id: null, from_seq: null, to_seq: null, quote: null };

const history: ItemHistory = {
  item: itemOf({ id: "d1", kind: "decision", text: "Use PostgreSQL for storage" }),
  latest: true,
  validity: [],
  version: "v1",
  history: [
    {
      checkpoint_id: "c1", commit_hash: "aaaaaaa1111", branch_name: "main", created_at: "2026-01-01T10:00:00Z", merge: false,
      event: "introduced", item_id: "d1", text: "Use SQLite for storage", status: "open", version: null,
      change: { op: "add", before: null, by: null, reason: null, source: { session_id: S1, from_seq: 3, to_seq: 4, quote: "SQLite is enough for one user" }, merge: null },
      origin: { checkpoint_id: "c1", session_id: S1, from_seq: 3, to_seq: 4, quote: "SQLite is enough for one user", author_agent: null, model: "mock" },
    },
    {
      checkpoint_id: "c2", commit_hash: "bbbbbbb2222", branch_name: "pg", created_at: "2026-01-02T10:00:00Z", merge: false,
      event: "changed", item_id: "d1", text: "Use PostgreSQL for storage", status: "open", version: null,
      change: { op: "update", before: "Use SQLite for storage", by: null, reason: null, source: { session_id: S2, from_seq: 7, to_seq: 7, quote: null }, merge: null },
      origin: originOf({ checkpoint_id: "c1" }),
    },
    {
      checkpoint_id: "c3", commit_hash: "ccccccc3333", branch_name: "main", created_at: "2026-01-03T10:00:00Z", merge: true,
      event: "rejected", item_id: "d1", text: "Use MySQL for storage", status: "open", version: null,
      change: { op: "update", before: null, by: null, reason: null, source: { session_id: S1, from_seq: 9, to_seq: 10, quote: "MySQL, the team knows it" }, merge: { choice: "theirs", rejected: [{ side: "ours", text: "Use MySQL for storage", source: { session_id: S1, from_seq: 9, to_seq: 10, quote: "MySQL, the team knows it" } }] } },
      origin: originOf({ checkpoint_id: "c1" }),
    },
    {
      checkpoint_id: "c3", commit_hash: "ccccccc3333", branch_name: "main", created_at: "2026-01-03T10:00:00Z", merge: true,
      event: "changed", item_id: "d1", text: "Use PostgreSQL for storage", status: "open", version: null,
      change: { op: "update", before: "Use MySQL for storage", by: null, reason: null, source: { session_id: S2, from_seq: 7, to_seq: 7, quote: null }, merge: { choice: "theirs", rejected: [] } },
      origin: originOf({ checkpoint_id: "c1" }),
    },
  ],
};

describe("an item's history", () => {
  it("shows each event's source session, turns and quote, with a link to the thread at that turn", () => {
    render(
      <MemoryRouter>
        <HistoryTimeline history={history} />
      </MemoryRouter>,
    );
    const rows = screen.getByTestId("item-history").querySelectorAll("li");
    expect([...rows].map((r) => r.querySelector(".badge")?.textContent)).toEqual(["introduced", "changed", "rejected in merge ccccccc", "changed"]);
    const srcs = screen.getAllByTestId("item-source").map((e) => e.textContent);
    expect(srcs).toEqual([
      "from session 11111111, turns #3–#4 · open the thread at turn #3SQLite is enough for one user",
      "from session 99999999, turn #7 · open the thread at turn #7",
      "from session 11111111, turns #9–#10 · open the thread at turn #9MySQL, the team knows it",
      "from session 99999999, turn #7 · open the thread at turn #7",
    ]);
    const first = within(rows[0] as HTMLElement);
    expect(first.getByRole("link", { name: "open the thread at turn #3" }).getAttribute("href")).toBe(`/sessions/${S1}?turn=3`);
    expect(first.getByRole("link", { name: "11111111" }).getAttribute("href")).toBe(`/sessions/${S1}`);
    expect(first.getByText("drafted by mock")).toBeTruthy();
    expect(within(rows[1] as HTMLElement).getByText("was “Use SQLite for storage”")).toBeTruthy();
  });

  it("labels a version a merge turned down with the merge, its side and its text", () => {
    render(
      <MemoryRouter>
        <HistoryTimeline history={history} />
      </MemoryRouter>,
    );
    const rows = screen.getByTestId("item-history").querySelectorAll("li");
    const rej = rows[2] as HTMLElement;
    expect(rej.getAttribute("data-event")).toBe("rejected");
    expect(rej.querySelector(".rejected-text")?.textContent).toBe("Use MySQL for storage — the version of ours (the merge target), turned down");
    expect(within(rej).getByRole("link", { name: "ccccccc" }).getAttribute("href")).toBe("/checkpoints/c3");
    expect(within(rows[3] as HTMLElement).getByText("kept the version of theirs (the merged branch)")).toBeTruthy();
  });

  it("names the removal when the turned-down side had removed the item", () => {
    const removal: ItemHistory = {
      ...history,
      history: [{ ...history.history[2], text: "", change: { ...history.history[2].change!, source: none, merge: { choice: "ours", rejected: [{ side: "theirs", text: null, source: none }] } } }],
    };
    render(
      <MemoryRouter>
        <HistoryTimeline history={removal} />
      </MemoryRouter>,
    );
    expect(document.querySelector(".rejected-text")?.textContent).toBe("the removal of the item — the version of theirs (the merged branch), turned down");
    expect(screen.queryByTestId("item-source")).toBeNull();
  });
});
