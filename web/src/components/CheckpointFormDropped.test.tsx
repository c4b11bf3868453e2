import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { cleanup, render, screen } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { CheckpointForm } from "./CheckpointForm";
import type { Checkpoint, Draft } from "../api";
import { changeOf, checkpointOf, draftOf } from "../testing/wire";

afterEach(cleanup);
beforeEach(() => localStorage.clear());

const base: Checkpoint = checkpointOf({
  id: "c1", commit_hash: "abcdef1234567890", message: "Base", decisions: ["Take the train"], created_at: "2026-01-01T00:00:00Z",
});

const draftWith = (toSeq: number): Draft => draftOf({
  title: "Next",
  objective: "",
  summary: "",
  decisions: ["Take the train", "Fly home"],
  assumptions: [],
  tasks: [],
  open_questions: [],
  entities: [],
  base_checkpoint_id: "c1",
  changes: [changeOf({ op: "add", kind: "decision", after: "Fly home", source: { session_id: "s1", from_seq: toSeq, to_seq: toSeq, quote: null } })],
});

const decisions = () => (screen.getByLabelText("Decisions (one per line)") as HTMLTextAreaElement).value;

describe("CheckpointForm drafts on one base", () => {
  it("does not propose again what the user dropped, unless newer turns repeat it", async () => {
    let next = draftWith(3);
    const onDraft = vi.fn(() => Promise.resolve(next));
    const first = render(<CheckpointForm base={base} onDraft={onDraft} onSubmit={vi.fn()} />);
    await userEvent.click(screen.getByRole("button", { name: "Draft with AI" }));
    await screen.findByRole("button", { name: "Drop change: added Fly home" });
    expect(decisions()).toBe("Take the train\nFly home");
    await userEvent.click(screen.getByRole("button", { name: "Drop change: added Fly home" }));
    expect(decisions()).toBe("Take the train");
    first.unmount();

    // The next draft on the same base proposes it again from the same turns: it stays dropped.
    render(<CheckpointForm base={base} onDraft={onDraft} onSubmit={vi.fn()} />);
    await userEvent.click(screen.getByRole("button", { name: "Draft with AI" }));
    await screen.findByRole("button", { name: "Keep change: added Fly home" });
    expect(decisions()).toBe("Take the train");
    cleanup();

    // Turns newer than the ones it came from repeat it: proposed again.
    next = draftWith(7);
    render(<CheckpointForm base={base} onDraft={onDraft} onSubmit={vi.fn()} />);
    await userEvent.click(screen.getByRole("button", { name: "Draft with AI" }));
    await screen.findByRole("button", { name: "Drop change: added Fly home" });
    expect(decisions()).toBe("Take the train\nFly home");
  });

  it("recomputes the change list after a hand edit", async () => {
    render(<CheckpointForm base={base} onDraft={() => Promise.resolve(draftWith(3))} onSubmit={vi.fn()} />);
    await userEvent.click(screen.getByRole("button", { name: "Draft with AI" }));
    await screen.findByRole("button", { name: "Drop change: added Fly home" });
    await userEvent.type(screen.getByLabelText("Decisions (one per line)"), "{Enter}Walk to the station");
    await screen.findByRole("button", { name: "Drop change: added Walk to the station" });
    expect(screen.getByRole("button", { name: "Drop change: added Fly home" })).toBeTruthy();
    await userEvent.click(screen.getByRole("button", { name: "Drop change: added Walk to the station" }));
    expect(decisions()).toBe("Take the train\nFly home");
    expect(screen.queryByRole("button", { name: "Drop change: added Walk to the station" })).toBeNull();
  });
});
