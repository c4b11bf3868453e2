import { afterEach, describe, expect, it, vi } from "vitest";
import { cleanup, render, screen } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { MemoryRouter } from "react-router-dom";
import { CheckpointForm, type CheckpointFields } from "./CheckpointForm";
import { SavedForLater } from "./SavedForLater";
import type { Checkpoint } from "../api";
import type { Proposal } from "../lib/proposals";

afterEach(cleanup);

const base = {
  id: "c0000000-0000-4000-8000-000000000001",
  commit_hash: "abcdef0123456789",
  message: "Limits",
  objective: "Ship uploads",
  summary: "",
  decisions: ["Retry a failed upload 3 times"],
  assumptions: [],
  tasks: [],
  open_questions: [],
  entities: [],
  artifacts: [],
} as unknown as Checkpoint;

describe("CheckpointForm: save for later", () => {
  it("hands the form's content to onSaveForLater and commits nothing", async () => {
    const onSubmit = vi.fn<(f: CheckpointFields) => Promise<void>>().mockResolvedValue(undefined);
    const onSaveForLater = vi.fn<(f: CheckpointFields) => Promise<void>>().mockResolvedValue(undefined);
    render(<CheckpointForm base={base} onSubmit={onSubmit} onSaveForLater={onSaveForLater} />);
    await userEvent.type(screen.getByLabelText("Message (required)"), "Retries, later");
    const d = screen.getByLabelText("Decisions (one per line)");
    await userEvent.clear(d);
    await userEvent.type(d, "Retry a failed upload 5 times");
    await userEvent.click(screen.getByRole("button", { name: "Save for later" }));
    expect(onSubmit).not.toHaveBeenCalled();
    expect(onSaveForLater).toHaveBeenCalledTimes(1);
    expect(onSaveForLater.mock.calls[0][0]).toEqual({
      message: "Retries, later",
      objective: "Ship uploads",
      summary: "",
      decisions: ["Retry a failed upload 5 times"],
      assumptions: [],
      open_questions: [],
      entities: [],
      tasks: [],
      artifacts: [],
      base_checkpoint_id: base.id,
      // The base has no items view here: the new line is proposed as an add.
      items: [{ kind: "decision", text: "Retry a failed upload 5 times", status: "open", change: { op: "add" } }],
    });
  });

  it("needs a message, and says why a save for later failed", async () => {
    const onSaveForLater = vi.fn<(f: CheckpointFields) => Promise<void>>().mockRejectedValueOnce(new Error("space not found"));
    render(<CheckpointForm base={base} onSubmit={vi.fn()} onSaveForLater={onSaveForLater} />);
    await userEvent.click(screen.getByRole("button", { name: "Save for later" }));
    expect(screen.getByRole("alert").textContent).toBe("A message is required.");
    expect(onSaveForLater).not.toHaveBeenCalled();
    await userEvent.type(screen.getByLabelText("Message (required)"), "Later");
    await userEvent.click(screen.getByRole("button", { name: "Save for later" }));
    expect((await screen.findByRole("alert")).textContent).toBe("Save for later failed: space not found");
    expect((screen.getByLabelText("Message (required)") as HTMLInputElement).value).toBe("Later");
  });

  it("offers no save for later where nothing keeps proposals", () => {
    render(<CheckpointForm base={base} onSubmit={vi.fn()} />);
    expect(screen.queryByRole("button", { name: "Save for later" })).toBeNull();
  });

  it("points to the space's inbox once saved", () => {
    const p = { id: "9f8e7d6c-0000-4000-8000-000000000001", repo_id: "5a5a5a5a-0000-4000-8000-000000000002", title: "Later", branch_name: "main" } as Proposal;
    render(
      <MemoryRouter>
        <SavedForLater proposal={p} />
      </MemoryRouter>,
    );
    expect(screen.getByTestId("saved-for-later").textContent).toBe("“Later” waits in the inbox as proposal 9f8e7d6c on main: it becomes a checkpoint when someone accepts it.Open the inbox");
    expect(screen.getByRole("link", { name: "Open the inbox" }).getAttribute("href")).toBe("/spaces/5a5a5a5a-0000-4000-8000-000000000002/proposals");
  });
});
