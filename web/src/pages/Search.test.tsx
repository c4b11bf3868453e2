import { afterEach, describe, expect, it, vi } from "vitest";
import { cleanup, render, screen, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { MemoryRouter, Route, Routes, useLocation } from "react-router-dom";
import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import Search from "./Search";
import SearchBox from "../components/SearchBox";
import { snippetParts } from "../components/Snippet";
import type { SearchGroupsResponse, SearchHit } from "../api";

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

const hits: SearchHit[] = [
  {
    kind: "checkpoint",
    id: "c1",
    space_id: "r1",
    checkpoint_id: "c1",
    commit_hash: "abcdef1234567890",
    branch: "main",
    session_id: null,
    sequence_number: null,
    title: "Go by train",
    snippet: "we chose the <mark>train</mark> for cost",
    score: 2.5,
    item_version: null,
  },
  {
    kind: "turn",
    id: "t1",
    space_id: "r1",
    checkpoint_id: null,
    commit_hash: null,
    branch: "main",
    session_id: "s1",
    sequence_number: 3,
    title: "",
    snippet: "the <mark>train</mark> <img src=x onerror=alert(1)> leaves at nine",
    score: 1.5,
    item_version: null,
  },
];

function json(data: unknown, status = 200) {
  return new Response(JSON.stringify(data), { status, headers: { "Content-Type": "application/json" } });
}

function renderAt(url: string, fetchFn: (input: RequestInfo | URL) => Promise<Response>) {
  const calls: string[] = [];
  vi.stubGlobal("fetch", vi.fn(async (input: RequestInfo | URL) => {
    calls.push(String(input));
    return fetchFn(input);
  }));
  const qc = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  const view = render(
    <QueryClientProvider client={qc}>
      <MemoryRouter initialEntries={[url]}>
        <Routes>
          <Route path="/search" element={<Search />} />
        </Routes>
      </MemoryRouter>
    </QueryClientProvider>,
  );
  return { calls, view };
}

describe("snippetParts", () => {
  it("splits on the highlight markers and keeps everything else as text", () => {
    expect(snippetParts("a <mark>b</mark> <b>c</b> <mark>d")).toEqual([
      { text: "a ", marked: false },
      { text: "b", marked: true },
      { text: " <b>c</b> ", marked: false },
      { text: "d", marked: true },
    ]);
  });
});

describe("Search page", () => {
  it("lists hits by kind with highlights, links and snippets as literal text", async () => {
    const body: SearchGroupsResponse = { query: "train", results: hits.map((hit) => ({ kind: hit.kind, item: null, hit, checkpoints: [] })) };
    const { calls, view } = renderAt("/search?q=train&kind=checkpoint", async () => json(body));

    expect(await screen.findByRole("heading", { level: 2, name: "Checkpoints (1)" })).toBeTruthy();
    expect(screen.getByRole("heading", { level: 1, name: "Search results for “train”" })).toBeTruthy();

    const url = new URL(calls[0], "http://localhost");
    expect(url.pathname).toBe("/api/v5/search/grouped");
    expect(url.searchParams.get("q")).toBe("train");
    expect(url.searchParams.get("kind")).toBe("checkpoint");

    const cpSection = screen.getByRole("region", { name: "Checkpoints (1)" });
    expect(within(cpSection).getByRole("link", { name: "Go by train" }).getAttribute("href")).toBe("/checkpoints/c1");
    const marks = cpSection.querySelectorAll("mark");
    expect(marks).toHaveLength(1);
    expect(marks[0].textContent).toBe("train");

    const turnSection = screen.getByRole("region", { name: "Turns (1)" });
    expect(within(turnSection).getByRole("link", { name: "Turn 3" }).getAttribute("href")).toBe("/sessions/s1?turn=3");
    expect(within(turnSection).getByText((_, el) => el?.className === "snippet" && el.textContent === "the train <img src=x onerror=alert(1)> leaves at nine")).toBeTruthy();
    expect(view.container.querySelector("img")).toBeNull();
    expect(screen.getByLabelText("Kind")).toHaveProperty("value", "checkpoint");
  });

  it("shows a carried item once, with every checkpoint it lives in", async () => {
    const at = (id: string, hash: string) => ({ checkpoint_id: id, commit_hash: hash, branch: "main", title: id });
    const body: SearchGroupsResponse = {
      query: "train",
      results: [{ kind: "item", item: { id: "d-1a2b3c", kind: "decision", text: "Go by train" }, hit: { ...hits[0], snippet: "Go by <mark>train</mark>" }, checkpoints: [at("c3", "3333333aa"), at("c2", "2222222aa"), at("c1", "1111111aa")] }],
    };
    renderAt("/search?q=train", async () => json(body));
    const section = await screen.findByRole("region", { name: "Items (1)" });
    expect(within(section).getAllByTestId("search-item")).toHaveLength(1);
    expect(within(section).getByText("decision", { exact: false }).textContent).toBe("decision d-1a2b3c · in 3 checkpoints");
    expect(within(section).getByRole("link", { name: "Go by train" }).getAttribute("href")).toBe("/checkpoints/c3");
    const where = within(section).getByRole("list", { name: "Checkpoints holding d-1a2b3c" });
    expect(within(where).getAllByRole("link").map((a) => [a.textContent, a.getAttribute("href")])).toEqual([
      ["3333333 main", "/checkpoints/c3"],
      ["2222222 main", "/checkpoints/c2"],
      ["1111111 main", "/checkpoints/c1"],
    ]);
  });

  it("changing the kind filter searches again with that kind", async () => {
    const { calls } = renderAt("/search?q=train", async () => json({ query: "train", results: [] }));
    expect(await screen.findByText("No results for “train”.")).toBeTruthy();
    expect(new URL(calls[0], "http://localhost").searchParams.has("kind")).toBe(false);

    await userEvent.selectOptions(screen.getByLabelText("Kind"), "note");
    await screen.findByText("No results for “train”.");
    const last = new URL(calls[calls.length - 1], "http://localhost");
    expect(last.searchParams.get("q")).toBe("train");
    expect(last.searchParams.get("kind")).toBe("note");
  });

  it("shows the server's detail when the search fails", async () => {
    renderAt("/search?q=train", async () => json({ detail: "search is unavailable" }, 400));
    expect((await screen.findByRole("alert")).textContent).toBe("Search failed: search is unavailable");
  });
});

describe("SearchBox", () => {
  it("navigates to /search with the query on Enter", async () => {
    function Where() {
      const loc = useLocation();
      return <p data-testid="where">{loc.pathname + loc.search}</p>;
    }
    render(
      <MemoryRouter initialEntries={["/"]}>
        <SearchBox />
        <Where />
      </MemoryRouter>,
    );
    await userEvent.type(screen.getByLabelText("Search"), "train & bus{Enter}");
    expect(screen.getByTestId("where").textContent).toBe("/search?q=train+%26+bus");
  });
});
