// Sync in the web workspace: a second `smriti serve` (its own database and
// port) is the team server this copy was cloned from. The space's Remotes
// page shows how main stands against origin/main, and its Fetch, Pull and
// Push move records between the two real servers; the same item changed on
// both copies makes a push refused ("pull first"), and the pull's conflict
// is reviewed by item in the inbox and accepted; a remote that is down
// shows its error with what to do. Called by run.mjs with its browser,
// server and helpers.
import { createServer } from "node:net";
import { join } from "node:path";

const freePort = () =>
  new Promise((resolve, reject) => {
    const s = createServer();
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
    s.on("error", reject);
  });

// A JSON call to any of the servers; answers the status and the body.
async function call(server, method, path, body) {
  const r = await fetch(server + path, { method, headers: { "Content-Type": "application/json" }, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await r.text();
  return { status: r.status, body: text ? JSON.parse(text) : null };
}

export async function syncScenarios({ browser, base, expect, shot, axe, startServer, work }) {
  console.log("sync: a team server, a clone of its space here, and the Remotes page");
  const team = (await startServer(join(work, "team.db"))).base;
  const teamApi = async (method, path, body) => {
    const r = await call(team, method, path, body);
    if (r.status >= 300) throw new Error(`team ${method} ${path}: ${r.status} ${JSON.stringify(r.body)}`);
    return r.body;
  };
  const localApi = async (method, path, body) => {
    const r = await call(base, method, path, body);
    if (r.status >= 300) throw new Error(`${method} ${path}: ${r.status} ${JSON.stringify(r.body)}`);
    return r.body;
  };
  const TTL15 = "Access tokens expire after 15 minutes";
  const sp = await teamApi("POST", "/api/v2/repos", { name: "Team sync", description: "a space on the team server" });
  const teamSe = await teamApi("POST", `/api/v4/chat/spaces/${sp.id}/sessions`, { title: "team", provider: "mock", model: "mock" });
  const commit = (apiOf, session, message, decisions, items) => async () => {
    const head = await apiOf("GET", `/api/v4/chat/spaces/${sp.id}/head`);
    return apiOf("POST", "/api/v4/chat/commit", { repo_id: sp.id, session_id: session, message, decisions, items, base_checkpoint_id: head.commit_id ?? undefined });
  };
  const c1 = await commit(teamApi, teamSe.id, "Auth", [TTL15, "Deploy with systemd"])();
  const ttl = (await teamApi("GET", `/api/v5/checkpoints/${c1.id}/items`)).find((it) => it.text === TTL15);

  const cloned = await call(base, "POST", "/api/v5/clone", { url: team, space_id: sp.id, name: "origin" });
  expect(cloned.status === 201 && cloned.body.repo.id === sp.id && cloned.body.remote.name === "origin", `this server clones the team's space with the same id, origin recorded (${cloned.status})`);
  const localSe = await localApi("POST", `/api/v4/chat/spaces/${sp.id}/sessions`, { title: "laptop", provider: "mock", model: "mock" });

  const ctx = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await ctx.newPage();
  page.on("pageerror", (e) => console.log("  page error:", e.message));
  await page.goto(`${base}/spaces/${sp.id}/lineage`);
  await page.getByRole("link", { name: "Remotes" }).click();
  await page.getByRole("heading", { name: "Remotes: Team sync" }).waitFor();
  const origin = page.locator("[data-testid=remote][data-remote=origin]");
  const main = origin.locator("[data-testid=divergence][data-branch=main]");
  // Waits until origin's main reads ahead/behind as given (ahead null: as
  // many as the server counts), then answers its sentence.
  const stands = async (ahead, behind) => {
    const want = ahead ?? (await serverAhead());
    await origin
      .locator(`[data-testid=divergence][data-branch=main][data-ahead="${want}"][data-behind="${behind}"]`)
      .waitFor()
      .catch(async (e) => {
        throw new Error(`origin's main never read ${want} ahead, ${behind} behind; it reads "${await main.innerText().catch(() => "?")}": ${e.message}`);
      });
    return (await main.innerText()).trim();
  };
  const serverAhead = async () => (await localApi("GET", `/api/v5/spaces/${sp.id}/remotes/origin`)).divergence.find((d) => d.branch === "main").ahead;
  const button = (name) => origin.getByRole("button", { name, exact: true });
  const outcome = origin.getByTestId("sync-outcome");
  let said = await stands(0, 0);
  expect(/^main is up to date with origin\/main, fetched (just now|\dm ago)$/.test(said), `after the clone: "${said}"`);
  await shot(page, "sync-remotes-cloned");
  await axe(page, "remotes");

  console.log("sync: the team saves a checkpoint; Fetch shows main behind without moving it");
  await commit(teamApi, teamSe.id, "Changelog", [TTL15, "Deploy with systemd", "Keep a changelog"])();
  // The fetch is held at the browser until the page has shown its progress.
  let release;
  const held = new Promise((r) => (release = r));
  await page.route("**/remotes/origin/fetch", async (route) => {
    await held;
    await route.continue();
  });
  const fetched = page.waitForResponse((r) => r.url().endsWith("/remotes/origin/fetch"));
  await button("Fetch").click();
  await origin.getByTestId("sync-progress").filter({ hasText: "Fetching from origin…" }).waitFor();
  const busy = await origin.getByRole("button", { name: "Fetching…" }).isDisabled();
  expect(busy && (await button("Push").isDisabled()) && (await origin.getAttribute("aria-busy")) === "true", "while it runs, Fetch shows its progress and the other steps wait");
  release();
  expect((await fetched).status() === 200, "Fetch answers 200");
  await page.unroute("**/remotes/origin/fetch");
  said = await stands(0, 1);
  expect(said.startsWith("main is 1 behind origin/main, fetched "), `after Fetch: "${said}"`);
  expect((await outcome.innerText()).startsWith("Fetched from origin: 1 checkpoint"), `Fetch says what arrived: "${await outcome.innerText()}"`);
  const localHead = async () => (await localApi("GET", `/api/v4/chat/spaces/${sp.id}/head`)).commit_id;
  expect((await localHead()) === c1.id, "the fetch moved no local branch");

  console.log("sync: a checkpoint saved here shows main ahead too, live");
  await commit(localApi, localSe.id, "Runbook", [TTL15, "Deploy with systemd", "Write the runbook"])();
  said = await stands(1, 1);
  expect(/^main is 1 ahead, 1 behind origin\/main, fetched /.test(said), `after a save here, without a reload: "${said}"`);
  await shot(page, "sync-ahead-behind");

  console.log("sync: Pull merges the disjoint changes, Push sends them");
  await button("Pull").click();
  await outcome.filter({ hasText: "Merged origin/main into main as" }).waitFor();
  // The merge and the checkpoint saved here are what origin lacks.
  said = await stands(2, 0);
  expect(/^main is 2 ahead of origin\/main, fetched /.test(said), `after Pull: "${said}"`);
  const pushed = page.waitForResponse((r) => r.url().endsWith("/remotes/origin/push"));
  await button("Push").click();
  expect((await pushed).status() === 200, "Push answers 200");
  await outcome.filter({ hasText: "Pushed main to origin:" }).waitFor();
  said = await stands(0, 0);
  expect(said.startsWith("main is up to date with origin/main"), `after Push: "${said}"`);
  const teamHead = async () => (await teamApi("GET", `/api/v4/chat/spaces/${sp.id}/head`)).commit_id;
  expect((await teamHead()) === (await localHead()), "the team server's main is this copy's main");
  const teamState = await teamApi("GET", `/api/v4/chat/spaces/${sp.id}/state`);
  expect(["Keep a changelog", "Write the runbook"].every((d) => teamState.commit.decisions.includes(d)), `the team's main holds both copies' decisions: ${JSON.stringify(teamState.commit.decisions)}`);

  console.log("sync: the same item changed on both copies; Push is refused, pull first");
  const all = [TTL15, "Deploy with systemd", "Keep a changelog", "Write the runbook"];
  const edited = (text) => all.map((d) => (d === TTL15 ? text : d));
  await commit(teamApi, teamSe.id, "Longer tokens", edited("Access tokens expire after 30 minutes"), [{ id: ttl.id, kind: "decision", text: "Access tokens expire after 30 minutes" }])();
  await commit(localApi, localSe.id, "Shorter tokens", edited("Access tokens expire after 5 minutes"), [{ id: ttl.id, kind: "decision", text: "Access tokens expire after 5 minutes" }])();
  await stands(1, 0);
  const refused = page.waitForResponse((r) => r.url().endsWith("/remotes/origin/push"));
  await button("Push").click();
  const refusal = await refused;
  const refusalBody = await refusal.json();
  expect(refusal.status() === 409 && JSON.stringify(refusalBody).includes("push refused"), `the refused push answers 409 with its detail (${refusal.status()})`);
  const alert = origin.getByRole("alert");
  await alert.waitFor();
  const alertText = (await alert.innerText()).replace(/\s+/g, " ");
  expect(alertText.startsWith("Push failed: push refused: main on the remote is at ") && alertText.includes("Pull first:"), `the refusal is shown with what to do: "${alertText}"`);
  await shot(page, "sync-push-refused");
  await axe(page, "remotes-push-refused");

  console.log("sync: pulling leaves the conflict as a proposal, reviewed by item in the inbox and accepted");
  const pulled = page.waitForResponse((r) => r.url().endsWith("/remotes/origin/pull"));
  await alert.getByRole("button", { name: "Pull from origin" }).click();
  const pull = await (await pulled).json();
  expect(pull.outcome === "merged_with_proposal" && pull.conflicts.length === 1 && pull.conflicts[0].key === ttl.id, `the pull merged and left the conflict on ${ttl.id} as a proposal (${pull.outcome})`);
  await outcome.filter({ hasText: "waits in the inbox" }).waitFor();
  expect((await origin.getByRole("alert").count()) === 0, "the refusal is gone once the pull ran");
  await outcome.getByRole("link", { name: "Review it in the inbox" }).click();
  await page.getByRole("heading", { name: "Proposals: Team sync" }).waitFor();
  const review = page.getByTestId("review");
  const conflict = review.getByTestId("pull-conflict");
  await conflict.waitFor();
  const conflictText = (await conflict.innerText()).replace(/\s+/g, " ");
  expect((await conflict.getAttribute("data-key")) === ttl.id && conflictText.includes("This copy: Access tokens expire after 5 minutes") &&
    conflictText.includes("Other copy: Access tokens expire after 30 minutes") && conflictText.includes(`was “${TTL15}”`),
    `the inbox shows the item both copies changed, by id, with both versions: "${conflictText}"`);
  expect(await review.getByLabel("Access tokens expire after 30 minutes").isChecked(), "the proposal's items are listed one by one, the other copy's version ticked");
  await shot(page, "sync-inbox-conflict");
  await axe(page, "inbox-pull-conflict");
  const accepted = page.waitForResponse((r) => r.url().endsWith("/accept") && r.request().method() === "POST");
  await review.getByRole("button", { name: "Accept" }).click();
  expect((await accepted).status() === 201, "accepting answers 201");
  await page.getByTestId("accepted").waitFor();
  const state = await localApi("GET", `/api/v4/chat/spaces/${sp.id}/state`);
  expect(state.commit.decisions.includes("Access tokens expire after 30 minutes") && !state.commit.decisions.includes("Access tokens expire after 5 minutes"),
    `main now holds the other copy's version: ${JSON.stringify(state.commit.decisions)}`);

  console.log("sync: push again; both servers agree");
  await page.goto(`${base}/spaces/${sp.id}/remotes`);
  await stands(null, 0);
  await button("Push").click();
  await outcome.filter({ hasText: "Pushed main to origin:" }).waitFor();
  await stands(0, 0);
  expect((await teamHead()) === (await localHead()), "after the accepted pull, the push lands: both servers' main are the same checkpoint");

  await downRemote({ page, base, sp, expect, shot, axe });
  await ctx.close();

  for (const [theme, width] of [["dark", 390], ["light", 1440]]) {
    const c = await browser.newContext({ viewport: { width, height: 844 }, colorScheme: theme });
    const p = await c.newPage();
    await p.goto(`${base}/spaces/${sp.id}/remotes`);
    await p.locator("[data-testid=remote][data-remote=origin] [data-testid=divergence]").waitFor();
    const over = await p.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    expect(over <= 0, `remotes at ${width} px ${theme}: no horizontal scroll (overflow ${over})`);
    await shot(p, `sync-remotes-${width}-${theme}`);
    await axe(p, `remotes (${theme}, ${width} px)`);
    await c.close();
  }
}

// A remote added from the page (its token written once, never shown back)
// whose server is down: Fetch shows the error and what to do; Remove forgets it.
async function downRemote({ page, base, sp, expect, shot, axe }) {
  console.log("sync: a remote added from the page whose server is down");
  const port = await freePort();
  const token = "tok-" + Math.random().toString(36).slice(2, 12) + "wxyz";
  await page.getByLabel("Name").fill("laptop");
  await page.getByLabel("URL: a Smriti server or a git repository").fill(`http://127.0.0.1:${port}`);
  await page.getByLabel(/^API token/).fill(token);
  const added = page.waitForResponse((r) => r.url().endsWith(`/api/v5/spaces/${sp.id}/remotes`) && r.request().method() === "POST");
  await page.getByRole("button", { name: "Add remote" }).click();
  expect((await added).status() === 201, "adding the remote answers 201");
  const laptop = page.locator("[data-testid=remote][data-remote=laptop]");
  await laptop.waitFor();
  expect((await laptop.innerText()).includes("token …wxyz") && !(await page.content()).includes(token), "the token is shown by its last four characters only, never in full");
  expect((await page.getByLabel(/^API token/).inputValue()) === "", "the token field is emptied after the add");
  const failed = page.waitForResponse((r) => r.url().endsWith("/remotes/laptop/fetch"));
  await laptop.getByRole("button", { name: "Fetch", exact: true }).click();
  const f = await failed;
  const detail = (await f.json()).detail;
  expect([502, 503].includes(f.status()) && detail.startsWith("cannot reach remote laptop"), `a fetch from a server that is down answers ${f.status()} with the detail "${detail}"`);
  const alert = laptop.getByRole("alert");
  await alert.waitFor();
  const text = (await alert.innerText()).replace(/\s+/g, " ");
  expect(text.startsWith("Fetch failed: cannot reach remote laptop at http://127.0.0.1:") && text.includes("check that its server is running and the address is right, then fetch again"),
    `the error is shown with what to do: "${text}"`);
  expect((await alert.getByRole("button", { name: "Fetch laptop again" }).count()) === 1, "the error offers to fetch again");
  await shot(page, "sync-remote-down");
  await axe(page, "remotes-remote-down");
  await laptop.getByRole("button", { name: "Remove…" }).click();
  await laptop.getByRole("button", { name: "Remove laptop" }).click();
  await laptop.waitFor({ state: "detached" });
  const left = await call(base, "GET", `/api/v5/spaces/${sp.id}/remotes`);
  expect(left.status === 200 && left.body.map((r) => r.name).join(",") === "origin", `Remove forgets the remote: ${JSON.stringify(left.body.map((r) => r.name))}`);
}
