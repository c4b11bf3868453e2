// End-to-end run of the web workspace in Debian's Chromium against a real
// `smriti serve` (SQLite in a temporary directory, mock provider, no keys).
// Usage: SMRITI_BIN=path/to/smriti node e2e/run.mjs
// Writes a screenshot per step, axe results and budget figures to
// e2e-artifacts/ and exits non-zero on the first failed expectation.
import { spawn } from "node:child_process";
import { mkdtempSync, mkdirSync, rmSync, writeFileSync, readFileSync } from "node:fs";
import { createServer } from "node:net";
import { cpus, loadavg, tmpdir } from "node:os";
import { join, dirname } from "node:path";
import { gzipSync } from "node:zlib";
import { fileURLToPath } from "node:url";
import { createRequire } from "node:module";
import { chromium } from "playwright-core";
import { scrollUpFps } from "./scrollfps.mjs";
import { integrityScenarios } from "./integrity.mjs";
import { chatScenarios } from "./chat.mjs";
import { graphScenarios, reviewScenarios } from "./review.mjs";
import { proposalScenarios } from "./proposals.mjs";
import { syncScenarios } from "./sync.mjs";
import { provenanceScenarios } from "./provenance.mjs";
import { redactionScenarios } from "./redaction.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const out = join(here, "..", "e2e-artifacts");
rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });
const axeSource = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");

const bin = process.env.SMRITI_BIN;
if (!bin) throw new Error("set SMRITI_BIN to a smriti binary built with -tags webui");
const chromiumPath = process.env.CHROMIUM || "/usr/bin/chromium";

const freePort = () =>
  new Promise((resolve, reject) => {
    const s = createServer();
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
    s.on("error", reject);
  });

function expect(cond, what) {
  if (!cond) throw new Error(`expectation failed: ${what}`);
  console.log(`  ok  ${what}`);
}

const work = mkdtempSync(join(tmpdir(), "smriti-e2e-"));
const env = { PATH: process.env.PATH, HOME: work };
const servers = [];

