// The chat side of the workspace in real Chromium: Stop keeps the partial
// reply (stored by the server) after a reload, the model's context divider
// and the dimmed turns, edit a sent message as a branch, regenerate, session
// names, the sidebar per space, panels that close on Esc at 390 px, the
// thread one Tab from the composer, axe in both themes at 390/1024/1440 px,
// and the 2,000-turn session's first paint and scrolling frames. Called by
// run.mjs with its browser, server and helpers; the Stop scenario starts its
// own server whose provider streams slowly from a local OpenAI-compatible
// endpoint, so Stop lands mid-reply.
import { createServer } from "node:http";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { cpus, loadavg } from "node:os";

const WORDS = Array.from({ length: 60 }, (_, i) => `word${i}`);

// An OpenAI-compatible chat endpoint that streams one word every 150 ms.
function slowUpstream() {
  const srv = createServer((req, res) => {
    let body = "";
    req.on("data", (d) => (body += d));
    req.on("end", () => {
      const stream = body.includes('"stream":true');
      if (!stream) {
        res.writeHead(200, { "Content-Type": "application/json" });
        res.end(JSON.stringify({ id: "c1", object: "chat.completion", created: 1, model: "slow", choices: [{ index: 0, message: { role: "assistant", content: WORDS.join(" ") }, finish_reason: "stop" }], usage: { prompt_tokens: 5, completion_tokens: 60, total_tokens: 65 } }));
        return;
      }
      res.writeHead(200, { "Content-Type": "text/event-stream" });
      let i = 0;
      const tick = setInterval(() => {
        if (i >= WORDS.length) {
          clearInterval(tick);
          res.end("data: [DONE]\n\n");
          return;
        }
        const chunk = { id: "c1", object: "chat.completion.chunk", created: 1, model: "slow", choices: [{ index: 0, delta: { content: (i ? " " : "") + WORDS[i] }, finish_reason: null }] };
        res.write(`data: ${JSON.stringify(chunk)}\n\n`);
        i++;
      }, 150);
      res.on("close", () => clearInterval(tick));
    });
  });
  return new Promise((resolve) => srv.listen(0, "127.0.0.1", () => resolve(srv)));
}

const box = (p) => p.getByRole("textbox", { name: "Message", exact: true });
const seqsOf = (p) => p.evaluate(() => [...document.querySelectorAll("[data-seq]")].map((e) => `${e.getAttribute("data-seq")}:${e.getAttribute("aria-label")}`));

async function stopKeepsPartialReply({ browser, expect, shot, startServer, work }) {
  console.log("Stop: the server keeps the question and the partial reply, marked stopped, across a reload");
  const up = await slowUpstream();
  const cfg = join(work, "slow.yaml");
  writeFileSync(cfg, `providers:\n  generic: {base_url: "http://127.0.0.1:${up.address().port}/v1", default_model: slow}\nchat:\n  default_provider: generic\n`);
  const srv = await startServer(join(work, "stop.db"), ["--config", cfg]);
  const call = async (method, path, body) => {
    const r = await fetch(srv.base + path, { method, headers: { "Content-Type": "application/json" }, body: body ? JSON.stringify(body) : undefined });
    if (!r.ok) throw new Error(`${method} ${path}: ${r.status} ${await r.text()}`);
    return r.json();
  };
  const sp = await call("POST", "/api/v2/repos", { name: "Stories", description: "slow replies" });
  const se = await call("POST", `/api/v4/chat/spaces/${sp.id}/sessions`, { title: "Long story", provider: "generic", model: "slow" });
  const ctx = await browser.newContext({ viewport: { width: 1024, height: 800 } });
  const p = await ctx.newPage();
  await p.goto(`${srv.base}/sessions/${se.id}`);
  await box(p).fill("Tell me a long story");
  await box(p).press("Enter");
  await p.getByTestId("streaming-reply").getByText(/word5\b/).waitFor({ timeout: 15000 });
  // The box emptied on send and takes the next message while the reply streams.
  const sentCleared = (await box(p).inputValue()) === "";
  await box(p).pressSequentially("and then what happened");
  const typedWhileStreaming = await box(p).inputValue();
  await p.keyboard.press("Escape"); // the Stop shortcut, from the message box
  await p.getByTestId("stopped-badge").waitFor({ timeout: 10000 });
  const afterStream = await box(p).inputValue();
  expect(sentCleared && typedWhileStreaming === "and then what happened" && afterStream === "and then what happened",
    `text typed while the reply streams survives its end (on send "", while streaming "${typedWhileStreaming}", after "${afterStream}")`);
  await box(p).fill(""); // the box keeps its draft across a reload; the check below is about the question
  await p.reload();
  await p.getByTestId("stopped-badge").waitFor();
  const turns = await call("GET", `/api/v4/chat/sessions/${se.id}/turns`);
  const reply = turns[1]?.content ?? "";
  const prefix = WORDS.slice(0, reply.split(" ").length).join(" ");
  expect(turns.length === 2 && turns[0].content === "Tell me a long story" && turns[1].metadata.stopped === true && reply === prefix && reply.split(" ").length < WORDS.length,
    `after Stop and a reload the question and the partial reply (${reply.split(" ").length} of ${WORDS.length} words) are stored turns, the reply marked stopped`);
  const shown = await seqsOf(p);
  expect(shown.join("|") === "0:user message 0|1:assistant message 1, stopped", `the thread shows them after the reload, marked stopped (${shown.join(" | ")})`);
  expect((await box(p).inputValue()) === "", "the question is not put back in the box: it stays in the thread");
  await p.getByRole("button", { name: "More actions" }).click();
  await p.getByRole("menuitem", { name: "What the model sees" }).click();
  const said = await p.getByTestId("context-stopped").innerText();
  expect(said === "Stopped replies are included as far as they got: #1.", `"What the model sees" says the stopped reply is included (${said})`);
  await shot(p, "chat-stopped-reply");
  await ctx.close();
  up.close();
}

