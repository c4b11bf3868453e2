// The agent hosts as they really are: runs the real Claude Code and Codex
// clients (from this folder's package-lock.json), with the hooks
// `smriti init --agent …` installs, against a local fake model server
// (fake-model.mjs) and a real `smriti serve` on 127.0.0.1 over a fresh
// SQLite file. Each step waits on a state (a process's exit, a server
// answering), never on a clock; every wait and every host run is bounded.
//
//   SMRITI_BIN=/path/to/smriti node run.mjs     (built here when unset)
import { spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { FULL_CONTEXT_TOKENS, startFakeModel } from "./fake-model.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
const repo = path.resolve(here, "../..");
const root = fs.mkdtempSync(path.join(os.tmpdir(), "smriti-hosts-"));
const claudeBin = path.join(here, "node_modules/.bin/claude");
const codexBin = path.join(here, "node_modules/.bin/codex");
const started = Date.now();
const HOST_RUN_MS = 120_000; // one host run; a run that takes longer fails the test
let failures = 0;
let checks = 0;
const children = new Set();

function check(ok, what, detail = "") {
  checks++;
  if (ok) {
    console.log(`  ok   ${what}`);
  } else {
    failures++;
    console.log(`  FAIL ${what}${detail ? `\n       ${String(detail).slice(0, 2000).replace(/\n/g, "\n       ")}` : ""}`);
  }
}

function cleanup() {
  for (const c of children) {
    try { c.kill("SIGKILL"); } catch { /* gone */ }
  }
}
process.on("exit", cleanup);

let bin = process.env.SMRITI_BIN;
if (!bin) {
  bin = path.join(root, "bin/smriti");
  const b = spawnSync("go", ["build", "-o", bin, "./cmd/smriti"], { cwd: repo, stdio: "inherit" });
  if (b.status !== 0) process.exit(1);
}
const binDir = path.dirname(path.resolve(bin));

const fake = await startFakeModel();
const home = path.join(root, "home");
fs.mkdirSync(home, { recursive: true });

// The server, on a port of its own; restartable over the same database.
const db = path.join(root, "smriti.db");
const port = await freePort();
const api = `http://127.0.0.1:${port}`;
let serve;
async function startServer() {
  serve = spawn(bin, ["serve", "--addr", `127.0.0.1:${port}`, "--db", db, "--config", path.join(root, "none.yaml"), "--env-file", path.join(root, "none.env")],
    { env: { ...process.env, HOME: home }, stdio: ["ignore", fs.openSync(path.join(root, "serve.log"), "a"), fs.openSync(path.join(root, "serve.log"), "a")] });
  children.add(serve);
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    try {
      const r = await fetch(`${api}/openapi.json`);
      if (r.ok) return;
    } catch { /* not yet */ }
    if (serve.exitCode !== null) break;
    await new Promise((r) => setImmediate(r));
  }
  throw new Error("smriti serve did not answer:\n" + fs.readFileSync(path.join(root, "serve.log"), "utf8"));
}
async function stopServer() {
  const gone = new Promise((r) => serve.once("exit", r));
  serve.kill("SIGTERM");
  await gone;
  children.delete(serve);
}
await startServer();

function freePort() {
  return new Promise((resolve) => {
    import("node:net").then(({ createServer }) => {
      const s = createServer();
      s.listen(0, "127.0.0.1", () => { const p = s.address().port; s.close(() => resolve(p)); });
    });
  });
}

const baseEnv = {
  PATH: `${binDir}:${process.env.PATH}`,
  HOME: home,
  SMRITI_API_URL: api,
  LANG: "C.UTF-8",
  TMPDIR: process.env.TMPDIR || "/tmp",
};

