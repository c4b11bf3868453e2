// State integrity through the web workspace: the checkpoint form edits
// items in place (an edit is an update of the item's id), a save written
// against an older checkpoint is rebased or answered with the conflicting
// items, and hostile texts are shown as text on every page that renders
// them. Called by run.mjs with its browser, server and helpers.

const decisionsOf = (page) => page.getByLabel("Decisions (one per line)");

// Opens the chat page of a session and its checkpoint form, and waits until
// the form holds the base it builds on (want: field id → textarea value).
async function openForm(page, url, want) {
  await page.goto(url);
  await page.getByRole("button", { name: "Create checkpoint" }).click();
  await decisionsOf(page).waitFor();
  await page.waitForFunction((w) => Object.entries(w).every(([id, v]) => document.getElementById(id)?.value === v), want);
}

// Saves the open form; answers what was sent and what came back.
async function saveForm(page, message) {
  if (message !== null) await page.getByLabel("Message (required)").fill(message);
  return send(page, () => page.getByRole("button", { name: "Save checkpoint" }).click());
}

async function send(page, click) {
  const req = page.waitForRequest((r) => r.url().endsWith("/api/v4/chat/commit") && r.method() === "POST");
  const resp = page.waitForResponse((r) => r.url().endsWith("/api/v4/chat/commit") && r.request().method() === "POST");
  await click();
  const r = await resp;
  return { sent: (await req).postDataJSON(), status: r.status(), body: await r.json() };
}

const liveOf = (items, kind) => items.filter((it) => it.kind === kind && (it.status === "open" || it.status === "done")).map((it) => `${it.id} ${it.text}`);