export async function chatScenarios(h) {
  const { browser, base, api, expect, shot, axe } = h;
  await stopKeepsPartialReply(h);

  console.log("context divider, edit as a branch, regenerate, names");
  const sp = await api("POST", "/api/v2/repos", { name: "Database choice", description: "chat scenarios" });
  const se = await api("POST", `/api/v4/chat/spaces/${sp.id}/sessions`, { title: "New session", provider: "mock", model: "mock" });
  const sendApi = (message) => api("POST", "/api/v4/chat/send", { session_id: se.id, message, provider: "mock", use_mock: true });
  const ctx = await browser.newContext({ viewport: { width: 1440, height: 900 } });
  const p = await ctx.newPage();
  p.on("pageerror", (e) => console.log("  page error:", e.message));
  await p.goto(`${base}/sessions/${se.id}`);
  await box(p).fill("We need to pick a database for the new service, probably PostgreSQL or SQLite.");
  await box(p).press("Enter");
  await p.getByRole("heading", { name: "We need to pick a database for the new service", exact: true }).waitFor({ timeout: 15000 });
  expect(true, "a new session is named after its first message, a complete phrase");
  await sendApi("Which one is cheaper to run?");
  await api("POST", "/api/v4/chat/commit", { repo_id: sp.id, session_id: se.id, message: "Pick PostgreSQL", summary: "PostgreSQL it is", decisions: ["Use PostgreSQL"] });
  await sendApi("How do we back it up?");
  await p.reload();
  await p.getByTestId("context-start").waitFor();
  const dims = await p.evaluate(() => [...document.querySelectorAll("[data-seq]")].map((e) => `${e.getAttribute("data-seq")}:${e.classList.contains("dim") ? "dim" : "in"}`));
  expect(dims.join(",") === "0:dim,1:dim,2:dim,3:dim,4:in,5:in", `in HEAD mode the turns before the head checkpoint are dimmed, the newer ones not (${dims.join(",")})`);
  const reason = await p.locator("[data-seq='0']").getAttribute("aria-label");
  expect(reason === "user message 0, not sent to the model: before the head checkpoint", `a dimmed turn says why (${reason})`);
  const divAt = await p.evaluate(() => document.querySelector("[data-testid=context-start]")?.closest("[data-index]")?.querySelector("[data-seq]")?.getAttribute("data-seq"));
  expect(divAt === "4", `"the model's context starts here" stands before turn #4 (at #${divAt})`);

  // Tab from the thread reaches the composer in at most two presses.
  await p.locator("[data-seq='5']").focus();
  await p.keyboard.press("ArrowUp");
  const moved = await p.evaluate(() => document.activeElement?.getAttribute("data-seq"));
  expect(moved === "4", `ArrowUp moves the thread's focus to the previous message (#${moved})`);
  let tabs = 0;
  for (; tabs < 5 && (await p.evaluate(() => document.activeElement?.id)) !== "composer-text"; tabs++) await p.keyboard.press("Tab");
  expect(tabs <= 2, `Tab from a message reaches the message box in ${tabs} press(es) (≤ 2)`);
  await p.keyboard.press("Shift+Tab");
  await p.locator("body").click({ position: { x: 700, y: 5 } }).catch(() => {});
  await p.keyboard.press("Shift+Escape");
  expect((await p.evaluate(() => document.activeElement?.id)) === "composer-text", "Shift+Esc focuses the message box");

  // "Send again" fills the box instead of sending; the thread does not grow.
  await p.locator("[data-seq='4']").hover();
  await p.getByRole("button", { name: "Put this message in the box to send it again" }).nth(2).click();
  expect((await box(p).inputValue()) === "How do we back it up?" && (await p.locator("[data-seq]").count()) === 6, "send again puts the message in the box and appends nothing");
  await box(p).fill("");

  // Regenerate the last reply: the question is asked again.
  await p.locator("[data-seq='5']").hover();
  await p.getByRole("button", { name: "Regenerate this reply" }).click();
  await p.locator("[data-seq='7']").waitFor({ timeout: 15000 });
  const regen = await p.evaluate(() => [...document.querySelectorAll("[data-seq]")].slice(-2).map((e) => e.textContent));
  expect(regen[0] === "How do we back it up?" && regen[1].includes('You said: "How do we back it up?"'), `regenerate asks the last question again and shows the new reply (${JSON.stringify(regen)})`);

  // No fork where it cannot work: messages before the first checkpoint offer none.
  await p.locator("[data-seq='1']").hover();
  const early = await p.locator("[data-index='1']").getByRole("button", { name: /^Fork from message/ }).count();
  const late = await p.locator("[data-index='5']").getByRole("button", { name: /^Fork from message/ }).count();
  expect(early === 0 && late === 1, `"Fork from message" is offered only after a checkpoint (before: ${early}, after: ${late})`);

  // Edit a sent message = a new branch from the state before it, with the edited text sent there.
  await p.locator("[data-seq='4']").hover();
  await p.getByRole("button", { name: "Edit message 4 on a new branch" }).click();
  await p.getByRole("textbox", { name: "Edit message 4" }).fill("How do we back it up offsite?");
  await p.getByRole("button", { name: "Branch and send" }).click();
  await p.waitForURL((u) => !u.toString().endsWith(se.id));
  await p.getByText('You said: "How do we back it up offsite?"', { exact: false }).first().waitFor({ timeout: 15000 });
  const forkTurns = await seqsOf(p);
  const title = await p.getByRole("heading", { level: 1 }).innerText();
  expect(forkTurns.join("|") === "0:user message 0|1:assistant message 1", `the edit opens a fork whose first message is the edited text (${forkTurns.join(" | ")})`);
  expect(title === "Branch of “Pick PostgreSQL”", `the fork is named after the checkpoint it starts from, not a hash (${title})`);
  expect((await p.getByText(/^branch fork-/).count()) === 1 && (await p.getByTestId("context-badge").innerText()).startsWith("FORKED"), "the fork is a branch in FORKED mode");
  await shot(p, "chat-edit-as-branch");

  console.log("sidebar: chats per space, New chat, Show all");
  for (let i = 0; i < 6; i++) await api("POST", `/api/v4/chat/spaces/${sp.id}/sessions`, { title: `Side chat ${i}`, provider: "mock", model: "mock" });
  await p.goto(`${base}/`); // a chat outside the newest five opens its group; the overview opens none
  const group = p.getByRole("region", { name: "Chats in Database choice" });
  await group.getByRole("link").nth(4).waitFor();
  const before = await group.getByRole("link").count();
  await group.getByRole("button", { name: /^Show all \d+$/ }).click();
  const after = await group.getByRole("link").count();
  expect(before === 5 && after === 8, `the space's group shows 5 chats, and Show all lists all ${after}`);
  const was = p.url();
  await group.getByRole("button", { name: "New chat in Database choice" }).click();
  await p.waitForURL((u) => u.toString() !== was);
  await p.getByRole("heading", { name: "New session" }).waitFor();
  expect((await p.evaluate(() => document.activeElement?.id)) === "composer-text", "New chat opens a session of that space with the focus in the box");
  await ctx.close();

  await panelsAndAxe(h, se.id);
  await longThreadBudgets(h, sp.id);
}