// Starts `smriti serve` on a free port with its own database and waits for
// /health; extra holds flags such as --auth.
async function startServer(db, extra = []) {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const proc = spawn(bin, ["serve", "--addr", `127.0.0.1:${port}`, "--db", db, "--config", join(work, "none.yaml"), "--env-file", join(work, "none.env"), ...extra], {
    env,
    stdio: ["ignore", "pipe", "pipe"],
  });
  const srv = { base, proc, log: "" };
  servers.push(srv);
  proc.stdout.on("data", (d) => (srv.log += d));
  proc.stderr.on("data", (d) => (srv.log += d));
  for (let i = 0; ; i++) {
    try {
      if ((await fetch(`${base}/health`)).ok) break;
    } catch {
      /* not up yet */
    }
    if (i > 100) throw new Error(`server did not start:\n${srv.log}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  return srv;
}

// Runs the real binary's CLI (e.g. `smriti user add`), password on stdin.
function cli(args, input = "") {
  return new Promise((resolve, reject) => {
    const p = spawn(bin, args, { env, stdio: ["pipe", "pipe", "pipe"] });
    let output = "";
    p.stdout.on("data", (d) => (output += d));
    p.stderr.on("data", (d) => (output += d));
    p.on("error", reject);
    p.on("close", (code) => (code === 0 ? resolve(output) : reject(new Error(`smriti ${args.join(" ")} exited ${code}: ${output}`))));
    p.stdin.end(input);
  });
}

const { base } = await startServer(join(work, "smriti.db"));

const browser = await chromium.launch({
  executablePath: chromiumPath,
  headless: true,
  args: [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
  ],
  // Playwright gives the browser a fresh temporary profile (it refuses an
  // explicit --user-data-dir outside a persistent context).
});

const figures = {};
const axeResults = {};
let step = 0;
async function shot(page, name) {
  step++;
  const file = `${String(step).padStart(2, "0")}-${name}.png`;
  await page.screenshot({ path: join(out, file), fullPage: false });
  console.log(`  ss  ${file}`);
}

async function axe(page, name) {
  await page.addScriptTag({ content: axeSource });
  const res = await page.evaluate(async () => {
    // Colours are read as painted: a fade still running (a message's
    // actions fading in, a panel closing) would be judged half-way.
    await Promise.all(document.getAnimations().map((a) => a.finished.catch(() => {})));
    // eslint-disable-next-line no-undef
    const r = await axe.run(document, { resultTypes: ["violations"] });
    return r.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.slice(0, 3).map((n) => n.target.join(" ")) }));
  });
  axeResults[name] = res;
  const bad = res.filter((v) => v.impact === "serious" || v.impact === "critical");
  expect(bad.length === 0, `axe: no serious or critical issue on ${name}${bad.length ? " — " + JSON.stringify(bad) : ""}`);
}

const api = async (method, path, body) => {
  const r = await fetch(base + path, { method, headers: { "Content-Type": "application/json" }, body: body === undefined ? undefined : JSON.stringify(body) });
  if (!r.ok) throw new Error(`${method} ${path}: ${r.status} ${await r.text()}`);
  return r.status === 204 ? null : r.json();
};

let failed = null;
try {
  // SMRITI_E2E_ONLY=chat runs the chat scenarios alone (chat.mjs), =proposals the proposals' (proposals.mjs), =sync the sync's (sync.mjs), =provenance the long thread's (provenance.mjs), =graph the 300-checkpoint graph's (review.mjs), =redaction the redacted message's (redaction.mjs).
  full: {
  if (process.env.SMRITI_E2E_ONLY === "proposals") {
    await proposalScenarios({ browser, base, api, expect, shot, axe, cli, work });
    break full;
  }
  if (process.env.SMRITI_E2E_ONLY === "sync") {
    await syncScenarios({ browser, base, expect, shot, axe, startServer, work });
    break full;
  }
  if (process.env.SMRITI_E2E_ONLY === "redaction") {
    await redactionScenarios({ browser, base, api, expect, shot, axe });
    break full;
  }
  if (process.env.SMRITI_E2E_ONLY === "graph") {
    await graphScenarios({ browser, base, api, expect, shot, axe });
    break full;
  }
  if (process.env.SMRITI_E2E_ONLY === "provenance") {
    await provenanceScenarios({ browser, base, api, expect, shot, axe });
    break full;
  }
  if (process.env.SMRITI_E2E_ONLY === "chat") break full;
  const ctxA = await browser.newContext({ viewport: { width: 1280, height: 860 } });
  const page = await ctxA.newPage();
  page.on("pageerror", (e) => console.log("  page error:", e.message));

  console.log("overview");
  await page.goto(base + "/");
  await page.getByRole("heading", { name: "Overview" }).waitFor();
  await shot(page, "overview-empty");
  await axe(page, "overview");

  console.log("create a space");
  await page.getByLabel("Name").fill("Australia trip");
  await page.getByLabel("Description").fill("Two weeks in March");
  await page.getByRole("button", { name: "Create space" }).click();
  await page.waitForURL(/\/sessions\//);
  const firstSession = page.url();
  const spaceLink = await page.locator("header a[href*='/lineage']").getAttribute("href");
  const spaceId = spaceLink.split("/")[2];

  console.log("second browser context watches the lineage page");
  const ctxB = await browser.newContext({ viewport: { width: 1024, height: 800 } });
  const watcher = await ctxB.newPage();
  await watcher.goto(`${base}/spaces/${spaceId}/lineage`);
  await watcher.getByRole("heading", { name: /Lineage of Australia trip/ }).waitFor();
  expect((await watcher.getByTestId("lineage-checkpoint").count()) === 0, "the watcher starts with no checkpoints");

  console.log("budget: chat page load");
  // Initial JS: every script the chat page loads before it is usable,
  // gzipped here at level 9. Paint: five fresh loads, the median reported
  // and held to the budget (this machine's CPUs are shared, so single loads
  // jitter).
  const loads = [];
  let scripts = [];
  for (let i = 0; i < 5; i++) {
    const p = await ctxA.newPage();
    const seen = [];
    p.on("response", (r) => r.request().resourceType() === "script" && seen.push(r));
    await p.goto(firstSession, { waitUntil: "load" });
    await p.getByRole("textbox", { name: "Message", exact: true }).waitFor();
    loads.push(
      await p.evaluate(() => {
        const fcp = performance.getEntriesByName("first-contentful-paint")[0];
        return { fcp: fcp ? fcp.startTime : 99999, usable: performance.now() };
      }),
    );
    if (i === 0) {
      scripts = [];
      for (const r of seen) scripts.push({ path: new URL(r.url()).pathname, body: await r.body() });
    }
    await p.close();
  }
  const median = (xs) => xs.slice().sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  let jsGzip = 0;
  let jsRaw = 0;
  for (const r of scripts) {
    jsRaw += r.body.length;
    jsGzip += gzipSync(r.body, { level: 9 }).length;
  }
  figures.initialJsFiles = scripts.map((r) => r.path);
  figures.initialJsGzipKB = +(jsGzip / 1024).toFixed(1);
  figures.initialJsRawKB = +(jsRaw / 1024).toFixed(1);
  figures.chatFirstContentfulPaintMs = loads.map((l) => Math.round(l.fcp));
  // First meaningful paint: the moment the chat page shows its composer.
  figures.chatUsableMs = loads.map((l) => Math.round(l.usable));
  figures.chatFirstContentfulPaintMedianMs = Math.round(median(loads.map((l) => l.fcp)));
  figures.chatUsableMedianMs = Math.round(median(loads.map((l) => l.usable)));
  expect(jsGzip <= 250 * 1024, `initial JS ${figures.initialJsGzipKB} KB gzipped ≤ 250 KB`);
  // Paint times measure the machine as much as the page: the 1 s budget is
  // held with SMRITI_E2E_STRICT_BUDGET set (a quiet machine), and a bound
  // four times as wide always; the figures are always written.
  const load = loadavg()[0] / cpus().length;
  figures.loadPerCpu = +load.toFixed(2);
  const paintBudget = process.env.SMRITI_E2E_STRICT_BUDGET ? 1000 : 4000;
  if (paintBudget > 1000) console.log(`  --  load ${load.toFixed(2)} per CPU: FCP median ${figures.chatFirstContentfulPaintMedianMs} ms, usable ${figures.chatUsableMedianMs} ms (1,000 ms held with SMRITI_E2E_STRICT_BUDGET=1)`);
  expect(figures.chatFirstContentfulPaintMedianMs <= paintBudget, `first contentful paint of the chat page, median ${figures.chatFirstContentfulPaintMedianMs} ms ≤ ${paintBudget} ms`);
  expect(figures.chatUsableMedianMs <= paintBudget, `chat page usable (composer shown), median ${figures.chatUsableMedianMs} ms ≤ ${paintBudget} ms`);
  await page.goto(firstSession);
  await page.getByRole("textbox", { name: "Message", exact: true }).waitFor();

  console.log("chat with the mock, streamed");
  expect((await page.getByTestId("context-badge").innerText()) === "FRESH", "a new space's session is FRESH");
  // The mock answers in milliseconds, so a MutationObserver records every
  // text the live bubble showed while the deltas arrived.
  await page.evaluate(() => {
    window.__stream = [];
    new MutationObserver(() => {
      const el = document.querySelector("[data-testid=streaming-reply]");
      if (el) window.__stream.push(el.textContent);
    }).observe(document.body, { subtree: true, childList: true, characterData: true });
  });
  const streamResp = page.waitForResponse((r) => r.url().endsWith("/api/v5/chat/send/stream"));
  await page.getByRole("textbox", { name: "Message", exact: true }).fill("We decided to take the train along the east coast. TODO: book the train tickets");
  await page.getByRole("textbox", { name: "Message", exact: true }).press("Enter");
  const sr = await streamResp;
  const streamBody = (await sr.body()).toString();
  const deltas = (streamBody.match(/^event: delta$/gm) || []).length;
  expect(sr.headers()["content-type"].startsWith("text/event-stream") && deltas > 3, `the reply arrives as a stream of ${deltas} deltas`);
  await page.getByTestId("turn-assistant").first().waitFor();
  const shown = await page.evaluate(() => window.__stream);
  expect(shown.length > 0, `the live bubble rendered ${shown.length} time(s) while streaming`);
  figures.streamDeltas = deltas;
  const reply = await page.getByTestId("turn-assistant").first().innerText();
  expect(reply.includes("You said"), "the mock's reply is in the thread");
  expect((await page.getByRole("textbox", { name: "Message", exact: true }).inputValue()) === "", "the composer is cleared after a send");
  await shot(page, "chat-streamed");
  await axe(page, "chat");

  console.log("Draft with AI, save, review");
  await page.getByRole("button", { name: "Create checkpoint" }).click();
  await page.getByRole("button", { name: "Draft with AI" }).click();
  // The form opens with the base's content, so wait for the draft itself (its diff) before reading it.
  await page.getByTestId("draft-diff").waitFor();
  await page.getByLabel("Task 1 text").waitFor();
  expect((await page.getByLabel("Task 1 text").inputValue()) === "Book the train tickets", "the drafted task is editable text");
  expect((await page.getByLabel("Task 1 status").inputValue()) === "open", "the drafted task's status is an editable choice (open)");
  const dialogText = await page.getByRole("dialog").innerText();
  const values = await page.getByRole("dialog").locator("input, textarea").evaluateAll((els) => els.map((e) => e.value).join("\n"));
  expect(!dialogText.includes("[object Object]") && !values.includes("[object Object]"), "no [object Object] anywhere in the form");
  const mainTitle = await page.getByLabel("Message (required)").inputValue();
  expect(mainTitle.length > 0, `the draft filled the message: "${mainTitle}"`);
  await shot(page, "draft-with-ai");
  await axe(page, "checkpoint-form");
  await page.getByRole("button", { name: "Save checkpoint" }).click();
  await page.getByRole("heading", { name: "Checkpoint saved" }).waitFor();
  const savedText = await page.getByRole("dialog").innerText();
  const hashA = savedText.match(/\b[0-9a-f]{7}\b/)[0];
  await page.getByRole("button", { name: "Review it" }).click();
  await page.getByTestId("review").waitFor();
  await shot(page, "saved-and-reviewed");
  await page.getByRole("button", { name: "Close dialog" }).click();

  console.log("the watcher sees the checkpoint appear live");
  await watcher.getByTestId("lineage-checkpoint").first().waitFor({ timeout: 10000 });
  expect((await watcher.getByTestId("lineage-checkpoint").first().innerText()).includes(hashA), `the watcher shows ${hashA} without reloading`);
  await shot(watcher, "watcher-live-checkpoint");
  await axe(watcher, "lineage");

  console.log("mount it in a new session");
  await page.getByRole("button", { name: "More actions" }).click();
  await page.getByRole("menuitem", { name: "New session" }).click();
  await page.waitForURL((u) => u.toString() !== firstSession);
  const mountSession = page.url();
  await page.getByRole("textbox", { name: "Message", exact: true }).fill("Before mounting: flying would be quicker.");
  await page.getByRole("textbox", { name: "Message", exact: true }).press("Enter");
  await page.getByTestId("turn-assistant").first().waitFor();
  await page.getByRole("button", { name: "History" }).click();
  await page.getByRole("button", { name: `Mount ${hashA}` }).click();
  await page.getByTestId("context-badge").filter({ hasText: `MOUNTED · ${hashA}` }).waitFor();
  expect(true, "the badge says MOUNTED");
  await page.reload();
  await page.getByTestId("context-badge").filter({ hasText: `MOUNTED · ${hashA}` }).waitFor();
  expect(true, "the mount survives a reload (kept on the session)");
  await page.getByRole("button", { name: "History" }).click();
  await page.getByRole("textbox", { name: "Message", exact: true }).fill("What did we decide about transport?");
  await page.getByRole("textbox", { name: "Message", exact: true }).press("Enter");
  await page.getByTestId("turn-assistant").nth(1).waitFor();
  const status = await page.getByTestId("context-status").innerText();
  expect(status.startsWith("ctx: MOUNTED"), `the status line reports the mount: "${status}"`);
  await shot(page, "mounted-ask");
  await page.getByRole("button", { name: "More actions" }).click();
  await page.getByRole("menuitem", { name: "What the model sees" }).click();
  await page.getByTestId("context-messages").waitFor();
  const seen = await page.getByTestId("context-messages").innerText();
  const cps = await page.getByTestId("context-checkpoints").innerText();
  expect(!seen.includes("Before mounting"), "the drawer shows no pre-mount turn");
  expect(seen.includes("What did we decide about transport?"), "the drawer shows the post-mount turn");
  expect(cps.includes(hashA), `the drawer lists the mounted checkpoint ${hashA}`);
  await shot(page, "context-drawer");
  await axe(page, "context-drawer");
  await page.getByRole("button", { name: "Close", exact: true }).click();

  console.log("fork, checkpoint on the fork");
  await page.getByRole("button", { name: `Fork from ${hashA}` }).click();
  await page.getByLabel(/Branch name/).fill("by-bus");
  await page.getByRole("button", { name: "Create branch" }).click();
  await page.waitForURL((u) => u.toString() !== mountSession);
  await page.getByTestId("context-badge").filter({ hasText: `FORKED · ${hashA}` }).waitFor();
  expect(true, "the fork's badge says FORKED");
  await page.getByRole("textbox", { name: "Message", exact: true }).fill("We decided to take the bus instead. TODO: book the bus passes");
  await page.getByRole("textbox", { name: "Message", exact: true }).press("Enter");
  await page.getByTestId("turn-assistant").first().waitFor();
  await page.getByRole("button", { name: "Create checkpoint" }).click();
  await page.getByRole("button", { name: "Draft with AI" }).click();
  // The form opens with the base's content, so wait for the draft itself (its diff) before reading it.
  await page.getByTestId("draft-diff").waitFor();
  await page.getByLabel("Task 1 text").waitFor();
  const forkTasks = await page.locator("[aria-label$=' text'][aria-label^='Task ']").evaluateAll((els) => els.map((e) => e.value));
  expect(forkTasks.includes("Book the bus passes"), `the fork's draft holds the fork's task (tasks: ${JSON.stringify(forkTasks)})`);
  expect((await page.getByTestId("draft-added").innerText()).includes("Book the bus passes"), "the draft is shown as a diff: the bus task is added");
  await page.getByRole("button", { name: "Save checkpoint" }).click();
  await page.getByRole("heading", { name: "Checkpoint saved" }).waitFor();
  const hashB = (await page.getByRole("dialog").innerText()).match(/\b[0-9a-f]{7}\b/)[0];
  expect((await page.getByRole("dialog").innerText()).includes("by-bus"), `checkpoint ${hashB} is on by-bus`);
  await shot(page, "fork-checkpoint");
  await page.getByRole("button", { name: "Close dialog" }).click();

  console.log("main moves on");
  await page.goto(firstSession);
  await page.getByRole("button", { name: "Create checkpoint" }).click();
  await page.getByRole("button", { name: "Draft with AI" }).click();
  // The form opens with the base's content, so wait for the draft itself (its diff) before reading it.
  await page.getByTestId("draft-diff").waitFor();
  await page.getByLabel("Task 1 text").waitFor();
  await page.getByLabel("Message (required)").fill("Train it is, tickets first");
  // Main and the fork both rewrite the summary: the merge's one conflict.
  await page.getByLabel("Summary").fill("Train confirmed; the tickets come before anything else.");
  await page.getByRole("button", { name: "Save checkpoint" }).click();
  await page.getByRole("heading", { name: "Checkpoint saved" }).waitFor();
  const hashC = (await page.getByRole("dialog").innerText()).match(/\b[0-9a-f]{7}\b/)[0];
  await page.getByRole("button", { name: "Close dialog" }).click();

  console.log("compare and merge on the lineage page");
  await page.goto(`${base}/spaces/${spaceId}/lineage`);
  await page.getByTestId("lineage-checkpoint").nth(2).waitFor();
  await page.getByRole("checkbox", { name: new RegExp(hashB) }).check();
  await page.getByRole("checkbox", { name: new RegExp(hashC) }).check();
  await page.getByRole("button", { name: "Compare" }).click();
  await page.getByTestId("compare").waitFor();
  // The compare shows before each side's items view has arrived: read it once they have.
  await page.getByTestId("compare-summary").filter({ hasText: /item\(s\) differ/ }).waitFor();
  const cmp = await page.getByTestId("compare").innerText();
  expect(cmp.includes("Book the bus passes") && cmp.includes("Book the train tickets"), "compare shows each side's tasks");
  const compareUrl = page.url();
  expect(/\/spaces\/[^/]+\/compare\/[^/]+\.\.\.[^/]+$/.test(page.url()), `compare has its own address: ${new URL(page.url()).pathname}`);
  expect((await page.locator("[data-testid=compare] .diff-line.add").count()) > 0 && (await page.locator("[data-testid=compare] .diff-line.del").count()) > 0, "compare colours what only B and only A hold");
  await shot(page, "compare");
  await axe(page, "compare");
  await page.goBack();
  await page.getByTestId("lineage-checkpoint").nth(2).waitFor();
  // A merge starts from the branch: its direction is the link's, never the order of clicks.
  const previewResp = page.waitForResponse((r) => r.url().endsWith("/api/v5/lineage/merge"));
  await page.getByRole("link", { name: "Merge by-bus into main" }).click();
  await page.getByRole("heading", { name: "Merge by-bus into main" }).waitFor();
  await previewResp;
  await page.getByTestId("merge-preview").waitFor();
  const conflicts = page.getByTestId("merge-conflict");
  const n = await conflicts.count();
  expect(n === 1, `the merge has exactly one conflict (got ${n})`);
  expect(await page.getByRole("button", { name: "Merge", exact: true }).isDisabled(), "merge waits for the conflict's resolution");
  await conflicts.first().getByRole("radio", { name: /theirs/ }).check();
  const removed = await page.getByTestId("merge-remove").allInnerTexts();
  // State accumulates: the branch's checkpoint carried main's task, so the
  // merge keeps it and lists no removal of it.
  expect(!removed.some((r) => r.includes("Book the train tickets")), `the merge removes nothing the branch carried: ${JSON.stringify(removed)}`);
  expect((await page.getByTestId("merge-preview").innerText()).includes("Book the train tickets"), "the merge preview keeps main's task");
  await page.getByRole("button", { name: "Preview with these choices" }).click();
  await page.getByTestId("merge-preview").filter({ hasText: "We decided to take the bus" }).or(page.getByTestId("merge-preview")).first().waitFor();
  await shot(page, "merge-resolution");
  await axe(page, "merge");
  await page.getByRole("button", { name: "Merge", exact: true }).click();
  await page.getByRole("status").filter({ hasText: "Merged as" }).waitFor();
  expect(true, "the merge is committed");
  await page.getByRole("status").getByRole("link").click();
  await page.waitForURL(/\/checkpoints\//);
  const detailUrl = page.url();

  console.log("verify badge");
  await page.getByTestId("verify-badge").waitFor();
  const badge = await page.getByTestId("verify-badge").innerText();
  expect(badge.startsWith("verified ✓"), `the merged checkpoint verifies: "${badge}"`);
  await shot(page, "checkpoint-detail-verified");
  await axe(page, "checkpoint-detail");

  console.log("coordination");
  await fetch(`${base}/api/v5/claims`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ space_id: spaceId, agent: "codex", scope: "Book the train tickets", branch_name: "main" }),
  });
  await page.goto(`${base}/spaces/${spaceId}/coordination`);
  await page.getByTestId("claims").getByText("Book the train tickets").waitFor();
  await page.getByRole("heading", { name: "State brief" }).waitFor();
  // The brief arrives after its heading: wait for its text, not a snapshot of the loading state.
  await page.locator("section[aria-labelledby=brief-title]").getByText("Australia trip").first().waitFor().catch(() => {});
  expect((await page.locator("section[aria-labelledby=brief-title]").innerText()).includes("Australia trip"), "the state brief names the space");
  await shot(page, "coordination");
  await axe(page, "coordination");

  console.log("settings, responsive width, dark theme");
  await page.goto(`${base}/settings`);
  await page.getByTestId("background-slot").waitFor();
  await shot(page, "settings");
  await axe(page, "settings");
  await page.setViewportSize({ width: 1024, height: 768 });
  await page.goto(`${base}/spaces/${spaceId}/lineage`);
  await page.getByTestId("lineage-checkpoint").nth(3).waitFor();
  await page.locator(".react-flow__node-cp").first().waitFor();
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
  expect(overflow <= 0, `no horizontal scroll at 1024 px (overflow ${overflow})`);
  await shot(page, "lineage-1024-merged");
  await page.emulateMedia({ colorScheme: "dark" });
  await page.goto(mountSession);
  await page.getByTestId("turn-assistant").first().waitFor();
  await shot(page, "chat-dark");
  await axe(page, "chat-dark");
  await ctxB.close();
  await ctxA.close();

  const loadNow = () => loadavg()[0] / cpus().length;

  console.log("a 200-turn session opens at its newest message");
  const ctxL = await browser.newContext({ viewport: { width: 1280, height: 860 } });
  const lp = await ctxL.newPage();
  lp.on("pageerror", (e) => console.log("  page error:", e.message));
  const longSession = await api("POST", `/api/v4/chat/spaces/${spaceId}/sessions`, { title: "Long thread", provider: "mock", model: "mock" });
  for (let i = 1; i <= 100; i++) {
    await api("POST", "/api/v4/chat/send", { session_id: longSession.id, provider: "mock", model: "mock", use_mock: true, message: `Message number ${i}` + (i % 10 === 5 ? "\n\n```go\nfunc main() {}\n```" : "") });
  }
  await lp.goto(`${base}/sessions/${longSession.id}`);
  await lp.getByText("You said: \"Message number 100\"", { exact: false }).first().waitFor();
  await lp.waitForFunction(() => {
    const el = document.querySelector("[data-testid=thread]");
    return el && el.scrollHeight - el.scrollTop - el.clientHeight < 4;
  });
  const geo = await lp.evaluate(() => {
    const el = document.querySelector("[data-testid=thread]");
    return { top: el.scrollTop, height: el.scrollHeight, client: el.clientHeight, rendered: document.querySelectorAll("[data-testid^=turn-]").length };
  });
  expect(geo.top > 0 && geo.height - geo.top - geo.client < 4, `the 200-turn thread opens scrolled to the bottom (scrollTop ${Math.round(geo.top)} of ${Math.round(geo.height)})`);
  expect(geo.rendered < 60, `the thread is virtualised: ${geo.rendered} of 200 messages in the DOM`);
  figures.longThreadRenderedMessages = geo.rendered;
  await shot(lp, "long-thread-bottom");
  // Scroll speed: 90 animation frames, each scrolling 120 px up.
  const scrollUp = () => scrollUpFps(lp);
  const atNewest = async () => {
    await lp.reload();
    await lp.getByText("You said: \"Message number 100\"", { exact: false }).first().waitFor();
    await lp.waitForFunction(() => {
      const el = document.querySelector("[data-testid=thread]");
      return el && el.scrollHeight - el.scrollTop - el.clientHeight < 4;
    });
  };
  // Three passes, each from a fresh load of the session (the first on the
  // page as opened above), the median held up to the budget: like the paint
  // figures, one pass on this machine's shared CPUs jitters with what else
  // runs. All three are recorded.
  const passes = [];
  for (let i = 0; i < 3; i++) {
    if (i > 0) await atNewest();
    passes.push({ fps: await scrollUp(), load: loadNow() });
  }
  const fps = median(passes.map((p) => p.fps));
  figures.longThreadScrollFpsPasses = passes.map((p) => +p.fps.toFixed(1));
  figures.longThreadScrollFps = +fps.toFixed(1);
  figures.longThreadScrollLoadPerCpu = +median(passes.map((p) => p.load)).toFixed(2);
  // Reported, not asserted (no timing asserts): the budget is 50 fps.
  console.log(`  --  200-turn thread scroll: median ${fps.toFixed(1)} fps of ${figures.longThreadScrollFpsPasses.join(", ")} (budget 50) at load ${figures.longThreadScrollLoadPerCpu} per CPU`);
  // The frame rate measures the machine as much as the page: the same
  // scroll, from a fresh load, is traced once more to report what the page
  // itself costs, the renderer's main-thread CPU time per frame (thread time,
  // so time spent waiting for a CPU is not counted).
  await atNewest();
  await browser.startTracing(lp, { categories: ["toplevel"] });
  await scrollUp();
  const trace = JSON.parse((await browser.stopTracing()).toString()).traceEvents;
  const mainThreads = new Set(trace.filter((e) => e.ph === "M" && e.name === "thread_name" && e.args.name === "CrRendererMain").map((e) => `${e.pid}:${e.tid}`));
  const cpuByThread = new Map();
  for (const e of trace) {
    if (e.ph !== "X" || (e.name !== "ThreadControllerImpl::RunTask" && e.name !== "RunTask") || !mainThreads.has(`${e.pid}:${e.tid}`)) continue;
    cpuByThread.set(`${e.pid}:${e.tid}`, (cpuByThread.get(`${e.pid}:${e.tid}`) ?? 0) + (e.tdur ?? 0));
  }
  const pageCpuMs = Math.max(0, ...cpuByThread.values()) / 1000;
  figures.longThreadScrollMainThreadMsPerFrame = +(pageCpuMs / 89).toFixed(2);
  console.log(`  --  200-turn thread scroll: ${figures.longThreadScrollMainThreadMsPerFrame} ms of main-thread CPU per frame (60 fps leaves 16.7 ms)`);
  await lp.getByRole("button", { name: "Jump to latest" }).click();
  await lp.waitForFunction(() => {
    const el = document.querySelector("[data-testid=thread]");
    return el.scrollHeight - el.scrollTop - el.clientHeight < 4;
  });
  expect(true, "scrolled up, the thread offers Jump to latest, which returns to the newest message");

  console.log("a 2,100-turn session opens at its newest turn and keeps what is sent there");
  {
    let md = "# Very long thread\n\n";
    for (let i = 0; i < 1050; i++) md += `User: Question ${i}\n\nAssistant: Answer ${i}\n\n`;
    const r = await fetch(`${base}/api/v5/import/transcript?space_id=${spaceId}&filename=long.md`, { method: "POST", headers: { "Content-Type": "application/octet-stream" }, body: md });
    if (!r.ok) throw new Error(`import: ${r.status} ${await r.text()}`);
    const imported = await r.json();
    const vlong = imported.conversations[0];
    expect(vlong.turns === 2100, `the transcript import wrote 2,100 turns (${vlong.turns})`);
    // A page of its own: the scenario after this one goes on with lp on the 200-turn session.
    const vp = await ctxL.newPage();
    vp.on("pageerror", (e) => console.log("  page error:", e.message));
    await vp.goto(`${base}/sessions/${vlong.session_id}`);
    await vp.getByText("Answer 1049", { exact: true }).waitFor();
    await vp.waitForFunction(() => {
      const el = document.querySelector("[data-testid=thread]");
      return el && el.scrollHeight - el.scrollTop - el.clientHeight < 4;
    });
    const seqs = () => vp.evaluate(() => [...document.querySelectorAll("[data-seq]")].map((e) => Number(e.getAttribute("data-seq"))));
    const opened = await seqs();
    expect(Math.max(...opened) === 2099, `it opens at the newest turn, #2099 (the newest in view: #${Math.max(...opened)})`);
    const vbox = vp.getByRole("textbox", { name: "Message", exact: true });
    await vbox.fill("After two thousand turns");
    await vbox.press("Enter");
    await vp.getByText('You said: "After two thousand turns"', { exact: false }).first().waitFor({ timeout: 15000 });
    await vp.getByTestId("streaming-reply").waitFor({ state: "detached" });
    const sent = await vp.evaluate(() => [...document.querySelectorAll("[data-seq]")].slice(-2).map((e) => `${e.getAttribute("data-seq")}:${e.getAttribute("data-testid")}`));
    expect(sent.join(",") === "2100:turn-user,2101:turn-assistant", `the message sent there and its reply are turns #2100 and #2101 (${sent.join(",")})`);
    await vp.reload();
    await vp.getByText('You said: "After two thousand turns"', { exact: false }).first().waitFor();
    await vp.getByText("After two thousand turns", { exact: true }).waitFor();
    expect(true, "after a reload the message and its reply are still there, at the bottom");
    // Scrolled to the top, the thread reads the page before the first one it opened with.
    for (let i = 0; i < 40 && Math.min(...(await seqs())) >= 1902; i++) {
      await vp.evaluate(() => { const el = document.querySelector("[data-testid=thread]"); el.scrollTop = 0; el.dispatchEvent(new Event("scroll")); });
      await vp.waitForTimeout(150);
    }
    const low = Math.min(...(await seqs()));
    expect(low < 1902, `scrolled to the top, earlier turns are loaded (lowest in view #${low})`);
    await shot(vp, "very-long-thread-older");
    // Unsent text survives leaving the session, and the box has the focus when the session opens again.
    await vp.getByRole("textbox", { name: "Message", exact: true }).fill("half a thought");
    await vp.goto(`${base}/spaces/${spaceId}/lineage`);
    await vp.getByRole("heading", { name: /Lineage of/ }).waitFor();
    await vp.goto(`${base}/sessions/${vlong.session_id}`);
    await vp.getByText("After two thousand turns", { exact: true }).waitFor();
    const draftBack = await vp.evaluate(() => ({ value: document.getElementById("composer-text")?.value, focused: document.activeElement?.id }));
    expect(draftBack.value === "half a thought" && draftBack.focused === "composer-text", `the draft is back after leaving the session, with the focus in the box (${JSON.stringify(draftBack)})`);
    await vp.close();
  }

  console.log("a second browser context and the CLI: replies appear live");
  const ctxW = await browser.newContext({ viewport: { width: 1024, height: 800 } });
  const wp = await ctxW.newPage();
  await wp.goto(`${base}/sessions/${longSession.id}`);
  await wp.getByText("You said: \"Message number 100\"", { exact: false }).first().waitFor();
  const box2 = lp.getByRole("textbox", { name: "Message", exact: true });
  await box2.fill("Sent from the first tab");
  await box2.press("Enter");
  await wp.getByText("You said: \"Sent from the first tab\"", { exact: false }).first().waitFor({ timeout: 10000 });
  expect(true, "a reply sent in one browser context appears in the other without a reload");
  await cli(["chat", "--api-url", base, "--session", longSession.id, "--mock", spaceId, "Sent from the CLI"]);
  await wp.getByText("You said: \"Sent from the CLI\"", { exact: false }).first().waitFor({ timeout: 10000 });
  await lp.getByText("You said: \"Sent from the CLI\"", { exact: false }).first().waitFor({ timeout: 10000 });
  expect(true, "a reply sent by the CLI appears in both open pages without a reload");
  await shot(wp, "live-reply-from-cli");
  await ctxW.close();

  console.log("the fork dialog takes typed input");
  await lp.goto(mountSession);
  await lp.getByTestId("turn-assistant").first().waitFor();
  await lp.getByTestId("turn-assistant").last().hover();
  await lp.getByRole("button", { name: /^Fork from message/ }).last().click();
  await lp.getByRole("dialog").waitFor();
  const focused = await lp.evaluate(() => document.activeElement?.id);
  expect(focused === "chat-fork-branch", `the fork dialog opens with the focus on the branch name (focus: ${focused})`);
  await lp.keyboard.type("by-ferry");
  await lp.keyboard.press("Enter");
  await lp.waitForURL((u) => u.toString() !== mountSession);
  await lp.getByText("branch by-ferry").waitFor();
  expect(true, "typing a name and pressing Enter creates branch by-ferry and opens it");

  console.log("keyboard: Ctrl+K navigates, / focuses search, ? lists shortcuts");
  await lp.keyboard.press("Control+k");
  await lp.getByRole("combobox", { name: "Command" }).or(lp.getByPlaceholder(/Type a command/)).first().waitFor();
  await lp.keyboard.type("Settings");
  await lp.keyboard.press("Enter");
  await lp.waitForURL(/\/settings$/);
  expect(true, "Ctrl+K, typing Settings and Enter opens the settings page");
  await lp.keyboard.press("Control+k");
  await lp.keyboard.type("Australia trip lineage");
  await lp.keyboard.press("Enter");
  await lp.waitForURL(/\/lineage$/);
  expect(true, "the palette goes to a space's lineage");
  await lp.locator("body").click({ position: { x: 600, y: 5 } }).catch(() => {});
  await lp.keyboard.press("/");
  expect(await lp.evaluate(() => document.activeElement?.id === "sidebar-search"), "/ focuses the search field");
  await lp.keyboard.press("Escape");
  await lp.evaluate(() => document.activeElement?.blur());
  await lp.keyboard.press("?");
  await lp.getByTestId("shortcuts").waitFor();
  await lp.keyboard.press("Escape");
  await lp.getByTestId("shortcuts").waitFor({ state: "detached" });
  expect(true, "? opens the shortcuts sheet and Esc closes it");
  expect((await lp.title()).startsWith("Lineage of Australia trip"), `the tab title names the page: "${await lp.title()}"`);
  await ctxL.close();

  console.log("a graph of 300 checkpoints on 20 branches");
  const big = await api("POST", "/api/v2/repos", { name: "Big lineage", description: "generated" });
  const mainSe = await api("POST", `/api/v4/chat/spaces/${big.id}/sessions`, { title: "main", provider: "mock", model: "mock" });
  const commitOn = (session, i, branch) =>
    api("POST", "/api/v4/chat/commit", {
      repo_id: big.id, session_id: session, message: `${branch} step ${i}`, summary: `Step ${i} on ${branch}`, objective: "Generated",
      decisions: [`Decision ${i} on ${branch}`], assumptions: [], tasks: [], open_questions: [], entities: [], artifacts: [],
    });
  const mainCps = [];
  for (let i = 1; i <= 15; i++) mainCps.push(await commitOn(mainSe.id, i, "main"));
  for (let b = 1; b < 20; b++) {
    const f = await api("POST", "/api/v5/lineage/sessions/fork", { space_id: big.id, checkpoint_id: mainCps[(b * 7) % 15].id, branch_name: `feature-${String(b).padStart(2, "0")}` });
    for (let i = 1; i <= 15; i++) await commitOn(f.session_id, i, f.branch_name);
  }
  const ctxG = await browser.newContext({ viewport: { width: 1440, height: 900 } });
  const gp = await ctxG.newPage();
  gp.on("pageerror", (e) => console.log("  page error:", e.message));
  await gp.goto(`${base}/spaces/${big.id}/lineage`);
  await gp.getByText("300 checkpoints · 20 branches").waitFor();
  await gp.locator(".react-flow__node-cp").first().waitFor();
  await gp.waitForTimeout(400);
  const textPx = await gp.evaluate(() => {
    const vp = document.querySelector(".react-flow__viewport");
    const scale = new DOMMatrixReadOnly(getComputedStyle(vp).transform).a;
    const fs = parseFloat(getComputedStyle(document.querySelector(".cp-node .m")).fontSize);
    return { scale, px: fs * scale, nodes: document.querySelectorAll(".react-flow__node-cp").length };
  });
  figures.graph300TextPx = +textPx.px.toFixed(1);
  figures.graph300Zoom = +textPx.scale.toFixed(2);
  expect(textPx.px >= 11, `at fit the graph's text is ${textPx.px.toFixed(1)} px ≥ 11 px (zoom ${textPx.scale.toFixed(2)})`);
  const firstNode = gp.locator(".react-flow__node-cp").last();
  await firstNode.click();
  await gp.getByText(/^Selected: /).waitFor();
  expect(true, "a click on a node of the 300-checkpoint graph selects it");
  expect((await gp.locator(".react-flow__minimap").count()) === 1, "the graph has a minimap");
  // Each feature branch is 15 checkpoints in a line: its first (forked from
  // main) and its newest stay, the 13 between are one collapsed node.
  const runs = await gp.locator(".react-flow__node-run").allInnerTexts();
  figures.graph300CollapsedRuns = runs.length;
  figures.graph300NodesDrawn = await gp.locator(".react-flow__node-cp, .react-flow__node-run").count();
  expect(runs.length === 19 && runs.every((t) => t.trim() === "+13 checkpoints"), `the 19 feature branches' linear runs are collapsed, each "+13 checkpoints" (${runs.length}: ${JSON.stringify([...new Set(runs)])})`);
  expect(figures.graph300NodesDrawn === 300 - 19 * 13 + 19, `the graph draws ${figures.graph300NodesDrawn} nodes for 300 checkpoints`);
  // The minimap is an overview: every node the graph draws is a rect there,
  // at least a pixel each way on screen, in its lane's colour.
  const mini = await gp.evaluate(() => {
    const rects = [...document.querySelectorAll(".react-flow__minimap .react-flow__minimap-node")].map((r) => ({ box: r.getBoundingClientRect(), fill: getComputedStyle(r).fill }));
    const toRgb = (c) => {
      const el = document.createElement("i");
      el.style.color = c;
      document.body.append(el);
      const rgb = getComputedStyle(el).color;
      el.remove();
      return rgb;
    };
    const laneColours = [...new Set([...document.querySelectorAll(".react-flow__node-cp .cp-node, .react-flow__node-run .cp-node")].map((n) => toRgb(n.style.getPropertyValue("--lane"))))];
    return {
      count: rects.length,
      minW: Math.min(...rects.map((r) => r.box.width)),
      minH: Math.min(...rects.map((r) => r.box.height)),
      fills: [...new Set(rects.map((r) => r.fill))].sort(),
      laneColours: laneColours.sort(),
      label: document.querySelector(".react-flow__minimap svg title")?.textContent,
    };
  });
  figures.graph300MinimapNodes = mini.count;
  figures.graph300MinimapNodeMinPx = +Math.min(mini.minW, mini.minH).toFixed(2);
  expect(mini.count >= figures.graph300NodesDrawn, `the minimap draws ${mini.count} nodes, at least the graph's ${figures.graph300NodesDrawn}`);
  expect(mini.minW >= 1 && mini.minH >= 1, `each minimap node is at least 1 px each way on screen (smallest ${mini.minW.toFixed(2)} × ${mini.minH.toFixed(2)} px)`);
  expect(mini.laneColours.length === 10 && JSON.stringify(mini.fills) === JSON.stringify(mini.laneColours), `the minimap's nodes are in the lanes' colours: ${mini.fills.join(" ")}`);
  expect(mini.label === "Overview of the whole graph", `the minimap is labelled "${mini.label}"`);
  await axe(gp, "graph-300");
  await shot(gp, "graph-300-checkpoints-20-branches");
  const stepsShown = (branch) => gp.locator(".react-flow__node-cp").filter({ hasText: new RegExp(`${branch} step \\d+$`) }).allInnerTexts();
  expect((await stepsShown("feature-19")).length === 2, "before expanding, feature-19 shows two checkpoints (its first and its newest)");
  const cpBefore = await gp.locator(".react-flow__node-cp").count();
  await gp.getByRole("button", { name: "+13 checkpoints on feature-19, collapsed: show them" }).click();
  await gp.locator(".react-flow__node-cp").filter({ hasText: /feature-19 step 2$/ }).waitFor();
  const expandedSteps = (await stepsShown("feature-19")).map((t) => +t.trim().match(/step (\d+)$/)[1]).sort((a, b) => a - b);
  expect(JSON.stringify(expandedSteps) === JSON.stringify([...Array(15)].map((_, i) => i + 1)), `expanding the run shows feature-19's checkpoints, steps ${expandedSteps.join(",")}`);
  expect((await gp.locator(".react-flow__node-cp").count()) === cpBefore + 13 && (await gp.locator(".react-flow__node-run").count()) === 18, "13 checkpoints were added and one collapsed node less is drawn");
  await gp.waitForTimeout(200);
  const zoomAfter = await gp.evaluate(() => new DOMMatrixReadOnly(getComputedStyle(document.querySelector(".react-flow__viewport")).transform).a);
  expect(zoomAfter * 12 >= 11, `after expanding, the view stays readable (zoom ${zoomAfter.toFixed(2)})`);
  await shot(gp, "graph-300-run-expanded");
  await gp.getByRole("button", { name: "Collapse linear runs" }).click();
  await gp.locator(".react-flow__node-run").nth(18).waitFor();
  expect((await gp.locator(".react-flow__node-run").count()) === 19 && (await stepsShown("feature-19")).length === 2, "Collapse linear runs folds the run again");
  await ctxG.close();

  console.log("the same decision changed on a branch and on main is one conflict on one item");
  {
    const sp = await api("POST", "/api/v2/repos", { name: "Auth TTL", description: "state accumulates" });
    const mainSe = await api("POST", `/api/v4/chat/spaces/${sp.id}/sessions`, { title: "main", provider: "mock", model: "mock" });
    const baseCp = await api("POST", "/api/v4/chat/commit", { repo_id: sp.id, session_id: mainSe.id, message: "Auth", decisions: ["Access token TTL is 15 minutes"] });
    const fork = await api("POST", "/api/v5/lineage/sessions/fork", { space_id: sp.id, checkpoint_id: baseCp.id, branch_name: "short-ttl" });
    // Chat, draft and save with the draft's items, as the chat page does.
    const chatDraftSave = async (session, message) => {
      await api("POST", "/api/v4/chat/send", { session_id: session, message, use_mock: true });
      const d = await api("POST", "/api/v5/checkpoint/draft", { session_id: session });
      return api("POST", "/api/v4/chat/commit", {
        repo_id: sp.id, session_id: session, message: d.title, summary: d.summary, objective: d.objective, decisions: d.decisions,
        assumptions: d.assumptions, tasks: d.tasks, open_questions: d.open_questions, entities: d.entities, items: d.items,
      });
    };
    const branchCp = await chatDraftSave(fork.session_id, "Decision: access token TTL is 5 minutes");
    const mainCp = await chatDraftSave(mainSe.id, "Decision: access token TTL is 30 minutes");
    const ctxT = await browser.newContext({ viewport: { width: 1280, height: 860 } });
    const tp = await ctxT.newPage();
    tp.on("pageerror", (e) => console.log("  page error:", e.message));
    await tp.goto(`${base}/spaces/${sp.id}/lineage`);
    await tp.getByTestId("lineage-checkpoint").nth(2).waitFor();
    // A merge starts from the branch: "Merge short-ttl into main".
    await tp.getByRole("link", { name: "Merge short-ttl into main" }).click();
    await tp.getByTestId("merge-preview").waitFor();
    const ttlConflicts = await tp.getByTestId("merge-conflict").allInnerTexts();
    expect(ttlConflicts.length === 1 && /d-[0-9a-f]{6}/.test(ttlConflicts[0]) && ttlConflicts[0].includes("Access token TTL is 30 minutes") &&
      ttlConflicts[0].includes("Access token TTL is 5 minutes"), `the TTL case is one conflict on one item id: ${JSON.stringify(ttlConflicts)}`);
    await shot(tp, "merge-ttl-conflict");
    // Settled for the branch: main's version is turned down, and the item's history says so with its turns.
    const ttl = (await api("GET", `/api/v5/checkpoints/${baseCp.id}/items`)).find((it) => it.text === "Access token TTL is 15 minutes");
    const ttlMerge = await api("POST", "/api/v5/lineage/merge", { space_id: sp.id, source_checkpoint_id: branchCp.id, target_checkpoint_id: mainCp.id, resolutions: [{ field: "decisions", key: ttl.id, choice: "theirs" }] });
    await tp.goto(`${base}/checkpoints/${ttlMerge.checkpoint.id}`);
    await tp.getByRole("button", { name: new RegExp(`^History of ${ttl.id}`) }).click();
    const rejectedRow = tp.getByTestId("item-history").locator("li[data-event=rejected]");
    await rejectedRow.waitFor();
    const rejectedText = (await rejectedRow.innerText()).replace(/\s+/g, " ");
    expect(rejectedText.includes(`rejected in merge ${ttlMerge.checkpoint.commit_hash.slice(0, 7)}`) && rejectedText.includes("Access token TTL is 30 minutes") &&
      rejectedText.includes(`from session ${mainSe.id.slice(0, 8)}, turn #0`) && rejectedText.includes("Decision: access token TTL is 30 minutes"),
      `the item's history shows main's version rejected in the merge, with its session, turn and quote: "${rejectedText}"`);
    await shot(tp, "item-history-rejected");
    await rejectedRow.getByRole("link", { name: "open the thread at turn #0" }).click();
    await tp.waitForURL(new RegExp(`/sessions/${mainSe.id}\\?turn=0$`));
    await tp.locator("article.focus[data-seq='0']").waitFor();
    expect(true, "the source link opens the thread with turn #0 marked");
    await ctxT.close();
  }

  console.log("a merge that removes an item: the preview names it, the merged checkpoint no longer has it");
  {
    const sp = await api("POST", "/api/v2/repos", { name: "Release rules", description: "a branch retracts a decision" });
    const mainSe = await api("POST", `/api/v4/chat/spaces/${sp.id}/sessions`, { title: "main", provider: "mock", model: "mock" });
    const baseCp = await api("POST", "/api/v4/chat/commit", { repo_id: sp.id, session_id: mainSe.id, message: "Release rules", decisions: ["Use PostgreSQL for storage", "Deploy on Fridays"] });
    const baseItems = await api("GET", `/api/v5/checkpoints/${baseCp.id}/items`);
    const friday = baseItems.find((it) => it.text === "Deploy on Fridays");
    const fork = await api("POST", "/api/v5/lineage/sessions/fork", { space_id: sp.id, checkpoint_id: baseCp.id, branch_name: "no-friday-deploys" });
    // The branch saves its state without the decision: the item is retracted there.
    const branchCp = await api("POST", "/api/v4/chat/commit", { repo_id: sp.id, session_id: fork.session_id, message: "No deploys on Fridays", decisions: ["Use PostgreSQL for storage"] });
    const branchItem = (await api("GET", `/api/v5/checkpoints/${branchCp.id}/items`)).find((it) => it.id === friday.id);
    expect(branchItem && branchItem.status === "retracted", `the branch retracts ${friday.id} "Deploy on Fridays" (status ${branchItem?.status})`);
    // Main moves on without touching it.
    const mainCp = await api("POST", "/api/v4/chat/commit", {
      repo_id: sp.id, session_id: mainSe.id, message: "Changelog", decisions: ["Use PostgreSQL for storage", "Deploy on Fridays", "Keep a changelog"],
    });
    const ctxR = await browser.newContext({ viewport: { width: 1280, height: 860 } });
    const rp = await ctxR.newPage();
    rp.on("pageerror", (e) => console.log("  page error:", e.message));
    await rp.goto(`${base}/spaces/${sp.id}/lineage`);
    await rp.getByTestId("lineage-checkpoint").nth(2).waitFor();
    // A merge starts from the branch: "Merge no-friday-deploys into main".
    await rp.getByRole("link", { name: "Merge no-friday-deploys into main" }).click();
    await rp.getByTestId("merge-preview").waitFor();
    const removedTexts = await rp.getByTestId("merge-remove-text").allInnerTexts();
    expect(JSON.stringify(removedTexts) === JSON.stringify(["Deploy on Fridays"]), `the merge preview's removes list names exactly "Deploy on Fridays": ${JSON.stringify(removedTexts)}`);
    const removedRow = await rp.getByTestId("merge-remove").first().innerText();
    expect(removedRow.includes(friday.id) && removedRow.includes("(theirs)"), `the removal names the item id ${friday.id} and the side that removed it: "${removedRow.replace(/\s+/g, " ")}"`);
    expect((await rp.getByTestId("merge-conflict").count()) === 0, "the merge has no conflict");
    await shot(rp, "merge-removes-item");
    await axe(rp, "merge-removes-item");
    await rp.getByRole("button", { name: "Merge", exact: true }).click();
    await rp.getByRole("status").filter({ hasText: "Merged as" }).waitFor();
    const mergedHref = await rp.getByRole("status").getByRole("link").getAttribute("href");
    const mergedId = mergedHref.split("/").pop();
    const merged = await api("GET", `/api/v2/commits/${mergedId}`);
    expect(JSON.stringify(merged.decisions) === JSON.stringify(["Use PostgreSQL for storage", "Keep a changelog"]), `the merged checkpoint's decisions: ${JSON.stringify(merged.decisions)}`);
    const mergedItems = await api("GET", `/api/v5/checkpoints/${mergedId}/items`);
    const live = mergedItems.filter((it) => it.status === "open" || it.status === "done").map((it) => it.text);
    expect(!live.includes("Deploy on Fridays") && JSON.stringify(live) === JSON.stringify(["Use PostgreSQL for storage", "Keep a changelog"]), `the merged checkpoint's items no longer hold "Deploy on Fridays": ${JSON.stringify(live)}`);
    await ctxR.close();
  }

  console.log("a web save keeps an item's id through the draft's change");
  {
    const sp = await api("POST", "/api/v2/repos", { name: "Token lifetime", description: "an item edited by a draft" });
    const se = await api("POST", `/api/v4/chat/spaces/${sp.id}/sessions`, { title: "Auth", provider: "mock", model: "mock" });
    const baseCp = await api("POST", "/api/v4/chat/commit", { repo_id: sp.id, session_id: se.id, message: "Auth", decisions: ["Access token TTL is 15 minutes"] });
    const [ttl] = await api("GET", `/api/v5/checkpoints/${baseCp.id}/items`);
    const ctxS = await browser.newContext({ viewport: { width: 1280, height: 860 } });
    const sv = await ctxS.newPage();
    sv.on("pageerror", (e) => console.log("  page error:", e.message));
    await sv.goto(`${base}/sessions/${se.id}`);
    const msg = sv.getByRole("textbox", { name: "Message", exact: true });
    await msg.fill("Decision: access token TTL is 5 minutes");
    await msg.press("Enter");
    await sv.getByTestId("turn-assistant").first().waitFor();
    await sv.getByRole("button", { name: "Create checkpoint" }).click();
    await sv.getByRole("button", { name: "Draft with AI" }).click();
    await sv.getByTestId("draft-diff").waitFor();
    expect((await sv.getByLabel("Decisions (one per line)").inputValue()) === "Access token TTL is 5 minutes", "the draft changes the decision to 5 minutes");
    const commitReq = sv.waitForRequest((r) => r.url().endsWith("/api/v4/chat/commit") && r.method() === "POST");
    const commitResp = sv.waitForResponse((r) => r.url().endsWith("/api/v4/chat/commit"));
    await sv.getByRole("button", { name: "Save checkpoint" }).click();
    const sent = (await commitReq).postDataJSON();
    const sentTtl = (sent.items ?? []).find((it) => it.kind === "decision");
    expect(sentTtl && sentTtl.id === ttl.id && sentTtl.text === "Access token TTL is 5 minutes", `the save sends items: the decision with id ${ttl.id} (sent ${JSON.stringify(sentTtl)})`);
    const savedCp = await (await commitResp).json();
    await sv.getByRole("heading", { name: "Checkpoint saved" }).waitFor();
    const after = await api("GET", `/api/v5/checkpoints/${savedCp.id}/items`);
    const kept = after.filter((it) => it.kind === "decision").map((it) => `${it.id} ${it.status} ${it.text}`);
    expect(JSON.stringify(kept) === JSON.stringify([`${ttl.id} open Access token TTL is 5 minutes`]), `after the web save the decision keeps its id ${ttl.id} with the new text: ${JSON.stringify(kept)}`);
    await ctxS.close();
  }

  console.log("every page at 390, 1024 and 1440 px, light and dark");
  const pages = [
    ["overview", "/", (p) => p.getByRole("heading", { name: "Overview" }).waitFor()],
    ["chat", new URL(firstSession).pathname, (p) => p.getByTestId("turn-assistant").first().waitFor()],
    ["lineage", `/spaces/${spaceId}/lineage`, (p) => p.locator(".react-flow__node-cp").first().waitFor()],
    ["compare", new URL(compareUrl).pathname, (p) => p.getByTestId("compare").waitFor()],
    ["checkpoint", new URL(detailUrl).pathname, (p) => p.getByTestId("verify-badge").waitFor()],
    ["coordination", `/spaces/${spaceId}/coordination`, (p) => p.getByRole("heading", { name: "State brief" }).waitFor()],
    ["settings", "/settings", (p) => p.getByTestId("background-slot").waitFor()],
  ];
  for (const scheme of ["light", "dark"]) {
    for (const width of [390, 1024, 1440]) {
      const ctx = await browser.newContext({ viewport: { width, height: width === 390 ? 844 : 900 }, colorScheme: scheme });
      const p = await ctx.newPage();
      for (const [name, path, ready] of pages) {
        await p.goto(base + path);
        await ready(p);
        await p.waitForTimeout(150);
        const over = await p.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
        expect(over <= 0, `${name} at ${width} px ${scheme}: no horizontal scroll (overflow ${over})`);
        await shot(p, `${name}-${width}-${scheme}`);
        await axe(p, `${name}-${width}-${scheme}`);
      }
      if (width === 390) {
        await p.goto(base + "/");
        await p.getByRole("button", { name: "Open navigation" }).click();
        await p.getByRole("navigation", { name: "Workspace" }).getByRole("link", { name: "Settings" }).click();
        await p.waitForURL(/\/settings$/);
        expect(true, `at 390 px (${scheme}) the sidebar is a drawer that opens from the top bar and closes on navigation`);
      }
      await ctx.close();
    }
  }

  console.log("auth mode: a second server with --auth, users made by the CLI");
  const authDb = join(work, "auth.db");
  await cli(["user", "add", "alice", "--db", authDb], "correct horse battery\n");
  await cli(["user", "add", "bob", "--db", authDb], "bob's password\n");
  await cli(["user", "disable", "bob", "--db", authDb]);
  const authSrv = await startServer(authDb, ["--auth"]);
  const ctxC = await browser.newContext({ viewport: { width: 1280, height: 860 } });
  const ap = await ctxC.newPage();
  ap.on("pageerror", (e) => console.log("  page error:", e.message));
  await ap.goto(base + "/");
  await ap.getByRole("heading", { name: "Overview" }).waitFor();
  expect((await ap.getByTestId("account").count()) === 0 && (await ap.getByRole("button", { name: "Sign out" }).count()) === 0, "local mode shows no account box and no Sign out");
  await ap.goto(authSrv.base + "/");
  await ap.getByRole("heading", { name: "Sign in to Smriti" }).waitFor();
  expect((await ap.getByRole("heading", { name: "Overview" }).count()) === 0, "auth mode opens on the sign-in screen, not the workspace");
  expect(await ap.getByLabel("Username").evaluate((el) => el === document.activeElement), "the username field has the focus");
  await shot(ap, "auth-sign-in");
  await axe(ap, "sign-in");

  const refused = "Sign-in refused: the username or password is wrong, or the account is disabled.";
  await ap.getByLabel("Username").fill("alice");
  await ap.getByLabel("Password").fill("not her password");
  const wrong = ap.waitForResponse((r) => r.url().endsWith("/api/v4/auth/login"));
  await ap.getByLabel("Password").press("Enter");
  expect((await wrong).status() === 401, "a wrong password answers 401");
  await ap.getByRole("alert").filter({ hasText: refused }).waitFor();
  const detail = await ap.getByTestId("signin-detail").innerText();
  expect(detail === "Server: missing, invalid, expired or revoked credentials", `the server's detail is shown: "${detail}"`);
  expect((await ap.getByLabel("Password").inputValue()) === "", "the password field is emptied after a refusal");
  await shot(ap, "auth-sign-in-refused");
  await axe(ap, "sign-in-refused");

  await ap.getByLabel("Username").fill("bob");
  await ap.getByLabel("Password").fill("bob's password");
  await ap.getByRole("button", { name: "Sign in" }).click();
  await ap.getByRole("alert").filter({ hasText: refused }).waitFor();
  expect((await ap.getByRole("heading", { name: "Overview" }).count()) === 0, "a disabled user is refused with the same message");

  await ap.getByLabel("Username").fill("alice");
  await ap.getByLabel("Password").fill("correct horse battery");
  await ap.getByRole("button", { name: "Sign in" }).click();
  await ap.getByRole("heading", { name: "Overview" }).waitFor();
  expect((await ap.getByTestId("account").innerText()).includes("Signed in as alice"), "the sidebar says who is signed in");
  const cookie = (await ctxC.cookies()).find((c) => c.name === "smriti_session");
  expect(cookie && cookie.httpOnly && cookie.sameSite === "Strict", "the session is an HttpOnly, SameSite=Strict cookie");

  await ap.getByLabel("Name").fill("Alice's notes");
  await ap.getByRole("button", { name: "Create space" }).click();
  await ap.waitForURL(/\/sessions\//);
  const box = ap.getByRole("textbox", { name: "Message", exact: true });
  await box.fill("Signed in and sending.");
  await box.press("Enter");
  await ap.getByTestId("turn-assistant").first().waitFor();
  expect((await ap.getByTestId("turn-assistant").first().innerText()).includes("You said"), "a chat send works when signed in");
  await shot(ap, "auth-chat");

  console.log("auth mode: the session ends while typing");
  // The send is what meets the ended session: background reads are held off
  // (they fail as a dropped connection would) until the sign-in screen is
  // up, so a refetch's 401 cannot replace the page before the message is
  // typed, however slow the machine.
  const quiet = (url) => url.pathname.startsWith("/api/");
  const holdReads = (route) => (route.request().method() === "GET" ? route.abort("connectionfailed") : route.continue());
  await ap.route(quiet, holdReads);
  await ctxC.clearCookies();
  await box.fill("Typed before the session ended.");
  await box.press("Enter");
  await ap.getByRole("heading", { name: "Sign in to Smriti" }).waitFor();
  await ap.unroute(quiet, holdReads);
  expect((await ap.getByRole("status").filter({ hasText: "Your session has ended" }).count()) === 1, "a 401 brings back the sign-in screen, saying why");
  await ap.getByLabel("Username").fill("alice");
  await ap.getByLabel("Password").fill("correct horse battery");
  await ap.getByLabel("Password").press("Enter");
  await box.waitFor();
  expect((await box.inputValue()) === "Typed before the session ended.", "what was typed in the composer survives the new sign-in");
  await ap.getByRole("button", { name: "Retry" }).click();
  await ap.getByTestId("turn-assistant").nth(1).waitFor();
  expect((await box.inputValue()) === "", "the kept message is sent after signing in again");

  console.log("auth mode: sign out");
  const out = ap.waitForResponse((r) => r.url().endsWith("/api/v4/auth/logout"));
  await ap.getByRole("button", { name: "Sign out" }).click();
  expect((await out).status() === 204, "Sign out calls the logout endpoint");
  await ap.getByRole("heading", { name: "Sign in to Smriti" }).waitFor();
  expect(!(await ctxC.cookies()).some((c) => c.name === "smriti_session"), "the session cookie is gone");
  await ap.reload();
  await ap.getByRole("heading", { name: "Sign in to Smriti" }).waitFor();
  expect(true, "after a reload the sign-in screen is still shown");
  await ctxC.close();

  await integrityScenarios({ browser, base, api, expect, shot });
  await reviewScenarios({ browser, base, api, expect, shot, axe });
  await proposalScenarios({ browser, base, api, expect, shot, axe, cli, work });
  await syncScenarios({ browser, base, expect, shot, axe, startServer, work });
  await provenanceScenarios({ browser, base, api, expect, shot, axe });
  await redactionScenarios({ browser, base, api, expect, shot, axe });
  }
  if (!["proposals", "sync", "provenance", "graph", "redaction"].includes(process.env.SMRITI_E2E_ONLY)) await chatScenarios({ browser, base, api, expect, shot, axe, figures, startServer, work });
} catch (e) {
  failed = e;
  for (const ctx of browser.contexts()) for (const p of ctx.pages()) await p.screenshot({ path: join(out, `failure-${step}-${Math.random().toString(16).slice(2, 6)}.png`) }).catch(() => {});
} finally {
  writeFileSync(join(out, "figures.json"), JSON.stringify(figures, null, 2));
  writeFileSync(join(out, "axe.json"), JSON.stringify(axeResults, null, 2));
  await browser.close();
  for (const srv of servers) srv.proc.kill("SIGTERM");
  rmSync(work, { recursive: true, force: true });
}
console.log("figures:", JSON.stringify(figures));
if (failed) {
  console.error("E2E FAILED:", failed.message);
  for (const srv of servers) console.error(srv.log.split("\n").slice(-20).join("\n"));
  process.exit(1);
}
console.log("e2e passed");
