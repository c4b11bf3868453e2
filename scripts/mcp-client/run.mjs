// Lists and calls every Smriti MCP tool with the official MCP TypeScript
// SDK, over stdio against `smriti mcp`, which talks to a real `smriti serve`
// (SQLite in a temporary directory, mock provider, no keys).
// Usage: SMRITI_BIN=path/to/smriti node run.mjs
import { spawn, execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const bin = process.env.SMRITI_BIN;
if (!bin) throw new Error("set SMRITI_BIN to a smriti binary");

const CORE = [
  "smriti_check", "smriti_checkpoint_note", "smriti_claim", "smriti_claim_done", "smriti_create_checkpoint", "smriti_list_claims",
  "smriti_list_spaces", "smriti_ready", "smriti_search", "smriti_show_checkpoint", "smriti_state", "smriti_why",
  "smriti_worktree_close", "smriti_worktree_open",
];
const ALL = [
  ...CORE, "smriti_close_branch", "smriti_compare", "smriti_context", "smriti_create_space", "smriti_delete_checkpoint",
  "smriti_delete_space", "smriti_fork", "smriti_install_skill", "smriti_list_checkpoints", "smriti_merge", "smriti_metrics",
  "smriti_restore", "smriti_review_checkpoint", "smriti_verify", "smriti_worktree_list", "smriti_worktree_show",
  "smriti_propose", "smriti_list_proposals", "smriti_show_proposal", "smriti_edit_proposal", "smriti_accept_proposal",
  "smriti_reject_proposal", "smriti_fetch", "smriti_pull", "smriti_push",
].sort();

let failures = 0;
function expect(cond, what) {
  if (!cond) {
    failures++;
    console.error(`FAIL ${what}`);
  }
}

const freePort = () =>
  new Promise((resolve, reject) => {
    const s = createServer();
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
    s.on("error", reject);
  });

const work = mkdtempSync(join(tmpdir(), "smriti-mcp-client-"));
const env = { PATH: process.env.PATH, HOME: work };

async function startServer() {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const proc = spawn(bin, ["serve", "--addr", `127.0.0.1:${port}`, "--db", join(work, "smriti.db"),
    "--config", join(work, "none.yaml"), "--env-file", join(work, "none.env")], { env, stdio: ["ignore", "pipe", "pipe"] });
  const srv = { base, proc, log: "" };
  proc.stdout.on("data", (d) => (srv.log += d));
  proc.stderr.on("data", (d) => (srv.log += d));
  for (let i = 0; ; i++) {
    try {
      if ((await fetch(`${base}/health`)).ok) return srv;
    } catch {
      /* not up yet */
    }
    if (i > 100) throw new Error(`server did not start:\n${srv.log}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function connect(base, args) {
  const client = new Client({ name: "ts-sdk", version: "1.0.0" });
  await client.connect(new StdioClientTransport({ command: bin, args: ["mcp", ...args], env: { ...env, SMRITI_API_URL: base }, stderr: "inherit" }));
  return client;
}

// undescribed lists the properties of a JSON Schema, nested ones included,
// that have no description.
function undescribed(path, schema) {
  const out = [];
  for (const [name, p] of Object.entries(schema.properties ?? {})) {
    if (!(p.description ?? "").trim()) out.push(`${path}.${name}`);
    out.push(...undescribed(`${path}.${name}`, p));
  }
  if (schema.items) out.push(...undescribed(`${path}[]`, schema.items));
  return out;
}

function gitRepo() {
  const dir = mkdtempSync(join(work, "repo-"));
  const genv = { ...process.env, GIT_AUTHOR_NAME: "t", GIT_AUTHOR_EMAIL: "t@example.com", GIT_COMMITTER_NAME: "t", GIT_COMMITTER_EMAIL: "t@example.com" };
  execFileSync("git", ["init", "-q", "-b", "main"], { cwd: dir, env: genv });
  execFileSync("git", ["commit", "-q", "--allow-empty", "-m", "init"], { cwd: dir, env: genv });
  return dir;
}

const srv = await startServer();
try {
  // The default toolset is core.
  const core = await connect(srv.base, []);
  const coreNames = (await core.listTools()).tools.map((t) => t.name).sort();
  expect(JSON.stringify(coreNames) === JSON.stringify([...CORE].sort()), `core tools: ${coreNames}`);
  await core.close();

  const c = await connect(srv.base, ["--tools", "all"]);
  const { tools } = await c.listTools();
  const names = tools.map((t) => t.name).sort();
  expect(JSON.stringify(names) === JSON.stringify(ALL), `all tools: ${names}`);
  for (const t of tools) {
    expect((t.description ?? "").trim() !== "", `${t.name} has a description`);
    const missing = undescribed(t.name, t.inputSchema);
    expect(missing.length === 0, `undescribed parameters: ${missing}`);
  }
  const create = tools.find((t) => t.name === "smriti_create_checkpoint");
  expect(JSON.stringify(create.inputSchema.required) === '["space","content"]', `create_checkpoint requires ${JSON.stringify(create.inputSchema.required)}`);

  const called = new Set();
  // call calls a tool, checks isError and that the text matches want (a
  // string it must equal, or a RegExp), and returns the text and result.
  async function call(name, args, isError, want) {
    called.add(name);
    const res = await c.callTool({ name, arguments: args });
    const text = res.content.filter((x) => x.type === "text").map((x) => x.text).join("");
    expect(Boolean(res.isError) === isError, `${name}(${JSON.stringify(args)}): isError=${res.isError}, want ${isError}: ${text}`);
    const ok = typeof want === "string" ? text === want : want.test(text);
    expect(ok, `${name}(${JSON.stringify(args)}) answered:\n${text}\nwant ${want}`);
    return { text, res, m: typeof want === "string" ? null : text.match(want) };
  }

  await call("smriti_list_spaces", {}, false, "No spaces yet. Create one with smriti_create_space.\n");
  const space = (await call("smriti_create_space", { name: "demo", description: "a demo" }, false, /^Created space `([0-9a-f-]{36})`: demo\n$/)).m?.[1];
  await call("smriti_install_skill", { target: "claude-code" }, false, /^# Smriti skill pack for Claude Code\n/);
  await call("smriti_create_checkpoint", { space: "demo" }, true, 'validating "arguments": validating root: required: missing properties: ["content"]');
  const handoff = "# Chose SQLite\n\nWe decided to use SQLite by default.\n\n- [ ] write the docs\n";
  const first = await call("smriti_create_checkpoint", { space: "demo", content: handoff, author_agent: "ts-sdk" }, false, /^Created checkpoint `([0-9a-f]{7})` on branch `main`: Chose SQLite\n$/);
  const a = first.m?.[1];
  expect(first.res.structuredContent?.branch === "main" && !("rebased_from" in first.res.structuredContent), `structured ${JSON.stringify(first.res.structuredContent)}`);
  await call("smriti_ready", { space: "demo" }, false, /^1 ready task\(s\) in demo:\n- \S+ {2}write the docs\n$/);
  await call("smriti_list_checkpoints", { space: "demo" }, false, /^1 checkpoint\(s\):\n/);
  await call("smriti_show_checkpoint", { checkpoint_id: a }, false, /by `ts-sdk`/);
  await call("smriti_checkpoint_note", { checkpoint_id: a, text: "keep", kind: "milestone" }, false, /^Note added to checkpoint `[0-9a-f]{8}…` \[milestone\]\n$/);
  await call("smriti_review_checkpoint", { checkpoint_id: a }, false, /^# Checkpoint review\n/);
  await call("smriti_verify", { checkpoint_id: a }, false, "Verified `" + a + "`: 1 checkpoint(s) in its history, every hash matches.\n");
  await call("smriti_why", { space: "demo", item: "use sqlite by default" }, false, /^## decision d-[0-9a-f]{6}/);
  await call("smriti_restore", { checkpoint_id: a, preview: true }, false, new RegExp("^_Continuation brief for checkpoint `" + a + "`_"));
  await call("smriti_state", { space: "demo", compact: true }, false, /^# demo\n/);
  await call("smriti_search", { query: "SQLite", space: "demo" }, false, /^\d+ result\(s\) for "SQLite":\n/);
  await call("smriti_context", { space: "demo", message: "what now?" }, false, /^# Context: HEAD mode/);

  const fork = (await call("smriti_fork", { checkpoint_id: a, branch: "try-x" }, false, /→ new session: try-x \(([0-9a-f-]{36})\)/)).m?.[1];
  const b = (await call("smriti_create_checkpoint", { space: "demo", session: fork, content: { message: "Plan B", decisions: ["Use SQLite by default", "Add Postgres"] } },
    false, /^Created checkpoint `([0-9a-f]{7})` on branch `try-x`: Plan B\n$/)).m?.[1];
  await call("smriti_compare", { checkpoint_a: a, checkpoint_b: b }, false, new RegExp("Common ancestor: `" + a + "`"));
  await call("smriti_merge", { source: b }, false, /^# Merge preview \(nothing written\)/);
  await call("smriti_merge", { source: b, commit: true, message: "Merge try-x" }, false, /^Merged into `main`: created `/);
  await call("smriti_close_branch", { space: "demo", branch: "try-x", disposition: "abandoned" }, false, "Branch `try-x` marked `abandoned` (1 session(s) updated).\n");

  const claim = (await call("smriti_claim", { space: "demo", scope: "write docs", task_id: "T1" }, false,
    /^Claimed: \[implement\] "write docs" on `main` by `ts-sdk`\n\nClaim ID: `([0-9a-f-]{36})`/)).m?.[1];
  await call("smriti_list_claims", { space: "demo" }, false, /^1 active claim\(s\):\n/);
  await call("smriti_claim_done", { claim_id: claim }, false, "Claim `" + claim + "` marked done.\n");
  await call("smriti_metrics", { space: "demo" }, false, /^# demo — project metrics/);

  const repo = gitRepo();
  const patched = await fetch(`${srv.base}/api/v2/repos/${space}/project-root`, { method: "PATCH", headers: { "content-type": "application/json" }, body: JSON.stringify({ project_root: repo }) });
  expect(patched.ok, `set project root: ${patched.status}`);
  const wt = (await call("smriti_worktree_open", { space: "demo", agent: "codex", branch: "codex/x" }, false, /^Created worktree `([0-9a-f-]{36})` for `codex`\./)).m?.[1];
  await call("smriti_worktree_list", { space: "demo" }, false, /codex\/x/);
  await call("smriti_worktree_show", { worktree_id: wt.slice(0, 6) }, false, /agent: codex/);
  await call("smriti_worktree_close", { worktree_id: wt }, false, new RegExp("^Closed worktree `" + wt + "` at `"));

  await call("smriti_check", { space: "demo" }, false, /^# Code refs checked against \S+\nNo item cites code\.\n$/);
  const p1 = (await call("smriti_propose", { space: "demo", content: { message: "Later", decisions: ["Use SQLite by default", "Cache in memory"] } }, false,
    /^Saved proposal `([0-9a-f]{8})` on `main`: Later\n/)).m?.[1];
  await call("smriti_list_proposals", { space: "demo" }, false, new RegExp("^1 proposal\\(s\\) in demo:\n- `" + p1 + "` \\[pending\\] Later — from mcp on `main`, "));
  await call("smriti_show_proposal", { space: "demo", proposal_id: p1 }, false,
    new RegExp("^# Proposal `" + p1 + "`: Later\npending · from mcp · on `main` · base [0-9a-f-]{36}\n\n## Decisions\n- Use SQLite by default\n- Cache in memory\n"));
  await call("smriti_edit_proposal", { space: "demo", proposal_id: p1, message: "Later, edited" }, false, "Edited proposal `" + p1 + "`: Later, edited\n");
  await call("smriti_accept_proposal", { space: "demo", proposal_id: p1 }, false,
    new RegExp("^Accepted proposal `" + p1 + "`: saved checkpoint `[0-9a-f]{7}` on branch `main`: Later, edited\n"));
  const p2 = (await call("smriti_propose", { space: "demo", content: { message: "Not this" } }, false, /^Saved proposal `([0-9a-f]{8})` on `main`: Not this\n/)).m?.[1];
  await call("smriti_reject_proposal", { space: "demo", proposal_id: p2 }, false, "Rejected proposal `" + p2 + "`: Not this\n");
  // Sync through a bare git repository as the space's only remote.
  const bare = mkdtempSync(join(work, "remote-"));
  execFileSync("git", ["init", "-q", "--bare", bare]);
  const added = await fetch(`${srv.base}/api/v5/spaces/${space}/remotes`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ name: "origin", url: bare }) });
  expect(added.status === 201, `add a git remote: ${added.status} ${await added.text()}`);
  await call("smriti_push", { space: "demo", remote: "origin" }, false, /^Pushed main to origin: .+ → [0-9a-f]{7} \(\d+ checkpoint\(s\), \d+ session\(s\), \d+ turn\(s\)\)\n/);
  await call("smriti_fetch", { space: "demo", remote: "origin" }, false, /^Fetched from origin: nothing new\n- main is up to date with origin\/main \(fetched [^)\n]+\)\n$/);
  await call("smriti_pull", { space: "demo", remote: "origin" }, false, /^Already up to date with origin \(head [0-9a-f]{7}\)\n/);
  await call("smriti_delete_checkpoint", { checkpoint_id: a }, true, /^HTTP 409\n/);
  await call("smriti_delete_checkpoint", { checkpoint_id: a, cascade: true }, false, "Deleted checkpoint `" + a + "` (cascade).\n");
  await call("smriti_delete_space", { space: "demo" }, false, "Deleted space 'demo' and its 0 checkpoint(s).\n");

  const uncalled = ALL.filter((n) => !called.has(n));
  expect(uncalled.length === 0, `tools never called: ${uncalled}`);
  await c.close();
} finally {
  srv.proc.kill("SIGTERM");
  rmSync(work, { recursive: true, force: true });
}
if (failures > 0) {
  console.error(`${failures} failure(s)\n--- server log (tail) ---\n${srv.log.split("\n").slice(-20).join("\n")}`);
  process.exit(1);
}
console.log(`mcp-client: ${ALL.length} tools listed and called with @modelcontextprotocol/sdk over stdio`);