// At 390 px every panel closes with Esc (and the history panel with back),
// and the composer is compact; axe on the chat page in both themes at
// 390, 1024 and 1440 px.
async function panelsAndAxe({ browser, base, expect, shot, axe }, sessionId) {
  const se = { id: sessionId };
  console.log("phone: every panel closes with Esc (and back), the composer is compact; axe in both themes");
  for (const colorScheme of ["light", "dark"]) {
    for (const width of [390, 1024, 1440]) {
      const c = await browser.newContext({ viewport: { width, height: 844 }, colorScheme });
      const q = await c.newPage();
      await q.goto(`${base}/sessions/${se.id}`);
      await q.locator("[data-seq='0']").waitFor();
      await axe(q, `chat ${width}px ${colorScheme}`);
      if (width === 390) {
        await q.getByRole("button", { name: "History" }).click();
        await q.getByRole("heading", { name: "Checkpoints this session can reach" }).waitFor();
        await q.keyboard.press("Escape");
        const historyGone = (await q.getByRole("heading", { name: "Checkpoints this session can reach" }).count()) === 0;
        await q.getByRole("button", { name: "History" }).click();
        await q.goBack();
        const backGone = (await q.getByRole("heading", { name: "Checkpoints this session can reach" }).count()) === 0 && q.url().endsWith(se.id);
        await q.getByRole("button", { name: "More actions" }).click();
        await q.getByRole("menuitem", { name: "What the model sees" }).click();
        await q.getByRole("complementary", { name: "What the model sees" }).waitFor();
        await q.keyboard.press("Escape");
        const drawerGone = (await q.getByRole("complementary", { name: "What the model sees" }).count()) === 0;
        await q.getByRole("button", { name: "Create checkpoint" }).click();
        await q.getByRole("dialog").waitFor();
        await q.keyboard.press("Escape");
        const modalGone = (await q.getByRole("dialog").count()) === 0;
        await q.getByRole("button", { name: "Open navigation" }).click();
        await q.waitForFunction(() => document.querySelector(".sidebar.open"));
        await q.keyboard.press("Escape");
        const navGone = await q.evaluate(() => !document.querySelector(".sidebar.open"));
        expect(historyGone && backGone && drawerGone && modalGone && navGone,
          `390 px ${colorScheme}: Esc closes the history panel, the context drawer, the checkpoint dialog and the navigation; back closes the history panel (${[historyGone, backGone, drawerGone, modalGone, navGone]})`);
        const h = await q.locator(".composer").evaluate((e) => e.getBoundingClientRect().height);
        expect(h <= 170, `390 px ${colorScheme}: the composer is compact (${Math.round(h)} px high)`);
        await shot(q, `chat-390-${colorScheme}`);
      }
      await c.close();
    }
  }

}

