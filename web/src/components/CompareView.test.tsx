import { afterEach, describe, expect, it, vi } from "vitest";
import { cleanup, render, screen, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { MemoryRouter } from "react-router-dom";
import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { CompareView } from "./CompareView";
import type { Checkpoint, CompareResponse } from "../api";
import { checkpointOf, itemOf } from "../testing/wire";

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

const cp = (id: string, hash: string, decision: string, extra: Partial<Checkpoint> = {}): Checkpoint =>
  checkpointOf({
  id,
  commit_hash: hash,
  message: `msg ${id}`,
  summary: "",
  objective: "Same goal",
  decisions: [decision],
  assumptions: [],
  tasks: [],
  open_questions: [],
  entities: [],
  artifacts: [],
  metadata: {},
  created_at: "2026-12-01T10:00:00Z",
  items: [itemOf({ id: "d-aaaaaa", kind: "decision", text: decision })],
  ...extra,
  });

describe("CompareView", () => {
  it("aligns an edited item by id on one row with its word diff, and names the ancestor by hash", async () => {
    const a = cp("A", "1111111aaaa", "Pricing is per-seat at $12");
    const b = cp("B", "2222222bbbb", "Pricing is per-seat at $14");
    const cmp = {
      checkpoint_a: a,
      checkpoint_b: b,
      diff: { common_ancestor_commit_id: "0f000000-0000-0000-0000-000000000000", common_ancestor_commit_hash: "abcdef0123456789" },
    } as unknown as CompareResponse;
    vi.stubGlobal("fetch", vi.fn(async (input: RequestInfo | URL) => {
      const id = String(input).match(/commits\/(\w+)\?items=true/)?.[1];
      return new Response(JSON.stringify(id === "A" ? a : b), { status: 200, headers: { "Content-Type": "application/json" } });
    }));
    const qc = new QueryClient({ defaultOptions: { queries: { retry: false } } });
    render(
      <QueryClientProvider client={qc}>
        <MemoryRouter>
          <CompareView cmp={cmp} />
        </MemoryRouter>
      </QueryClientProvider>,
    );
    const summary = await screen.findByText(/1 item\(s\) differ/);
    expect(summary.textContent).toBe("1 item(s) differ · common ancestor: abcdef0");
    const objective = screen.getByTestId("field-objective");
    expect(objective.querySelectorAll(".diff-line").length).toBe(1);
    expect(objective.querySelector(".diff-line")!.className).toBe("diff-line same");
    const decisions = screen.getByTestId("field-decisions");
    expect(within(decisions).getByTestId("field-counts").textContent).toBe("~1");
    expect([...decisions.querySelectorAll("del")].map((d) => d.textContent)).toEqual(["$12"]);
    expect([...decisions.querySelectorAll("ins")].map((d) => d.textContent)).toEqual(["$14"]);

    await userEvent.click(screen.getByRole("tab", { name: "Side by side" }));
    const rows = screen.getAllByTestId("split-row").filter((r) => r.getAttribute("data-key") === "d-aaaaaa");
    expect(rows).toHaveLength(1);
    const cells = within(rows[0]).getAllByRole("cell");
    expect(cells.map((c) => c.textContent)).toEqual(["−changed, in A: Pricing is per-seat at $12", "+changed, in B: Pricing is per-seat at $14"]);
  });
});