export async function integrityScenarios({ browser, base, api, expect, shot }) {
  const newPage = async () => {
    const ctx = await browser.newContext({ viewport: { width: 1280, height: 860 } });
    const p = await ctx.newPage();
    p.on("pageerror", (e) => console.log("  page error:", e.message));
    return { ctx, p };
  };
  const items = (id) => api("GET", `/api/v5/checkpoints/${id}/items`);
  const headOf = async (space) => api("GET", `/api/v2/commits/${(await api("GET", `/api/v4/chat/spaces/${space}/head`)).commit_id}`);

  console.log("in-place edits: $12 on main, $14 on main and $10 on a branch merge as one conflict on one item");
  {
    const sp = await api("POST", "/api/v2/repos", { name: "Seat pricing", description: "in-place edits" });
    const mainSe = await api("POST", `/api/v4/chat/spaces/${sp.id}/sessions`, { title: "main", provider: "mock", model: "mock" });
    const mainUrl = `${base}/sessions/${mainSe.id}`;
    const { ctx, p } = await newPage();
    await openForm(p, mainUrl, { "cp-decisions": "" });
    await decisionsOf(p).fill("Pricing is per-seat at $12");
    const first = await saveForm(p, "Pricing at $12");
    expect(first.status === 201 && JSON.stringify(first.body.decisions) === JSON.stringify(["Pricing is per-seat at $12"]), `the form saves the first checkpoint with the $12 decision (${first.status})`);
    await p.getByRole("heading", { name: "Checkpoint saved" }).waitFor();
    const c1 = first.body;
    const [price] = liveOf(await items(c1.id), "decision").map((s) => s.split(" ")[0]);
    const fork = await api("POST", "/api/v5/lineage/sessions/fork", { space_id: sp.id, checkpoint_id: c1.id, branch_name: "discount" });

    await openForm(p, mainUrl, { "cp-decisions": "Pricing is per-seat at $12" });
    await decisionsOf(p).fill("Pricing is per-seat at $14");
    const onMain = await saveForm(p, "Raise to $14");
    const sentPrice = onMain.sent.items.filter((it) => it.kind === "decision");
    expect(
      sentPrice.length === 1 && sentPrice[0].id === price && sentPrice[0].change?.op === "update" && sentPrice[0].text === "Pricing is per-seat at $14" && onMain.sent.base_checkpoint_id === c1.id,
      `main's save sends one decision: an update of ${price} against ${c1.id.slice(0, 8)} (${JSON.stringify(sentPrice)})`,
    );
    expect(onMain.status === 201 && !onMain.body.rebased_from, `main's save lands on its base (${onMain.status})`);
    await p.getByRole("heading", { name: "Checkpoint saved" }).waitFor();

    await openForm(p, `${base}/sessions/${fork.session_id}`, { "cp-decisions": "Pricing is per-seat at $12" });
    await decisionsOf(p).fill("Pricing is per-seat at $10");
    const onBranch = await saveForm(p, "Discount to $10");
    expect(onBranch.status === 201 && onBranch.body.branch_name === "discount", `the branch's save lands on discount (${onBranch.status} ${onBranch.body.branch_name})`);
    await p.getByRole("heading", { name: "Checkpoint saved" }).waitFor();
    const mainLive = liveOf(await items(onMain.body.id), "decision");
    const branchLive = liveOf(await items(onBranch.body.id), "decision");
    expect(
      JSON.stringify(mainLive) === JSON.stringify([`${price} Pricing is per-seat at $14`]) && JSON.stringify(branchLive) === JSON.stringify([`${price} Pricing is per-seat at $10`]),
      `both edits keep the item id ${price}: main ${JSON.stringify(mainLive)}, branch ${JSON.stringify(branchLive)}`,
    );

    await p.goto(`${base}/spaces/${sp.id}/lineage`);
    await p.getByTestId("lineage-checkpoint").nth(2).waitFor();
    // A merge starts from the branch: "Merge discount into main".
    await p.getByRole("link", { name: "Merge discount into main" }).click();
    await p.getByTestId("merge-preview").waitFor();
    const conflicts = await p.getByTestId("merge-conflict").allInnerTexts();
    expect(
      conflicts.length === 1 && conflicts[0].includes(`item ${price}`) && conflicts[0].includes("Pricing is per-seat at $14") && conflicts[0].includes("Pricing is per-seat at $10"),
      `the merge has exactly one conflict, on ${price}, $14 against $10: ${JSON.stringify(conflicts)}`,
    );
    await shot(p, "inplace-merge-one-conflict");
    await p.getByTestId("merge-conflict").first().getByRole("radio", { name: /theirs/ }).check();
    await p.getByRole("button", { name: "Merge", exact: true }).click();
    await p.getByRole("status").filter({ hasText: "Merged as" }).waitFor();
    const head = await headOf(sp.id);
    const headLive = liveOf(await items(head.id), "decision");
    expect(
      head.merge_parent_id && JSON.stringify(head.decisions) === JSON.stringify(["Pricing is per-seat at $10"]) && JSON.stringify(headLive) === JSON.stringify([`${price} Pricing is per-seat at $10`]),
      `after choosing theirs the head (the merge) holds one pricing decision, ${price} at $10: ${JSON.stringify(head.decisions)}`,
    );
    await ctx.close();
  }

  console.log("two tabs save onto the same checkpoint: the second is rebased; the same item edited twice is a conflict the dialog settles");
  {
    const sp = await api("POST", "/api/v2/repos", { name: "Two tabs", description: "saves in turn" });
    const seA = await api("POST", `/api/v4/chat/spaces/${sp.id}/sessions`, { title: "Tab A", provider: "mock", model: "mock" });
    const seB = await api("POST", `/api/v4/chat/spaces/${sp.id}/sessions`, { title: "Tab B", provider: "mock", model: "mock" });
    const c0 = await api("POST", "/api/v4/chat/commit", { repo_id: sp.id, session_id: seA.id, message: "Start", decisions: ["Use Go", "Pricing is per-seat at $12"] });
    const price = (await items(c0.id)).find((it) => it.text === "Pricing is per-seat at $12").id;
    const A = await newPage();
    const B = await newPage();
    const urlA = `${base}/sessions/${seA.id}`,
      urlB = `${base}/sessions/${seB.id}`;
    const opened = { "cp-decisions": "Use Go\nPricing is per-seat at $12", "cp-assumptions": "" };
    await openForm(A.p, urlA, opened);
    await openForm(B.p, urlB, opened);
    await decisionsOf(B.p).fill("Use Go\nPricing is per-seat at $12\nBudget is 40k");
    const b1 = await saveForm(B.p, "Budget");
    expect(b1.status === 201 && !b1.body.rebased_from, `B's save lands on the checkpoint both opened (${b1.status})`);
    await B.p.getByRole("heading", { name: "Checkpoint saved" }).waitFor();
    await A.p.getByLabel("Assumptions (one per line)").fill("Users sign in with SSO");
    const a1 = await saveForm(A.p, "SSO");
    expect(
      a1.status === 201 && a1.body.rebased_from === c0.id && a1.body.parent_commit_id === b1.body.id && a1.sent.base_checkpoint_id === c0.id,
      `A's save, written against ${c0.id.slice(0, 8)}, is rebased onto B's ${b1.body.id.slice(0, 8)} (rebased_from ${a1.body.rebased_from?.slice(0, 8)}, parent ${a1.body.parent_commit_id?.slice(0, 8)})`,
    );
    const notice = A.p.getByTestId("rebased-notice");
    await notice.filter({ hasText: b1.body.commit_hash.slice(0, 7) }).waitFor();
    const noticeText = await notice.innerText();
    expect(noticeText.startsWith(`Saved onto ${b1.body.commit_hash.slice(0, 7)}`) && noticeText.includes(`rebased from ${c0.commit_hash.slice(0, 7)}`), `A is told: "${noticeText}"`);
    await shot(A.p, "inplace-rebased-notice");
    const h1 = await headOf(sp.id);
    expect(
      h1.id === a1.body.id &&
        JSON.stringify(h1.decisions) === JSON.stringify(["Use Go", "Pricing is per-seat at $12", "Budget is 40k"]) &&
        JSON.stringify(h1.assumptions) === JSON.stringify(["Users sign in with SSO"]),
      `the head holds both changes: decisions ${JSON.stringify(h1.decisions)}, assumptions ${JSON.stringify(h1.assumptions)}`,
    );

    // Both open the form on the new head and edit the same item.
    const again = { "cp-decisions": "Use Go\nPricing is per-seat at $12\nBudget is 40k", "cp-assumptions": "Users sign in with SSO" };
    await openForm(A.p, urlA, again);
    await openForm(B.p, urlB, again);
    await decisionsOf(A.p).fill("Use Go\nPricing is per-seat at $14\nBudget is 40k");
    const a2 = await saveForm(A.p, "Price to $14");
    expect(a2.status === 201 && !a2.body.rebased_from, `A's edit of ${price} lands (${a2.status})`);
    await decisionsOf(B.p).fill("Use Go\nPricing is per-seat at $10\nBudget is 40k");
    const b2 = await saveForm(B.p, "Price to $10");
    expect(b2.status === 409 && b2.body.conflicts.length === 1 && b2.body.conflicts[0].key === price, `B's edit of the same item answers 409 on ${price} (${b2.status} ${JSON.stringify(b2.body.conflicts)})`);
    const dialog = B.p.getByTestId("save-conflict");
    await dialog.first().waitFor();
    const shown = await dialog.allInnerTexts();
    expect(
      shown.length === 1 && shown[0].includes(`item ${price}`) && shown[0].includes("Pricing is per-seat at $14") && shown[0].includes("Pricing is per-seat at $10") && shown[0].includes("Pricing is per-seat at $12"),
      `the conflict dialog names ${price} with base $12, ours $14 and theirs $10: ${JSON.stringify(shown)}`,
    );
    await shot(B.p, "inplace-conflict-dialog");
    await dialog.first().getByRole("radio", { name: /^theirs/ }).check();
    const b3 = await send(B.p, () => B.p.getByRole("button", { name: "Save with these choices" }).click());
    expect(
      b3.status === 201 &&
        b3.sent.base_checkpoint_id === b2.sent.base_checkpoint_id &&
        JSON.stringify(b3.sent.resolutions) === JSON.stringify([{ field: "decisions", key: price, choice: "theirs", value: "" }]),
      `the same save is sent again with the resolution (${b3.status}, ${JSON.stringify(b3.sent.resolutions)})`,
    );
    await B.p.getByRole("heading", { name: "Checkpoint saved" }).waitFor();
    const h2 = await headOf(sp.id);
    const h2Live = liveOf(await items(h2.id), "decision");
    expect(
      h2.id === b3.body.id && h2Live.length === 3 && h2Live[1] === `${price} Pricing is per-seat at $10` && h2.decisions.join("|") === "Use Go|Pricing is per-seat at $10|Budget is 40k",
      `the head holds B's choice on ${price}: ${JSON.stringify(h2Live)}`,
    );
    await A.ctx.close();
    await B.ctx.close();
  }

  console.log("blocked_by as one id or a list: one chip per blocker");
  {
    const sp = await api("POST", "/api/v2/repos", { name: "Blockers", description: "blocked_by forms" });
    const se = await api("POST", `/api/v4/chat/spaces/${sp.id}/sessions`, { title: "main", provider: "mock", model: "mock" });
    const cp = await api("POST", "/api/v4/chat/commit", {
      repo_id: sp.id, session_id: se.id, message: "Release",
      tasks: [{ text: "Write the docs", id: "docs" }, { text: "Run the tests", id: "tests" }, { text: "Tag the release", id: "tag", blocked_by: ["docs", "tests"] }, { text: "Announce", id: "announce", blocked_by: "tag" }],
    });
    const { ctx, p } = await newPage();
    await p.goto(`${base}/checkpoints/${cp.id}`);
    await p.getByTestId("verify-badge").waitFor();
    const chips = await p.getByTestId("blockers").evaluateAll((els) => els.map((el) => [...el.querySelectorAll(".badge")].map((b) => b.textContent)));
    expect(JSON.stringify(chips) === JSON.stringify([["docs", "tests"], ["tag"]]), `the checkpoint view shows the blockers as chips: ${JSON.stringify(chips)}`);
    await openForm(p, `${base}/sessions/${se.id}`, { "cp-decisions": "" });
    await p.getByLabel("Task 4 text").waitFor();
    const formChips = await p.getByTestId("blockers").evaluateAll((els) => els.map((el) => [...el.querySelectorAll(".badge")].map((b) => b.textContent)));
    expect(JSON.stringify(formChips) === JSON.stringify([["docs", "tests"], ["tag"]]), `the form shows them the same way: ${JSON.stringify(formChips)}`);
    const saved = await saveForm(p, "Unchanged blockers");
    const sentTasks = saved.sent.tasks.map((t) => [t.id, t.blocked_by ?? null]);
    expect(
      saved.status === 201 && JSON.stringify(sentTasks) === JSON.stringify([["docs", null], ["tests", null], ["tag", ["docs", "tests"]], ["announce", "tag"]]),
      `the form sends each task's blockers back in the form it got them: ${JSON.stringify(sentTasks)}`,
    );
    await ctx.close();
  }

  console.log("hostile texts are shown as text on every page that renders them");
  {
    const img = '<img src=x onerror="window.__pwned=1">';
    const script = "<script>window.__pwned=1</script>";
    const link = "[x](javascript:window.__pwned=1)";
    const ansi = "\u001b[31mred\u001b[0m \u001b]0;title\u0007 bell";
    const long = "W".repeat(4000);
    const sp = await api("POST", "/api/v2/repos", { name: `Hostile ${img}`, description: script });
    const se = await api("POST", `/api/v4/chat/spaces/${sp.id}/sessions`, { title: `Session ${img}`, provider: "mock", model: "mock" });
    const content = (n) => ({
      repo_id: sp.id,
      session_id: se.id,
      message: `${img} ${script} ${n} ${"T".repeat(150)}`,
      summary: `${link} ${script} ${ansi}`,
      objective: `${img} ${link}`,
      decisions: [`Decision ${img} ${n}`, `Decision ${script}`, `Decision ${link}`, `Decision ${ansi}`, `Decision ${long}`],
      assumptions: [`${link} ${n}`],
      tasks: [{ text: `Task ${img} ${n}`, status: "open" }],
      open_questions: [`${script}?`],
      entities: [img],
      artifacts: [{ id: "a1", type: "text", label: img, content: `${script}\n${link}` }],
    });
    const h1 = await api("POST", "/api/v4/chat/commit", content("one"));
    const h2 = await api("POST", "/api/v4/chat/commit", content("two"));
    const fork = await api("POST", "/api/v5/lineage/sessions/fork", { space_id: sp.id, checkpoint_id: h1.id, branch_name: "hostile-branch" });
    const h3 = await api("POST", "/api/v4/chat/commit", { ...content("three"), session_id: fork.session_id });
    const { ctx, p } = await newPage();
    const clean = async (name) => {
      await p.waitForTimeout(300); // an injected image would fail to load and run its handler by now
      const r = await p.evaluate(() => ({
        pwned: typeof window.__pwned,
        imgs: document.querySelectorAll('img[src="x"], [onerror]').length,
        scripts: [...document.scripts].filter((s) => s.textContent.includes("__pwned")).length,
        jsLinks: [...document.querySelectorAll("[href]")].filter((a) => /^\s*javascript:/i.test(a.getAttribute("href"))).length,
        shown: document.body.innerText.includes('onerror="window.__pwned=1"') || document.body.innerText.includes("window.__pwned=1"),
      }));
      expect(
        r.pwned === "undefined" && r.imgs === 0 && r.scripts === 0 && r.jsLinks === 0 && r.shown,
        `${name}: the hostile texts show as text, nothing runs (__pwned ${r.pwned}, injected img ${r.imgs}, script ${r.scripts}, javascript: links ${r.jsLinks}, text shown ${r.shown})`,
      );
    };
    await p.goto(`${base}/checkpoints/${h2.id}`);
    await p.getByTestId("verify-badge").waitFor();
    await clean("checkpoint view");
    await shot(p, "hostile-checkpoint");
    await p.goto(`${base}/sessions/${se.id}`);
    await p.getByRole("button", { name: "History" }).click();
    await p.getByRole("button", { name: `Mount ${h2.commit_hash.slice(0, 7)}` }).waitFor();
    await clean("history panel");
    await p.getByRole("button", { name: "Create checkpoint" }).click();
    await p.waitForFunction(() => (document.getElementById("cp-decisions")?.value ?? "").includes("onerror"));
    await clean("checkpoint form");
    await p.keyboard.press("Escape");
    await p.goto(`${base}/spaces/${sp.id}/compare/${h1.id}...${h2.id}`);
    await p.getByTestId("compare").waitFor();
    await clean("compare");
    await shot(p, "hostile-compare");
    await p.goto(`${base}/spaces/${sp.id}/lineage`);
    await p.getByTestId("lineage-checkpoint").nth(2).waitFor();
    await clean("lineage");
    // A merge starts from the branch: "Merge hostile-branch into main".
    await p.getByRole("link", { name: "Merge hostile-branch into main" }).click();
    await p.getByTestId("merge-preview").waitFor();
    await clean("merge view");
    await shot(p, "hostile-merge");
    await ctx.close();
  }
}