// The renderer main thread's CPU time in a trace (thread time: waiting for
// a CPU another process holds is not counted), in ms.
function mainThreadCpuMs(trace) {
  const main = new Set(trace.filter((e) => e.ph === "M" && e.name === "thread_name" && e.args.name === "CrRendererMain").map((e) => `${e.pid}:${e.tid}`));
  const by = new Map();
  for (const e of trace) {
    if (e.ph !== "X" || (e.name !== "ThreadControllerImpl::RunTask" && e.name !== "RunTask") || !main.has(`${e.pid}:${e.tid}`)) continue;
    by.set(`${e.pid}:${e.tid}`, (by.get(`${e.pid}:${e.tid}`) ?? 0) + (e.tdur ?? 0));
  }
  return Math.max(0, ...by.values()) / 1000;
}

const scrollFrames = (p) =>
  p.evaluate(
    () =>
      new Promise((resolve) => {
        const el = document.querySelector("[data-testid=thread]");
        const gaps = [];
        let last = 0;
        let n = 0;
        const step = (t) => {
          if (last) gaps.push(t - last);
          last = t;
          el.scrollTop -= 120;
          if (++n < 120) requestAnimationFrame(step);
          else resolve(gaps);
        };
        requestAnimationFrame(step);
      }),
  );

