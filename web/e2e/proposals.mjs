// Proposals through the web inbox: an agent's PreCompact hook (the real
// binary) leaves its draft on the server; the space's inbox lists it, a
// person unticks an item and accepts it after another session saved a
// disjoint change (rebased, both kept); a second draft that changes the
// same item as another save shows the conflicts, which the dialog settles.
// No local pending-draft file is written. The chat's checkpoint form saves
// a draft for later into the same inbox. Called by run.mjs with its
// browser, server and helpers.
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const userTurn = (n, text) =>
  JSON.stringify({
    type: "user",
    uuid: `e0000000-0000-4000-8000-00000000000${n}`,
    sessionId: "5e55a0e1-1111-4222-8333-444455556666",
    timestamp: `2026-12-01T09:0${n}:00.000Z`,
    message: { role: "user", content: text },
  }) + "\n";

export async function proposalScenarios({ browser, base, api, expect, shot, axe, cli, work }) {
  console.log("proposals: PreCompact leaves a draft the inbox shows; accepting it after another save rebases, or settles the conflict");
  const sp = await api("POST", "/api/v2/repos", { name: "Hook drafts", description: "proposals" });
  const other = await api("POST", `/api/v4/chat/spaces/${sp.id}/sessions`, { title: "other", provider: "mock", model: "mock" });
  const save = async (message, decisions) => {
    const head = await api("GET", `/api/v4/chat/spaces/${sp.id}/head`);
    return api("POST", "/api/v4/chat/commit", { repo_id: sp.id, session_id: other.id, message, decisions, base_checkpoint_id: head.commit_id ?? undefined });
  };
  await save("Limits", ["Access tokens expire after 15 minutes", "Retry a failed upload 3 times"]);

  const proj = join(work, "hook-proj");
  mkdirSync(proj, { recursive: true });
  const transcript = join(work, "hook-session.jsonl");
  writeFileSync(transcript, userTurn(1, "Decision: access tokens expire after 30 minutes.") + userTurn(2, "Assumption: the pool holds 20 connections."));
  const hookIn = JSON.stringify({ session_id: "5e55a0e1-1111-4222-8333-444455556666", transcript_path: transcript, cwd: proj, hook_event_name: "PreCompact", trigger: "auto" });
  const out = await cli(["hook", "pre-compact", "--space", sp.name, "--api-url", base], hookIn);
  expect(/it waits on the server as proposal [0-9a-f]{8}/.test(out), "PreCompact says the draft waits on the server as a proposal");
  expect(!existsSync(join(proj, ".smriti", "pending-draft.json")), "no local pending-draft file is written");

  // Another session saves a disjoint change before anyone reviews the draft.
  await save("Deploys", ["Access tokens expire after 15 minutes", "Retry a failed upload 3 times", "Deploy with systemd"]);

  const ctx = await browser.newContext({ viewport: { width: 1280, height: 860 } });
  const page = await ctx.newPage();
  page.on("pageerror", (e) => console.log("  page error:", e.message));
  await page.goto(`${base}/spaces/${sp.id}/lineage`);
  await page.getByRole("link", { name: "Proposals" }).click();
  await page.getByRole("heading", { name: "Proposals: Hook drafts" }).waitFor();
  const row = page.getByTestId("proposals").getByRole("button");
  await row.first().waitFor();
  expect((await row.count()) === 1 && /from hook on main/.test(await row.first().innerText()), "the inbox lists the hook's draft");
  const review = page.getByTestId("review");
  expect((await review.getByRole("checkbox").count()) >= 3, "the draft's items are listed one by one");
  await shot(page, "proposals-inbox");
  await axe(page, "proposals-inbox");
  await review.getByLabel("The pool holds 20 connections").uncheck();
  const accepted = page.waitForResponse((r) => r.url().endsWith("/accept") && r.request().method() === "POST");
  await review.getByRole("button", { name: "Accept" }).click();
  const a = await accepted;
  expect(a.status() === 201, "accepting answers 201");
  const { checkpoint } = await a.json();
  expect(checkpoint.rebased_from && checkpoint.decisions.includes("Deploy with systemd") && checkpoint.decisions.includes("Access tokens expire after 30 minutes"),
    "the accept was rebased onto the other session's save, keeping both changes");
  expect(!checkpoint.assumptions.includes("The pool holds 20 connections"), "the unticked item was not saved");
  await page.getByTestId("rebased-notice").waitFor();
  await page.getByText("Nothing waits for review in this space.").waitFor();

  // A second draft changes the item another save changes too.
  writeFileSync(transcript, userTurn(1, "Decision: access tokens expire after 30 minutes.") + userTurn(2, "Assumption: the pool holds 20 connections.") + userTurn(3, "Decision: access tokens expire after 45 minutes."));
  await cli(["hook", "pre-compact", "--space", sp.name, "--api-url", base], hookIn);
  await save("Longer tokens", ["Access tokens expire after 60 minutes", "Retry a failed upload 3 times", "Deploy with systemd"]);
  await page.reload();
  await page.getByTestId("review").waitFor();
  const refused = page.waitForResponse((r) => r.url().endsWith("/accept") && r.request().method() === "POST");
  await page.getByTestId("review").getByRole("button", { name: "Accept" }).click();
  expect((await refused).status() === 409, "accepting over a conflicting save answers 409");
  const dialog = page.getByRole("dialog");
  const conflict = dialog.getByTestId("save-conflict");
  await conflict.first().waitFor();
  const text = await conflict.first().innerText();
  expect(/Access tokens expire after 60 minutes/.test(text) && /Access tokens expire after 45 minutes/.test(text), "the dialog shows the head's and the draft's texts");
  await shot(page, "proposals-conflict");
  await conflict.first().getByRole("radio").nth(1).check();
  const settled = page.waitForResponse((r) => r.url().endsWith("/accept") && r.request().method() === "POST");
  await dialog.getByRole("button", { name: "Save with these choices" }).click();
  expect((await settled).status() === 201, "the settled accept saves");
  const state = await api("GET", `/api/v4/chat/spaces/${sp.id}/state`);
  expect(state.commit.decisions.includes("Access tokens expire after 45 minutes") && !state.commit.decisions.includes("Access tokens expire after 60 minutes"),
    "the draft's choice is the head's state");
  expect(!existsSync(join(proj, ".smriti", "pending-draft.json")), "still no local pending-draft file");
  await saveForLaterScenario({ page, base, api, expect, shot, sp });
  await ctx.close();
}

