// The review side of the workspace in Chromium: compare aligns an edited
// item by id with a word diff, the branch graph draws forks from their fork
// point and keeps its labels readable at 300 checkpoints on 20 branches,
// a merge starts from the branch, and search groups a carried item into one
// result. Each page is checked in both themes at 390, 1024 and 1440 px, with
// axe. Called by run.mjs with its browser, server and helpers.

const SIZES = [390, 1024, 1440];
const THEMES = ["light", "dark"];

// Every piece of text the graph draws, with the size it is drawn at on
// screen: text nodes (HTML and SVG <text>) and generated content
// (::before/::after), each at its font size times the scale its element is
// drawn at — the screen CTM for SVG, the box against the layout size for
// HTML (every transform above it included: the flow's zoom, a minimap's
// viewBox). Text hidden, transparent or outside the graph's box is not drawn.
async function graphTextSizes(page) {
  return page.evaluate(() => {
    const root = document.querySelector(".graph");
    const box = root.getBoundingClientRect();
    const vp = root.querySelector(".react-flow__viewport");
    const zoom = vp ? new DOMMatrix(getComputedStyle(vp).transform).a : 1;
    const scaleOf = (el) => {
      if (el instanceof SVGGraphicsElement) {
        const m = el.getScreenCTM();
        return m ? Math.sqrt(Math.abs(m.a * m.d - m.b * m.c)) : 1;
      }
      let e = el;
      while (e && !(e instanceof HTMLElement && e.offsetWidth > 0)) e = e.parentElement;
      return e ? e.getBoundingClientRect().width / e.offsetWidth : 1;
    };
    const drawn = (el) => el.checkVisibility({ visibilityProperty: true, opacityProperty: true });
    const inBox = (r) => r.width > 0 && r.height > 0 && r.right > box.left && r.left < box.right && r.bottom > box.top && r.top < box.bottom;
    const out = [];
    const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
    for (let n = walker.nextNode(); n; n = walker.nextNode()) {
      if (!n.textContent.trim()) continue;
      const el = n.parentElement;
      if (!drawn(el)) continue;
      const range = document.createRange();
      range.selectNodeContents(n);
      if (!inBox(range.getBoundingClientRect())) continue;
      out.push({ text: n.textContent.trim().slice(0, 30), px: +(parseFloat(getComputedStyle(el).fontSize) * scaleOf(el)).toFixed(2) });
    }
    for (const el of root.querySelectorAll("*")) {
      if (!drawn(el) || !inBox(el.getBoundingClientRect())) continue;
      for (const pseudo of ["::before", "::after"]) {
        const st = getComputedStyle(el, pseudo);
        const content = st.content;
        if (!content || content === "none" || content === "normal" || /^["']\s*["']$/.test(content) || st.display === "none" || st.visibility !== "visible") continue;
        out.push({ text: `${pseudo} ${content.slice(0, 24)}`, px: +(parseFloat(st.fontSize) * scaleOf(el)).toFixed(2) });
      }
    }
    return { zoom, texts: out };
  });
}

// The graph's view has settled on what it was asked to show: node is inside
// the graph's box and the zoom is the same two frames running.
async function settled(page, nodeSelector) {
  await page.waitForFunction(
    (sel) =>
      new Promise((resolve) => {
        const zoomNow = () => new DOMMatrix(getComputedStyle(document.querySelector(".react-flow__viewport")).transform).a;
        const z = zoomNow();
        requestAnimationFrame(() =>
          requestAnimationFrame(() => {
            const g = document.querySelector(".graph").getBoundingClientRect();
            const n = document.querySelector(sel)?.getBoundingClientRect();
            resolve(!!n && zoomNow() === z && n.left >= g.left - 1 && n.right <= g.right + 1 && n.top >= g.top - 1 && n.bottom <= g.bottom + 1);
          }),
        );
      }),
    nodeSelector,
  );
}

// The 300-checkpoint graph alone (SMRITI_E2E_ONLY=graph).
export async function graphScenarios({ browser, base, api, expect, shot, axe }) {
  const open = async (width, theme) => {
    const ctx = await browser.newContext({ viewport: { width, height: 900 }, colorScheme: theme });
    const p = await ctx.newPage();
    p.on("pageerror", (e) => console.log("  page error:", e.message));
    return { ctx, p };
  };
  await bigGraph({ api, base, open, expect, shot, axe });
}

export async function reviewScenarios({ browser, base, api, expect, shot, axe }) {
  const open = async (width, theme) => {
    const ctx = await browser.newContext({ viewport: { width, height: 900 }, colorScheme: theme });
    const p = await ctx.newPage();
    p.on("pageerror", (e) => console.log("  page error:", e.message));
    return { ctx, p };
  };
  const commit = (space, session, message, fields) => api("POST", "/api/v4/chat/commit", { repo_id: space, session_id: session, message, ...fields });
  const itemsOf = (id) => api("GET", `/api/v5/checkpoints/${id}/items`);

  console.log("review: a priced plan on main, a discount branch that edits the price, main raises it");
  const sp = await api("POST", "/api/v2/repos", { name: "Review pricing", description: "compare, merge, search" });
  const mainSe = await api("POST", `/api/v4/chat/spaces/${sp.id}/sessions`, { title: "main", provider: "mock", model: "mock" });
  await api("POST", "/api/v4/chat/send", { session_id: mainSe.id, message: "Should seat pricing stay monthly?", provider: "mock", model: "mock", use_mock: true });
  const goal = "Price the team plan";
  const c1 = await commit(sp.id, mainSe.id, "Pricing", { objective: goal, decisions: ["Pricing is per-seat at $12 a month"], open_questions: ["Annual discount?"], entities: ["Stripe"] });
  const price = (await itemsOf(c1.id)).find((it) => it.kind === "decision").id;
  const fork = await api("POST", "/api/v5/lineage/sessions/fork", { space_id: sp.id, checkpoint_id: c1.id, branch_name: "discount" });
  const forkSe = fork.session?.id ?? fork.session_id ?? fork.id;
  const b1 = await commit(sp.id, forkSe, "Discount", {
    objective: goal,
    decisions: ["Pricing is per-seat at $10 a month"],
    open_questions: ["Annual discount?"],
    entities: ["Stripe", "Paddle"],
    items: [{ id: price, kind: "decision", text: "Pricing is per-seat at $10 a month" }],
  });
  const c2 = await commit(sp.id, mainSe.id, "Raise", {
    objective: goal,
    decisions: ["Pricing is per-seat at $14 a month"],
    open_questions: ["Annual discount?"],
    entities: ["Stripe"],
    items: [{ id: price, kind: "decision", text: "Pricing is per-seat at $14 a month" }],
  });
  expect((await itemsOf(b1.id)).some((it) => it.id === price && it.text.includes("$10")), `the branch's edit keeps the item id ${price}`);

  console.log("review: compare aligns the edited price by id with a word diff, in both layouts, themes and widths");
  for (const theme of THEMES)
    for (const width of SIZES) {
      const { ctx, p } = await open(width, theme);
      await p.goto(`${base}/spaces/${sp.id}/compare/${c1.id}...${b1.id}`);
      const decisions = p.getByTestId("field-decisions");
      await decisions.waitFor();
      const row = decisions.locator(`[data-key="${price}"]`);
      expect((await row.count()) === 2 && (await row.first().getAttribute("data-op")) === "edit", `${theme} ${width}px: the price is one edit of item ${price} (a − and a + line)`);
      const dels = await decisions.locator("del").allInnerTexts();
      const inss = await decisions.locator("ins").allInnerTexts();
      expect(dels.map((s) => s.trim()).join("|") === "$12" && inss.map((s) => s.trim()).join("|") === "$10", `${theme} ${width}px: only "$12" → "$10" is marked (${dels} → ${inss})`);
      const objective = p.getByTestId("field-objective");
      expect((await objective.locator(".diff-line").count()) === 1 && (await objective.locator(".diff-line.same").count()) === 1, `${theme} ${width}px: the unchanged objective shows no − or +`);
      expect((await p.getByTestId("field-entities").getByTestId("field-counts").innerText()) === "+1 · 1 same", `${theme} ${width}px: entities are compared and counted`);
      const summary = await p.getByTestId("compare-summary").innerText();
      expect(summary === `2 item(s) differ · common ancestor: ${c1.commit_hash.slice(0, 7)}`, `${theme} ${width}px: the ancestor is named by its hash ("${summary}")`);
      await p.getByRole("tab", { name: "Side by side" }).click();
      const split = p.getByTestId("split-row").and(p.locator(`[data-key="${price}"]`));
      const cells = await split.getByRole("cell").allInnerTexts();
      expect(cells.length === 2 && cells[0].includes("$12") && cells[1].includes("$10"), `${theme} ${width}px: side by side, A's and B's price share one row`);
      if (width !== 1024) await shot(p, `review-compare-${theme}-${width}`);
      await axe(p, `compare (${theme}, ${width} px)`);
      await ctx.close();
    }

  for (const [theme, width] of [["dark", 390], ["light", 1024]]) {
    const { ctx, p } = await open(width, theme);
    await p.goto(`${base}/spaces/${sp.id}/merge?source=discount&into=main`);
    await p.getByRole("heading", { name: "Merge discount into main" }).waitFor();
    await p.getByTestId("merge-preview").waitFor();
    expect((await p.getByTestId("merge-conflict").count()) === 1, `${theme} ${width}px: the merge page shows the price conflict`);
    await axe(p, `merge (${theme}, ${width} px)`);
    await ctx.close();
  }

  console.log("review: the fork edge leaves the fork point itself");
  {
    const { ctx, p } = await open(1440, "light");
    await p.goto(`${base}/spaces/${sp.id}/lineage`);
    const edge = p.locator(`.react-flow__edge[data-id="p-${b1.id}"] path.react-flow__edge-path`).first();
    await edge.waitFor({ state: "attached" });
    const geo = await p.evaluate(({ fork, edgeId }) => {
      const node = document.querySelector(`.react-flow__node[data-id="${fork}"]`);
      const m = new DOMMatrix(getComputedStyle(node).transform);
      const d = document.querySelector(`.react-flow__edge[data-id="${edgeId}"] path.react-flow__edge-path`).getAttribute("d");
      const [x, y] = d.match(/-?[\d.]+/g).slice(0, 2).map(Number);
      return { start: [x, y], bottom: [m.e + node.offsetWidth / 2, m.f + node.offsetHeight] };
    }, { fork: c1.id, edgeId: `p-${b1.id}` });
    expect(Math.abs(geo.start[0] - geo.bottom[0]) <= 4 && Math.abs(geo.start[1] - geo.bottom[1]) <= 4, `the fork edge starts at the bottom of the fork point (${geo.start} vs ${geo.bottom})`);

    console.log("review: merge starts from the branch head's menu and reads as a pull request");
    await p.locator(`.react-flow__node[data-id="${b1.id}"]`).click({ button: "right" });
    const menu = p.getByRole("menu", { name: "Branch discount" });
    await menu.waitFor();
    expect((await menu.getByRole("menuitem").allInnerTexts()).join("|") === "Compare with main|Merge into main|Close", "the branch head's menu offers compare, merge and close");
    await p.keyboard.press("Escape");
    await menu.waitFor({ state: "detached" });
    // The same menu from the keyboard-reachable button on the head.
    await p.getByRole("button", { name: "Menu of branch discount" }).click();
    await p.getByRole("menuitem", { name: "Compare with main" }).click();
    await p.waitForURL(new RegExp(`/compare/${c2.id}\\.\\.\\.${b1.id}$`));
    await p.getByTestId("field-decisions").waitFor();
    expect(true, "the head menu's Compare with main opens main's head against the branch's");
    await p.goBack();
    await p.locator(`.react-flow__node[data-id="${b1.id}"]`).waitFor();
    await p.locator(`.react-flow__node[data-id="${b1.id}"]`).click({ button: "right" });
    await p.getByRole("menuitem", { name: "Merge into main" }).click();
    await p.waitForURL(/\/merge\?source=discount&into=main$/);
    await p.getByRole("heading", { name: "Merge discount into main" }).waitFor();
    const conflict = p.getByTestId("merge-conflict");
    await conflict.waitFor();
    expect((await conflict.innerText()).includes(`item ${price}`), "the price conflict is named by its item id");
    expect((await conflict.locator("ins").allInnerTexts()).map((s) => s.trim()).join("|") === "$14|$10", "ours and theirs mark their changed words against base");
    const changes = p.getByTestId("merge-changes");
    expect((await changes.locator('[data-op="add"]').allInnerTexts()).some((t) => t.includes("Paddle")), "what changes in main lists the branch's new entity");
    const preview = p.getByTestId("merge-preview");
    for (const [field, text] of [["decisions", "$14"], ["open_questions", "Annual discount?"], ["entities", "Paddle"]])
      expect((await preview.getByTestId(`merged-${field}`).innerText()).includes(text), `the merged preview shows ${field}`);
    await shot(p, "review-merge");
    await axe(p, "merge (light, 1440 px)");
    await conflict.getByRole("radio").nth(1).check();
    await p.getByRole("button", { name: "Merge", exact: true }).click();
    await p.getByRole("status").filter({ hasText: "Merged as" }).waitFor();
    const head = await api("GET", `/api/v2/commits/${(await api("GET", `/api/v4/chat/spaces/${sp.id}/head`)).commit_id}`);
    expect(head.merge_parent_id === b1.id && head.parent_commit_id === c2.id && head.decisions.join("|") === "Pricing is per-seat at $10 a month", "the merge lands on main with theirs ($10), both parents recorded");
    await ctx.close();
  }
  console.log("review: search groups the carried question into one result and opens a turn at its message");
  for (const [theme, width] of [["light", 1440], ["dark", 390], ["dark", 1024]]) {
    const { ctx, p } = await open(width, theme);
    await p.goto(`${base}/search?q=${encodeURIComponent("annual discount")}`);
    const items = p.getByRole("region", { name: /^Items \(/ });
    await items.waitFor();
    const found = items.getByTestId("search-item");
    expect((await found.count()) === 1, `${theme} ${width}px: "Annual discount?" is one result`);
    const where = await found.getByRole("list").getByRole("link").count();
    expect(where === 4, `${theme} ${width}px: it lists the 4 checkpoints it lives in (${where})`);
    await p.goto(`${base}/search?q=${encodeURIComponent("seat pricing monthly")}&kind=turn`);
    const turnLinks = p.getByRole("region", { name: /^Turns/ }).getByRole("link");
    await turnLinks.first().waitFor();
    const hrefs = await turnLinks.evaluateAll((as) => as.map((a) => a.getAttribute("href")));
    expect(hrefs.includes(`/sessions/${mainSe.id}?turn=0`), `${theme} ${width}px: a turn hit opens its thread at the message (${hrefs.join(", ")})`);
    await axe(p, `search (${theme}, ${width} px)`);
    await ctx.close();
  }

  await bigGraph({ api, base, open, expect, shot, axe });
}

// 300 checkpoints on 20 branches: the graph opens on HEAD with readable
// text, and after Fit every label still measures at least 11 px.
async function bigGraph({ api, base, open, expect, shot, axe }) {
  console.log("review: a 300-checkpoint, 20-branch graph keeps its labels ≥ 11 px");
  const sp = await api("POST", "/api/v2/repos", { name: "Review graph", description: "300 checkpoints" });
  const se = await api("POST", `/api/v4/chat/spaces/${sp.id}/sessions`, { title: "main", provider: "mock", model: "mock" });
  // Shaped as run.mjs's graph: 15 checkpoints on main, 19 branches of 15 forked along it.
  const mains = [];
  for (let i = 1; i <= 15; i++) mains.push(await api("POST", "/api/v4/chat/commit", { repo_id: sp.id, session_id: se.id, message: `main step ${i}`, decisions: [`Decision ${i}`] }));
  for (let b = 1; b < 20; b++) {
    const f = await api("POST", "/api/v5/lineage/sessions/fork", { space_id: sp.id, checkpoint_id: mains[(b * 7) % 15].id, branch_name: `topic-${String(b).padStart(2, "0")}` });
    for (let i = 1; i <= 15; i++) await api("POST", "/api/v4/chat/commit", { repo_id: sp.id, session_id: f.session_id, message: `topic-${b} step ${i}`, decisions: [`Topic ${b} decision ${i}`] });
  }
  const tree = await api("GET", `/api/v5/lineage/spaces/${sp.id}`);
  const names = new Set(tree.checkpoints.map((c) => c.branch_name));
  expect(tree.checkpoints.length === 300 && names.size === 20, `the space holds 300 checkpoints on 20 branches (${tree.checkpoints.length}, ${names.size})`);
  const headId = (await api("GET", `/api/v4/chat/spaces/${sp.id}/head`)).commit_id;
  for (const [theme, width] of [["light", 1440], ["dark", 1024], ["dark", 390]]) {
    const { ctx, p } = await open(width, theme);
    await p.goto(`${base}/spaces/${sp.id}/lineage`);
    const headNode = p.locator(`.react-flow__node[data-id="${headId}"]`);
    await headNode.waitFor();
    await settled(p, `.react-flow__node[data-id="${headId}"]`);
    expect(true, `${theme} ${width}px: the graph opens with HEAD in view`);
    const opened = await graphTextSizes(p);
    const small = opened.texts.filter((t) => t.px < 11);
    expect(opened.texts.length > 0 && small.length === 0, `${theme} ${width}px: on open, ${opened.texts.length} labels at zoom ${opened.zoom.toFixed(2)}, none under 11 px${small.length ? " — " + JSON.stringify(small.slice(0, 3)) : ""}`);
    if (width === 1440) {
      // The run.mjs graph checks click the last node drawn and open a collapsed run: both stay reachable.
      await p.locator(".react-flow__node-cp").last().click();
      await p.getByText(/^Selected: /).waitFor();
      await p.getByRole("button", { name: "+13 checkpoints on topic-19, collapsed: show them" }).click();
      await p.locator(".react-flow__node-cp").filter({ hasText: /topic-19 step 2$/ }).waitFor();
      expect(true, "a node and a collapsed run of the fitted graph can be clicked");
    }
    await p.locator(".react-flow__controls-fitview").click();
    // Fitted: zoomed out, so the graph switches to its level of detail.
    await p.locator(".graph .react-flow.far").waitFor();
    await p.getByTestId("graph-overlay").locator(".graph-label").first().waitFor();
    const fitted = await graphTextSizes(p);
    const tiny = fitted.texts.filter((t) => t.px < 11);
    expect(fitted.zoom < 0.5 && fitted.texts.length >= 3 && tiny.length === 0, `${theme} ${width}px: after Fit (zoom ${fitted.zoom.toFixed(3)}), ${fitted.texts.length} labels, the smallest ${Math.min(...fitted.texts.map((t) => t.px))} px ≥ 11 px${tiny.length ? " — " + JSON.stringify(tiny.slice(0, 3)) : ""}`);
    const nodeText = await p.locator(".react-flow__node-cp").evaluateAll((ns) => ns.filter((n) => n.checkVisibility({ visibilityProperty: true }) && [...n.querySelectorAll(".h, .m")].some((t) => t.checkVisibility({ visibilityProperty: true }))).length);
    expect(nodeText === 0, `${theme} ${width}px: after Fit no checkpoint's hash or message is drawn (${nodeText} drawn)`);
    const lanes = await p.getByTestId("graph-overlay").locator(".graph-label").allInnerTexts();
    expect(lanes.includes("main") && lanes.includes("HEAD · main"), `${theme} ${width}px: zoomed out, the lanes and HEAD are labelled in screen space (${lanes.length} labels)`);
    // What a screen reader reads of the graph: the lanes and heads drawn, no node's label.
    const readOut = await p.locator(".graph").ariaSnapshot();
    const nodeLabels = readOut.split("\n").filter((l) => /step \d+|Checkpoint [0-9a-f]{7}|checkpoints on topic/.test(l));
    expect(nodeLabels.length === 0 && readOut.includes("HEAD · main") && readOut.includes("topic-"),
      `${theme} ${width}px: after Fit the graph reads out its lanes and heads and no node label${nodeLabels.length ? " — " + JSON.stringify(nodeLabels.slice(0, 3)) : ""}`);
    await shot(p, `review-graph-fit-${theme}-${width}`);
    await axe(p, `lineage 300 checkpoints (${theme}, ${width} px)`);
    await ctx.close();
  }
}
