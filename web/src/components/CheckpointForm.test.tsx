import { afterEach, describe, expect, it, vi } from "vitest";
import { cleanup, fireEvent, render, screen, waitFor } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { CheckpointForm, type CheckpointFields } from "./CheckpointForm";
import type { Draft } from "../api";

afterEach(cleanup);

const draft: Draft = {
  title: "Trip plan",
  objective: "Plan two weeks",
  summary: "We chose the train.",
  decisions: ["Take the train", "East coast only"],
  assumptions: ["Budget is fixed"],
  tasks: [{ text: "Book tickets", id: "t1", intent_hint: "implement", status: "open", blocked_by: "t0" }, "Check visas"],
  open_questions: ["Rent a car?"],
  entities: ["Sydney"],
};

describe("CheckpointForm", () => {
  it("fills every field from a draft, with structured tasks as editable rows", async () => {
    render(<CheckpointForm onDraft={() => Promise.resolve(draft)} onSubmit={vi.fn()} />);
    await userEvent.click(screen.getByRole("button", { name: "Draft with AI" }));
    expect((await screen.findByLabelText("Task 1 text")).getAttribute("value") ?? (screen.getByLabelText("Task 1 text") as HTMLInputElement).value).toBe("Book tickets");
    expect((screen.getByLabelText("Task 1 intent") as HTMLSelectElement).value).toBe("implement");
    expect((screen.getByLabelText("Task 1 status") as HTMLSelectElement).value).toBe("open");
    expect((screen.getByLabelText("Task 2 text") as HTMLInputElement).value).toBe("Check visas");
    expect(screen.getByText(/blocked by t0/)).toBeTruthy();
    expect((screen.getByLabelText("Message (required)") as HTMLInputElement).value).toBe("Trip plan");
    expect((screen.getByLabelText("Decisions (one per line)") as HTMLTextAreaElement).value).toBe("Take the train\nEast coast only");
    expect(document.body.textContent).not.toContain("[object Object]");
    for (const el of document.querySelectorAll("input, textarea")) expect((el as HTMLInputElement).value).not.toContain("[object Object]");
  });

  it("submits tasks as objects with the edits made", async () => {
    const onSubmit = vi.fn<(f: CheckpointFields) => Promise<void>>().mockResolvedValue(undefined);
    render(<CheckpointForm onDraft={() => Promise.resolve(draft)} onSubmit={onSubmit} />);
    await userEvent.click(screen.getByRole("button", { name: "Draft with AI" }));
    await screen.findByLabelText("Task 1 text");
    await userEvent.selectOptions(screen.getByLabelText("Task 1 status"), "done");
    await userEvent.clear(screen.getByLabelText("Task 2 text"));
    await userEvent.type(screen.getByLabelText("Task 2 text"), "Check visas for both");
    await userEvent.click(screen.getByRole("button", { name: "Remove task 2" }));
    await userEvent.click(screen.getByRole("button", { name: "Add task" }));
    await userEvent.type(screen.getByLabelText("Task 2 text"), "Pack");
    await userEvent.click(screen.getByRole("button", { name: "Add artifact" }));
    await userEvent.type(screen.getByLabelText("Artifact 1 label"), "Route");
    await userEvent.type(screen.getByLabelText("Artifact 1 content"), "Sydney to Cairns");
    await userEvent.click(screen.getByRole("button", { name: "Save checkpoint" }));
    expect(onSubmit).toHaveBeenCalledTimes(1);
    const f = onSubmit.mock.calls[0][0];
    expect(f.message).toBe("Trip plan");
    expect(f.tasks).toEqual([
      { text: "Book tickets", id: "t1", intent_hint: "implement", blocked_by: "t0", status: "done" },
      { text: "Pack", status: "open" },
    ]);
    expect(f.decisions).toEqual(["Take the train", "East coast only"]);
    expect(f.artifacts.map((a) => [a.label, a.content, a.type])).toEqual([["Route", "Sydney to Cairns", "text"]]);
  });

  it("requires a message and reports a failed draft", async () => {
    const onSubmit = vi.fn();
    render(<CheckpointForm onDraft={() => Promise.reject(new Error("Background provider not configured"))} onSubmit={onSubmit} />);
    await userEvent.click(screen.getByRole("button", { name: "Draft with AI" }));
    expect((await screen.findByRole("alert")).textContent).toBe("Draft failed: Background provider not configured");
    await userEvent.type(screen.getByLabelText("Message (required)"), "   ");
    fireEvent.submit(screen.getByRole("form", { name: "Checkpoint" }));
    await waitFor(() => expect(screen.getByRole("alert").textContent).toBe("A message is required."));
    expect(onSubmit).not.toHaveBeenCalled();
  });
});