// The chat's checkpoint form saves its draft for later: the server keeps
// it as a proposal (source web), the head does not move, and the dialog
// points to the inbox, which lists it.
async function saveForLaterScenario({ page, base, api, expect, shot, sp }) {
  console.log("proposals: the chat's checkpoint form saves for later into the inbox");
  const se = await api("POST", `/api/v4/chat/spaces/${sp.id}/sessions`, { title: "web later", provider: "mock", model: "mock" });
  const before = await api("GET", `/api/v4/chat/spaces/${sp.id}/head`);
  await page.goto(`${base}/sessions/${se.id}`);
  await page.getByRole("button", { name: "Create checkpoint" }).click();
  const form = page.getByRole("dialog").getByRole("form", { name: "Checkpoint" });
  await form.waitFor();
  await form.getByLabel("Message (required)").fill("Uploads, for later");
  const d = form.getByLabel("Decisions (one per line)");
  await d.fill(`${await d.inputValue()}\nResume uploads after a restart`);
  const posted = page.waitForResponse((r) => r.url().endsWith(`/api/v5/spaces/${sp.id}/proposals`) && r.request().method() === "POST");
  await form.getByRole("button", { name: "Save for later" }).click();
  const res = await posted;
  const p = await res.json();
  expect(res.status() === 201 && p.source === "web" && p.status === "pending" && p.session_id === se.id && p.title === "Uploads, for later",
    `saving for later answers 201 with a pending web proposal from the session (${res.status()} ${p.source} ${p.status})`);
  expect(p.decisions.includes("Resume uploads after a restart") && p.decisions.includes("Access tokens expire after 45 minutes"),
    "the proposal holds the form's whole state, the new decision with the base's");
  const after = await api("GET", `/api/v4/chat/spaces/${sp.id}/head`);
  expect(after.commit_id === before.commit_id, "nothing was committed: the head did not move");
  const done = page.getByTestId("saved-for-later");
  await done.waitFor();
  expect((await done.innerText()).includes(`proposal ${p.id.slice(0, 8)}`), "the dialog names the proposal");
  await shot(page, "proposals-saved-for-later");
  await done.getByRole("link", { name: "Open the inbox" }).click();
  await page.getByRole("heading", { name: `Proposals: ${sp.name}` }).waitFor();
  expect(new URL(page.url()).pathname === `/spaces/${sp.id}/proposals`, "the link opens the space's inbox");
  const row = page.getByTestId("proposals").getByRole("button");
  await row.first().waitFor();
  expect((await row.count()) === 1 && /Uploads, for later/.test(await row.first().innerText()) && /from web on main/.test(await row.first().innerText()),
    "the inbox lists the saved draft, from web");
}