// run runs a command to its end (bounded), returning its exit code and
// output and how long it took.
function run(cmd, args, opts) {
  return new Promise((resolve) => {
    const t0 = Date.now();
    const p = spawn(cmd, args, { cwd: opts.cwd, env: opts.env, stdio: ["pipe", "pipe", "pipe"] });
    children.add(p);
    let out = "", err = "";
    p.stdout.on("data", (d) => (out += d));
    p.stderr.on("data", (d) => (err += d));
    if (opts.input !== undefined) p.stdin.end(opts.input); else p.stdin.end();
    const timer = setTimeout(() => p.kill("SIGKILL"), opts.timeout ?? HOST_RUN_MS);
    p.on("exit", (code, signal) => {
      clearTimeout(timer);
      children.delete(p);
      resolve({ code, signal, out, err, ms: Date.now() - t0 });
    });
  });
}

const smriti = (cwd, ...args) => smritiIn(baseEnv, cwd, ...args);
async function smritiIn(env, cwd, ...args) {
  const r = await run(bin, args, { cwd, env, timeout: 60_000 });
  if (r.code !== 0) throw new Error(`smriti ${args.join(" ")}: exit ${r.code}\n${r.out}${r.err}`);
  return r.out;
}
const smritiJSON = async (cwd, ...args) => JSON.parse(await smriti(cwd, ...args, "--json"));

async function apiGet(p) {
  const r = await fetch(api + p);
  if (!r.ok) throw new Error(`GET ${p}: ${r.status}`);
  return r.json();
}

// turnsOf is the turns of the space session importing the agent session.
async function turnsOf(agentSession) {
  const sessions = await apiGet("/api/v4/chat/sessions");
  const s = sessions.find((x) => x.title.includes(agentSession));
  if (!s) return [];
  return apiGet(`/api/v4/chat/sessions/${s.id}/turns?limit=1000`);
}

function hookLog(dir) {
  const p = path.join(dir, ".smriti/hooks.log");
  return fs.existsSync(p) ? fs.readFileSync(p, "utf8").trim().split("\n") : [];
}
function marks(dir) {
  const p = path.join(dir, ".smriti/compactions.json");
  return fs.existsSync(p) ? JSON.parse(fs.readFileSync(p, "utf8")) : {};
}
// Our words in a Claude Code compaction prompt: a PreCompact hook's stdout
// comes after the summariser's instructions as "Additional Instructions:".
const ourWords = /\n\nAdditional Instructions:\n|Smriti|imported \d+ new turn/;
// The brief SessionStart (compact) gives as additionalContext, as Claude
// Code passes it to the model (a resume's brief, plain stdout, is labelled
// "SessionStart:resume hook success").
const compactBrief = /hook additional context: # cc\b/;
const hostMeta = /<command-name>|<command-message>|<local-command-stdout>|<local-command-caveat>|<system-reminder>|<environment_context>|# AGENTS\.md instructions|Caveat: The messages below/;
const timings = [];
function noteTimings(dir, host) {
  for (const l of hookLog(dir)) {
    const m = / (session-start|pre-compact|post-compact|session-end|stop) (claude-code|codex) \S+ (\d+)ms /.exec(l);
    if (m) timings.push({ host, hook: m[1], ms: Number(m[3]) });
  }
}

async function pendingFor(space, agentSession) {
  const sessions = await apiGet("/api/v4/chat/sessions");
  const s = sessions.find((x) => x.title.includes(agentSession));
  const all = await smritiJSON(root, "proposals", "--space", space, "--status", "");
  const mine = all.filter((p) => s && p.session_id === s.id);
  return { pending: mine.filter((p) => p.status === "pending"), superseded: mine.filter((p) => p.status === "superseded") };
}

