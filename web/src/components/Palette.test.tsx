import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { cleanup, render, screen } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { MemoryRouter, Route, Routes, useLocation } from "react-router-dom";
import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { Palette } from "./Palette";
import { onCommand } from "../lib/commands";

beforeAll(() => {
  // cmdk measures and scrolls its list; jsdom has neither.
  globalThis.ResizeObserver ??= class {
    observe() {}
    unobserve() {}
    disconnect() {}
  } as unknown as typeof ResizeObserver;
  Element.prototype.scrollIntoView ??= function () {};
});
afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

const json = (d: unknown) => new Response(JSON.stringify(d), { status: 200, headers: { "Content-Type": "application/json" } });
function stubApi() {
  vi.stubGlobal(
    "fetch",
    vi.fn(async (input: RequestInfo | URL) => {
      const p = String(input);
      if (p === "/api/v2/repos") return json([{ id: "sp1", name: "Kyoto weekend", description: "", project_root: null, created_at: "", updated_at: "" }]);
      if (p === "/api/v4/chat/sessions") return json([{ id: "se1", repo_id: "sp1", title: "Ryokan booking", branch_name: "main" }]);
      if (p === "/api/v4/chat/sessions/se1") return json({ id: "se1", repo_id: "sp1", title: "Ryokan booking", branch_name: "main" });
      if (p.startsWith("/api/v2/repos/sp1/commits")) return json([{ id: "cp1", commit_hash: "abcdef1234", message: "First plan", branch_name: "main" }]);
      return new Response("{}", { status: 404 });
    }),
  );
}

function Where() {
  const l = useLocation();
  return <div data-testid="where">{l.pathname + l.search}</div>;
}

function setup(at = "/") {
  stubApi();
  const qc = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  const onOpenChange = vi.fn();
  render(
    <QueryClientProvider client={qc}>
      <MemoryRouter initialEntries={[at]}>
        <Routes>
          <Route path="*" element={<><Where /><Palette open onOpenChange={onOpenChange} onShortcuts={() => {}} onTheme={() => {}} dark={false} /></>} />
        </Routes>
      </MemoryRouter>
    </QueryClientProvider>,
  );
  return { onOpenChange };
}

describe("Palette", () => {
  it("goes to a space's lineage by typing part of its name", async () => {
    const { onOpenChange } = setup();
    const input = screen.getByRole("combobox");
    await screen.findByText("Kyoto weekend — lineage");
    await userEvent.type(input, "kyoto lin");
    await userEvent.keyboard("{Enter}");
    expect(screen.getByTestId("where").textContent).toBe("/spaces/sp1/lineage");
    expect(onOpenChange).toHaveBeenCalledWith(false);
  });

  it("opens a session and offers a full-text search for what was typed", async () => {
    setup();
    await screen.findByText("Ryokan booking");
    await userEvent.type(screen.getByRole("combobox"), "tea ceremony");
    await userEvent.click(screen.getByText("Search for “tea ceremony”"));
    expect(screen.getByTestId("where").textContent).toBe("/search?q=tea+ceremony");
  });

  it("on a chat page, lists the space's checkpoints and sends Create checkpoint to the page", async () => {
    setup("/sessions/se1");
    const seen: string[] = [];
    const off = onCommand((c) => seen.push(c));
    await screen.findByText("First plan");
    await userEvent.type(screen.getByRole("combobox"), "create checkpoint");
    await userEvent.keyboard("{Enter}");
    off();
    expect(seen).toEqual(["create-checkpoint"]);
  });
});
