import { afterEach, describe, expect, it, vi } from "vitest";
import { cleanup, render, screen } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { MemoryRouter } from "react-router-dom";
import { ContextDrawer } from "./ContextDrawer";
import type { ContextPreview } from "../api";
import { previewOf } from "../testing/wire";

afterEach(cleanup);

const preview: ContextPreview = previewOf({
  mode: "MOUNTED",
  provider: "mock",
  model: "mock",
  checkpoint_ids: ["c1"],
  checkpoints: [{ id: "c1", commit_hash: "abcdef1234567890", message: "Go by train", branch_name: "main" }],
  turn_range: { from_seq: 4, to_seq: 5 },
  turn_count: 2,
  dropped_turns: 1,
  history_budget: 6000,
  token_estimate: 812,
  messages: [
    { role: "system", content: "State: Go by train" },
    { role: "user", content: "What did we decide?" },
  ],
});

describe("ContextDrawer", () => {
  it("shows the checkpoints, the turns kept and dropped, and the budget", () => {
    render(
      <MemoryRouter>
        <ContextDrawer preview={preview} onClose={vi.fn()} />
      </MemoryRouter>,
    );
    expect(screen.getByText("MOUNTED")).toBeTruthy();
    const cps = screen.getByTestId("context-checkpoints");
    expect(cps.textContent).toBe("abcdef1 Go by train (main)");
    expect(cps.querySelector("a")?.getAttribute("href")).toBe("/checkpoints/c1");
    expect(screen.getByTestId("context-turns").textContent).toBe("2 turns included (#4–#5) · 1 dropped to fit the budget");
    expect(screen.getByText(/Token budget for history: 6,000 · estimated prompt: 812 tokens/)).toBeTruthy();
    const msgs = screen.getByTestId("context-messages").querySelectorAll("li");
    expect([...msgs].map((m) => m.textContent)).toEqual(["systemState: Go by train", "userWhat did we decide?"]);
  });

  it("says so when nothing is carried over, and closes on Escape", async () => {
    const onClose = vi.fn();
    render(
      <MemoryRouter>
        <ContextDrawer preview={{ ...preview, mode: "FRESH", checkpoints: [], checkpoint_ids: [], turn_count: 0, turn_range: null, dropped_turns: 0 }} onClose={onClose} />
      </MemoryRouter>,
    );
    expect(screen.getByText("None: the model starts from the conversation alone.")).toBeTruthy();
    expect(screen.getByTestId("context-turns").textContent).toBe("No earlier turns included.");
    await userEvent.keyboard("{Escape}");
    expect(onClose).toHaveBeenCalledTimes(1);
  });

  it("shows an error", () => {
    render(
      <MemoryRouter>
        <ContextDrawer error="Session not found" onClose={vi.fn()} />
      </MemoryRouter>,
    );
    expect(screen.getByRole("alert").textContent).toBe("Session not found");
  });
});