// ---------------------------------------------------------------- Claude Code
async function claudeCode() {
  console.log("Claude Code " + (await run(claudeBin, ["--version"], { env: baseEnv, cwd: root })).out.trim());
  const proj = path.join(root, "claude-proj");
  fs.mkdirSync(proj);
  spawnSync("git", ["init", "-q"], { cwd: proj });
  await smriti(proj, "init", "cc", "--agent", "claude-code");
  const env = { ...baseEnv, CLAUDE_CONFIG_DIR: path.join(root, "claude-config"), ANTHROPIC_BASE_URL: fake.url, ANTHROPIC_API_KEY: "sk-ant-test",
    DISABLE_TELEMETRY: "1", CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1", DISABLE_AUTOUPDATER: "1", DISABLE_ERROR_REPORTING: "1" };
  const claude = (args) => run(claudeBin, ["-p", "--output-format", "json", "--permission-mode", "acceptEdits", ...args], { cwd: proj, env });
  const result = (r) => { try { return JSON.parse(r.out); } catch { return {}; } };

  // Start and a decision: the brief reaches the model; Stop drafts.
  let r = await claude(["Set the token policy. DECIDE: refresh tokens are rotated on every use."]);
  const first = result(r);
  const id = first.session_id;
  check(r.code === 0 && /rotated on every use/.test(first.result), `claude -p answers (${r.ms} ms)`, r.out + r.err);
  const turnReq = fake.requests.filter((q) => q.body?.messages && JSON.stringify(q.body).includes("DECIDE: refresh tokens"));
  check(turnReq.some((q) => JSON.stringify(q.body).includes("# cc")), "the SessionStart brief reached the model");
  let mine = await pendingFor("cc", id);
  check(mine.pending.length === 1 && mine.pending[0].decisions.some((d) => /rotated on every use/i.test(d)),
    "Stop left one proposal holding the final answer's decision", JSON.stringify(mine.pending.map((p) => p.decisions)));

  // Resume and edit a file: SessionEnd drafts again; the newer draft
  // supersedes the pending one.
  r = await claude(["--resume", id, "WRITE-FILE auth/refresh.go"]);
  check(r.code === 0 && fs.existsSync(path.join(proj, "auth/refresh.go")), `resume and edit (${r.ms} ms)`, r.out + r.err);
  mine = await pendingFor("cc", id);
  check(mine.pending.length === 1 && mine.superseded.length >= 1, "one pending proposal for the session; the older ones superseded",
    `pending ${mine.pending.length}, superseded ${mine.superseded.length}`);

  // Manual compaction: the compaction prompt holds none of our text; the
  // hooks run in Claude Code's order; the brief is re-injected, the
  // receipt recorded and the mark cleaned.
  const before = fake.requests.length;
  r = await claude(["--resume", id, "/compact"]);
  const compaction = fake.requests.slice(before).find((q) => q.kind === "compaction");
  check(r.code === 0 && compaction !== undefined, `/compact ran a compaction request (${r.ms} ms)`, r.out + r.err);
  if (compaction) {
    // Claude Code puts a PreCompact hook's stdout after the summariser's
    // instructions, as "Additional Instructions".
    const ask = compaction.lastUser;
    check(!ourWords.test(ask), "the compaction prompt holds none of our text",
      ask.slice(-1500));
  }
  const order = hookLog(proj).map((l) => l.split(" ")[1]).filter((h) => h !== "stop");
  const i = order.lastIndexOf("pre-compact");
  check(i >= 0 && order.slice(i, i + 3).join(",") === "pre-compact,session-start,post-compact",
    "Claude Code runs pre-compact, session-start (compact), post-compact", order.join(","));
  check(!(id in marks(proj)), "no compaction mark is left", JSON.stringify(marks(proj)));
  const receipts = await smritiJSON(proj, "receipts", "cc");
  check(receipts.some((x) => x.agent_session === id && x.trigger === "manual" && x.host === "claude-code"), "the compaction's receipt is recorded (trigger manual)",
    JSON.stringify(receipts));

  // After the compaction: the brief reaches the model again; no host meta
  // became a user turn.
  r = await claude(["--resume", id, "ECHO AFTER-COMPACT-3"]);
  const after = fake.requests.filter((q) => JSON.stringify(q.body?.messages || "").includes("AFTER-COMPACT-3"));
  check(r.code === 0 && after.some((q) => compactBrief.test(JSON.stringify(q.body))), "after compaction the SessionStart (compact) brief is in the model's context");
  const turns = await turnsOf(id);
  const meta = turns.filter((t) => t.role === "user" && hostMeta.test(t.content));
  check(turns.length > 0 && meta.length === 0, `no host meta among the session's ${turns.length} turns`, meta.map((t) => t.content).join("\n---\n"));
  check(turns.filter((t) => /rotated on every use/.test(t.content) && t.role === "assistant").length === 1, "the final answer is a turn exactly once");
  const all = await pendingFor("cc", id);
  check(all.pending.length === 1, "still one pending proposal for the session", `pending ${all.pending.length}`);
  check(!all.pending.concat(all.superseded).some((p) => (p.entities || []).some((e) => /^compacted$/i.test(e))), "no draft gained the entity \"Compacted\" from the host's compaction output");

  // Automatic compaction, in a session of its own: its second turn reports
  // a context all but full (fake-model.mjs), so the next run compacts
  // before it asks the model anything. (Claude Code summarises the turns
  // before the last; with a single turn it has nothing to summarise.)
  r = await claude(["ECHO FIRST-4"]);
  const full = result(r).session_id;
  r = await claude(["--resume", full, "FILL-CONTEXT ECHO FULL-5"]);
  check(r.code === 0 && full && full !== id && result(r).usage?.cache_read_input_tokens >= FULL_CONTEXT_TOKENS,
    `a session whose context is all but full (${r.ms} ms)`, r.out + r.err);
  const autoBefore = fake.requests.length;
  const logBefore = hookLog(proj).length;
  r = await claude(["--resume", full, "ECHO AUTO-COMPACT-6"]);
  const reqs = fake.requests.slice(autoBefore);
  const k = reqs.findIndex((q) => q.kind === "compaction");
  check(r.code === 0 && k >= 0 && /AUTO-COMPACT-6/.test(result(r).result || ""), `Claude Code compacted on its own, then answered (${r.ms} ms)`, r.out + r.err);
  if (k >= 0) {
    check(!ourWords.test(reqs[k].lastUser), "the automatic compaction's prompt holds none of our text",
      reqs[k].lastUser.slice(-1500));
    const next = reqs.slice(k + 1).find((q) => q.kind === "turn");
    check(next !== undefined && compactBrief.test(JSON.stringify(next.body)), "the SessionStart (compact) brief reaches the model in the request after the compaction",
      next && JSON.stringify(next.body.messages).slice(-1500));
  }
  const autoOrder = hookLog(proj).slice(logBefore).map((l) => l.split(" ")[1]).filter((h) => h !== "stop");
  const j = autoOrder.indexOf("pre-compact");
  check(j >= 0 && autoOrder.slice(j, j + 3).join(",") === "pre-compact,session-start,post-compact",
    "automatic: Claude Code runs pre-compact, session-start (compact), post-compact", autoOrder.join(","));
  check(!(full in marks(proj)), "no compaction mark is left after the automatic compaction", JSON.stringify(marks(proj)));
  const autoReceipts = await smritiJSON(proj, "receipts", "cc");
  check(autoReceipts.some((x) => x.agent_session === full && x.trigger === "auto" && x.host === "claude-code"), "the automatic compaction's receipt is recorded (trigger auto)",
    JSON.stringify(autoReceipts));
  const autoTurns = await turnsOf(full);
  check(autoTurns.some((t) => t.role === "user" && t.content.includes("AUTO-COMPACT-6")) && !autoTurns.some((t) => t.role === "user" && hostMeta.test(t.content)),
    `the compacted session's prompt is a turn; no host meta among its ${autoTurns.length} turns`, autoTurns.map((t) => `${t.role}: ${t.content}`).join("\n---\n"));

  // A fork: Claude Code starts a new session from the old one's history
  // (SessionStart source "fork"); the brief reaches the model.
  r = await claude(["--resume", full, "--fork-session", "ECHO FORK-7"]);
  const forked = result(r).session_id;
  const forkReq = fake.requests.filter((q) => JSON.stringify(q.body?.messages || "").includes("FORK-7"));
  check(r.code === 0 && forked && forked !== full && forkReq.some((q) => /SessionStart:fork hook success: # cc\b/.test(JSON.stringify(q.body))),
    `a forked session gets the brief from SessionStart (fork) (${r.ms} ms)`, r.out + r.err);

  // MCP: the model calls smriti_state through the MCP server init
  // configures; the tool's answer (the brief) comes back to the model.
  const mcpConfig = path.join(root, "claude-mcp.json");
  fs.writeFileSync(mcpConfig, JSON.stringify({ mcpServers: { smriti: { command: "smriti", args: ["mcp"], env: { SMRITI_API_URL: api } } } }));
  const mcpBefore = fake.requests.length;
  r = await claude(["--resume", id, `--mcp-config=${mcpConfig}`, "--allowedTools=mcp__smriti__smriti_state", "--", 'MCP-CALL smriti_state {"space":"cc"}']);
  const toolResult = fake.requests.slice(mcpBefore).map((q) => JSON.stringify(q.body?.messages?.at(-1) || "")).find((m) => m.includes("tool_result"));
  check(r.code === 0 && toolResult !== undefined && toolResult.includes("# cc"), `MCP: smriti_state answered the model through Claude Code (${r.ms} ms)`,
    (toolResult || r.out + r.err).slice(0, 1500));

  // The server down: the agent is never blocked.
  await stopServer();
  r = await claude(["--resume", id, "ECHO SERVER-DOWN-1"]);
  check(r.code === 0 && /SERVER-DOWN-1/.test(result(r).result || ""), `with the server down the agent goes on (${r.ms} ms)`, r.out + r.err);
  await startServer();
  noteTimings(proj, "claude-code");
}

// ---------------------------------------------------------------------- Codex
async function codex() {
  console.log((await run(codexBin, ["--version"], { env: baseEnv, cwd: root })).out.trim());
  const proj = path.join(root, "codex-proj");
  fs.mkdirSync(proj);
  spawnSync("git", ["init", "-q"], { cwd: proj });
  const codexHome = path.join(root, "codex-home");
  fs.mkdirSync(codexHome);
  // A tiny auto-compaction limit: a resumed session compacts on its own.
  fs.writeFileSync(path.join(codexHome, "config.toml"), `model = "gpt-test"
model_provider = "fake"
model_auto_compact_token_limit = 50

[model_providers.fake]
name = "fake"
base_url = "${fake.url}/v1"
wire_api = "responses"

[projects."${proj}"]
trust_level = "trusted"
`);
  const env = { ...baseEnv, CODEX_HOME: codexHome };
  const init = await smritiIn(env, proj, "init", "cx", "--agent", "codex", "--write-global");
  check(init.includes(`Added the Smriti MCP server to ${path.join(codexHome, "config.toml")}`), "init --write-global writes $CODEX_HOME/config.toml", init);
  const list = await run(codexBin, ["mcp", "list"], { cwd: proj, env });
  check(list.code === 0 && /smriti/.test(list.out), "codex mcp list shows smriti", list.out + list.err);
  const codexRun = (args) => run(codexBin, ["exec", "--dangerously-bypass-hook-trust", "--skip-git-repo-check", ...args], { cwd: proj, env });
  const sessionOf = (r) => (/session id: (\S+)/.exec(r.err + r.out) || [])[1];

  let r = await codexRun(["Set the upload policy. DECIDE: a failed upload is retried 5 times."]);
  const id = sessionOf(r);
  check(r.code === 0 && /retried 5 times/.test(r.out), `codex exec answers (${r.ms} ms)`, r.out + r.err);
  const turnReq = fake.requests.filter((q) => JSON.stringify(q.body?.input || "").includes("DECIDE: a failed upload"));
  check(turnReq.some((q) => JSON.stringify(q.body).includes("# cx")), "the SessionStart brief reached the model");
  let mine = await pendingFor("cx", id);
  check(mine.pending.length === 1 && mine.pending[0].decisions.some((d) => /retried 5 times/i.test(d)), "Stop left one proposal holding the decision",
    JSON.stringify(mine.pending.map((p) => p.decisions)));

  // Resumed, the session compacts on its own (auto), then answers; Stop is
  // throttled, and SessionEnd imports the second prompt.
  const before = fake.requests.length;
  r = await codexRun(["resume", id, "ECHO SECOND-TURN-7"]);
  check(r.code === 0, `codex exec resume (${r.ms} ms)`, r.out + r.err);
  const compaction = fake.requests.slice(before).find((q) => q.kind === "compaction");
  check(compaction !== undefined && !/Smriti: imported/.test(JSON.stringify(compaction.body)), "Codex compacted automatically; its prompt holds no status of ours");
  const order = hookLog(proj).map((l) => l.split(" ")[1]);
  const i = order.lastIndexOf("pre-compact");
  check(i >= 0 && order.slice(i).join(",").startsWith("pre-compact,post-compact,session-start"), "Codex runs pre-compact, post-compact, session-start",
    order.join(","));
  check(!(id in marks(proj)), "no compaction mark is left", JSON.stringify(marks(proj)));
  const receipts = await smritiJSON(proj, "receipts", "cx");
  check(receipts.some((x) => x.agent_session === id && x.trigger === "auto" && x.host === "codex"), "the compaction's receipt is recorded (trigger auto)",
    JSON.stringify(receipts));
  const turns = await turnsOf(id);
  check(turns.some((t) => t.role === "user" && t.content.includes("SECOND-TURN-7")), "SessionEnd imported the resumed session's prompt");
  check(!turns.some((t) => t.role === "user" && hostMeta.test(t.content)), `no host meta among the session's ${turns.length} turns`,
    turns.filter((t) => hostMeta.test(t.content)).map((t) => t.content).join("\n---\n"));
  mine = await pendingFor("cx", id);
  check(mine.pending.length === 1 && mine.superseded.length >= 1, "one pending proposal for the session; the older ones superseded",
    `pending ${mine.pending.length}, superseded ${mine.superseded.length}`);

  // A fork: Codex starts a new session from the old one's history
  // (SessionStart source "fork"); our hook gives it the brief. (The fork
  // compacts too, and SessionStart (compact) answers with JSON instead.)
  r = await codexRun(["fork", id, "ECHO FORK-8"]);
  const forked = sessionOf(r);
  const briefFor = (l) => (/ session-start codex (\S+) \d+ms ok: # cx\b/.exec(l) || [])[1];
  check(r.code === 0 && forked && forked !== id && /FORK-8/.test(r.out) && hookLog(proj).some((l) => briefFor(l) === forked),
    `a forked session runs SessionStart (fork) (${r.ms} ms)`, r.out + r.err + hookLog(proj).join("\n"));

  await stopServer();
  r = await codexRun(["resume", id, "ECHO SERVER-DOWN-2"]);
  check(r.code === 0 && /SERVER-DOWN-2/.test(r.out), `with the server down the agent goes on (${r.ms} ms)`, r.out + r.err);
  await startServer();
  noteTimings(proj, "codex");
}

try {
  await claudeCode();
  await codex();
} catch (e) {
  failures++;
  console.log(`  FAIL ${e.stack || e}`);
}
const byHook = {};
for (const t of timings) (byHook[`${t.host} ${t.hook}`] ??= []).push(t.ms);
for (const [k, v] of Object.entries(byHook)) console.log(`  hook ${k}: ${v.length} run(s), max ${Math.max(...v)} ms`);
await stopServer().catch(() => {});
fake.server.close();
console.log(`agent hosts end to end: ${Math.round((Date.now() - started) / 1000)} s`);
console.log(`${checks - failures} passed, ${failures} failed`);
if (failures === 0) {
  fs.rmSync(root, { recursive: true, force: true });
} else {
  fs.writeFileSync(path.join(root, "model-requests.json"), JSON.stringify(fake.requests, null, 1));
  console.log(`kept ${root} for a look (model-requests.json: what the hosts sent the model)`);
}
process.exit(failures === 0 ? 0 : 1);