// The 2,000-turn session: first paint (navigation to the newest turn on
// screen) and the frames of a scroll up through it.
async function longThreadBudgets({ browser, base, expect, figures }, spaceId) {
  console.log("budgets: a 2,000-turn session's first paint and scrolling frames");
  let md = "# Two thousand turns\n\n";
  for (let i = 0; i < 1000; i++) md += `User: Question ${i}\n\nAssistant: Answer ${i}, with **some** markdown and a list:\n\n- one\n- two\n\n`;
  const r = await fetch(`${base}/api/v5/import/transcript?space_id=${spaceId}&filename=two-thousand.md`, { method: "POST", headers: { "Content-Type": "application/octet-stream" }, body: md });
  if (!r.ok) throw new Error(`import: ${r.status} ${await r.text()}`);
  const sid = (await r.json()).conversations[0].session_id;
  const ctx = await browser.newContext({ viewport: { width: 1440, height: 900 } });
  // The page notes the first frame in which the newest turn is on screen
  // (performance.now() from navigation), so the figure is the page's, not
  // the time Playwright's polling takes to notice it.
  await ctx.addInitScript(() => {
    const seen = () => {
      const el = document.querySelector("[data-seq='1999']");
      if (!el) return false;
      const r = el.getBoundingClientRect();
      return r.height > 0 && r.bottom > 0 && r.top < innerHeight;
    };
    const tick = () => (seen() ? (window.__newestOnScreen = performance.now()) : requestAnimationFrame(tick));
    requestAnimationFrame(tick);
  });
  const paints = [];
  for (let i = 0; i < 3; i++) {
    const p = await ctx.newPage();
    await p.goto(`${base}/sessions/${sid}`, { waitUntil: "commit" });
    await p.locator("[data-seq='1999']").waitFor({ timeout: 20000 });
    await p.waitForFunction(() => window.__newestOnScreen !== undefined);
    paints.push(await p.evaluate(() => window.__newestOnScreen));
    if (i < 2) await p.close();
  }

  const p = ctx.pages()[0];
  const paint = Math.round(paints.slice().sort((a, b) => a - b)[1]);
  figures.chat2000FirstPaintMs = paints.map(Math.round);
  figures.chat2000FirstPaintMedianMs = paint;
  const frames = await scrollFrames(p);
  const sorted = frames.slice().sort((a, b) => a - b);
  const p95 = +sorted[Math.floor(sorted.length * 0.95)].toFixed(1);
  figures.chat2000ScrollP95FrameMs = p95;
  console.log(`  --  2,000-turn session: newest turn on screen after ${figures.chat2000FirstPaintMs.join(", ")} ms; scroll p95 frame ${p95} ms`);
  // The same load and scroll traced, for what the page itself costs.
  const tp = await ctx.newPage();
  await browser.startTracing(tp, { categories: ["toplevel"] });
  await tp.goto(`${base}/sessions/${sid}`, { waitUntil: "commit" });
  await tp.locator("[data-seq='1999']").waitFor({ timeout: 20000 });
  figures.chat2000FirstPaintMainThreadCpuMs = Math.round(mainThreadCpuMs(JSON.parse((await browser.stopTracing()).toString()).traceEvents));
  await browser.startTracing(tp, { categories: ["toplevel"] });
  const n = (await scrollFrames(tp)).length + 1;
  figures.chat2000ScrollMainThreadCpuMsPerFrame = +(mainThreadCpuMs(JSON.parse((await browser.stopTracing()).toString()).traceEvents) / n).toFixed(2);
  console.log(`  --  traced: ${figures.chat2000FirstPaintMainThreadCpuMs} ms of main-thread CPU to the newest turn; ${figures.chat2000ScrollMainThreadCpuMsPerFrame} ms per scroll frame`);
  const load = loadavg()[0] / cpus().length;
  figures.chat2000LoadPerCpu = +load.toFixed(2);
  // The 500 ms / 32 ms budgets are figures for a quiet machine: held with
  // SMRITI_E2E_STRICT_BUDGET set, reported otherwise (a test run shares the
  // CPUs with PostgreSQL and the Go builds). A bound eight times as wide is
  // always held, so a thread that loads every turn again fails here.
  if (process.env.SMRITI_E2E_STRICT_BUDGET) {
    expect(paint <= 500, `the 2,000-turn session shows its newest turn within 500 ms (median ${paint} ms)`);
    expect(p95 <= 32, `scrolling the 2,000-turn session: p95 frame ${p95} ms ≤ 32 ms`);
  } else {
    console.log(`  --  load ${load.toFixed(2)} per CPU: budgets 500 ms / 32 ms reported (SMRITI_E2E_STRICT_BUDGET=1 holds them)`);
    expect(paint <= 4000, `the 2,000-turn session shows its newest turn within 4 s (median ${paint} ms)`);
    expect(p95 <= 250, `scrolling the 2,000-turn session: p95 frame ${p95} ms ≤ 250 ms`);
  }
  await ctx.close();
}
