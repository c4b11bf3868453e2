// The 200-turn scroll measurement of e2e/run.mjs on its own, repeatable, for
// comparing builds of the workspace under the same machine load.
// Usage: SMRITI_BIN=path/to/smriti [DIST=dir/with/index.html] [RUNS=3] node e2e/scroll.mjs
// The API comes from the binary; the app's files from DIST (default: this
// directory's ../dist), so two builds can be compared without rebuilding the
// binary. Each run loads the session afresh, waits at the newest message,
// scrolls 90 animation frames of 120 px up and prints the frame rate, and
// from a trace of the same scroll the renderer's main-thread CPU time per
// frame (thread time: waiting for a CPU is not counted).
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { cpus, loadavg, tmpdir } from "node:os";
import { dirname, extname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";
import { scrollUpFps } from "./scrollfps.mjs";

const bin = process.env.SMRITI_BIN;
if (!bin) throw new Error("set SMRITI_BIN to a smriti binary");
const dist = process.env.DIST || join(dirname(fileURLToPath(import.meta.url)), "..", "dist");
const runs = Number(process.env.RUNS || 3);
const work = mkdtempSync(join(tmpdir(), "smriti-scroll-"));
const port = await new Promise((resolve, reject) => {
  const s = createServer();
  s.listen(0, "127.0.0.1", () => {
    const { port } = s.address();
    s.close(() => resolve(port));
  });
  s.on("error", reject);
});
const base = `http://127.0.0.1:${port}`;
const proc = spawn(bin, ["serve", "--addr", `127.0.0.1:${port}`, "--db", join(work, "smriti.db"), "--config", join(work, "none.yaml"), "--env-file", join(work, "none.env")], {
  env: { PATH: process.env.PATH, HOME: work },
  stdio: "ignore",
});
let browser;
try {
  for (let i = 0; ; i++) {
    try {
      if ((await fetch(`${base}/health`)).ok) break;
    } catch {
      /* not up yet */
    }
    if (i > 100) throw new Error("server did not start");
    await new Promise((r) => setTimeout(r, 100));
  }
  const api = async (method, path, body) => {
    const r = await fetch(base + path, { method, headers: { "Content-Type": "application/json" }, body: body === undefined ? undefined : JSON.stringify(body) });
    if (!r.ok) throw new Error(`${method} ${path}: ${r.status} ${await r.text()}`);
    return r.json();
  };
  // The same thread as e2e/run.mjs: 100 exchanges with the mock, every tenth with a code block.
  const space = await api("POST", "/api/v2/repos", { name: "Scroll", description: "" });
  const session = await api("POST", `/api/v4/chat/spaces/${space.id}/sessions`, { title: "Long thread", provider: "mock", model: "mock" });
  for (let i = 1; i <= 100; i++) {
    await api("POST", "/api/v4/chat/send", { session_id: session.id, provider: "mock", model: "mock", use_mock: true, message: `Message number ${i}` + (i % 10 === 5 ? "\n\n```go\nfunc main() {}\n```" : "") });
  }
  browser = await chromium.launch({
    executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
    headless: true,
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run"],
  });
  const ctx = await browser.newContext({ viewport: { width: 1280, height: 860 } });
  const types = { ".js": "text/javascript", ".css": "text/css", ".html": "text/html", ".svg": "image/svg+xml" };
  await ctx.route(
    (u) => !u.pathname.startsWith("/api/") && u.pathname !== "/health",
    (route) => {
      const path = new URL(route.request().url()).pathname;
      let file = join(dist, path);
      if (!path.startsWith("/assets/") || !existsSync(file)) file = join(dist, "index.html");
      route.fulfill({ status: 200, body: readFileSync(file), contentType: types[extname(file)] || "application/octet-stream" });
    },
  );
  const page = await ctx.newPage();
  const open = async () => {
    await page.goto(`${base}/sessions/${session.id}`);
    await page.getByText('You said: "Message number 100"', { exact: false }).first().waitFor();
    await page.waitForFunction(() => {
      const el = document.querySelector("[data-testid=thread]");
      return el && el.scrollHeight - el.scrollTop - el.clientHeight < 4;
    });
  };
  const scrollUp = () => scrollUpFps(page);
  for (let r = 0; r < runs; r++) {
    await open();
    const fps = await scrollUp();
    const load = loadavg()[0] / cpus().length;
    await open();
    await browser.startTracing(page, { categories: ["toplevel"] });
    await scrollUp();
    const trace = JSON.parse((await browser.stopTracing()).toString()).traceEvents;
    const main = new Set(trace.filter((e) => e.ph === "M" && e.name === "thread_name" && e.args.name === "CrRendererMain").map((e) => `${e.pid}:${e.tid}`));
    const cpu = new Map();
    for (const e of trace) {
      if (e.ph !== "X" || (e.name !== "ThreadControllerImpl::RunTask" && e.name !== "RunTask") || !main.has(`${e.pid}:${e.tid}`)) continue;
      cpu.set(`${e.pid}:${e.tid}`, (cpu.get(`${e.pid}:${e.tid}`) ?? 0) + (e.tdur ?? 0));
    }
    const msPerFrame = Math.max(0, ...cpu.values()) / 1000 / 89;
    console.log(`run ${r + 1}: ${fps.toFixed(1)} fps at load ${load.toFixed(1)} per CPU; ${msPerFrame.toFixed(2)} ms main-thread CPU per frame`);
  }
} finally {
  await browser?.close();
  proc.kill("SIGTERM");
  rmSync(work, { recursive: true, force: true });
}
