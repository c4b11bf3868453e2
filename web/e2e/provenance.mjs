// An item's provenance link opens its source turn in a long thread: 300
// turns, a decision quoting turn #4; from the checkpoint's item history the
// link opens the thread with turn #4 in the viewport and marked — on a
// fresh load, and after the thread was open at its newest message. Called
// by run.mjs with its browser, server and helpers.

// Where the turn stands against the thread's scroller: its box, the
// scroller's, and whether it is marked as the focus (drawn with an outline).
async function turnInView(page, seq) {
  return page.evaluate((seq) => {
    const art = document.querySelector(`article[data-seq="${seq}"]`);
    const sc = document.querySelector("[data-testid=thread]");
    if (!art || !sc) return null;
    const a = art.getBoundingClientRect();
    const s = sc.getBoundingClientRect();
    const inView = a.top >= s.top - 1 && a.bottom <= s.bottom + 1 && a.top >= 0 && a.bottom <= window.innerHeight;
    return { top: Math.round(a.top), bottom: Math.round(a.bottom), viewTop: Math.round(s.top), viewBottom: Math.round(s.bottom), inView, focus: art.classList.contains("focus") && getComputedStyle(art).outlineStyle !== "none" };
  }, seq);
}

export async function provenanceScenarios({ browser, base, api, expect, shot, axe }) {
  console.log("provenance: a 300-turn thread, a decision quoting turn #4, its link opens the thread at that turn");
  const sp = await api("POST", "/api/v2/repos", { name: "Long thread", description: "300 turns" });
  const se = await api("POST", `/api/v4/chat/spaces/${sp.id}/sessions`, { title: "long", provider: "mock", model: "mock" });
  const quote = "Decision: the nightly export runs at 02:00 UTC";
  for (let i = 0; i < 150; i++) {
    const message = i === 2 ? quote : `Message ${i}: ${"notes on the export job ".repeat(1 + (i % 4))}`;
    await api("POST", "/api/v4/chat/send", { session_id: se.id, message, provider: "mock", model: "mock", use_mock: true });
  }
  const turns = await api("GET", `/api/v4/chat/sessions/${se.id}/turns?after=-1&limit=1000`);
  expect(turns.length === 300 && turns[4].content === quote && turns[4].role === "user", `the thread holds 300 turns, turn #4 the quoted one (${turns.length})`);
  const cp = await api("POST", "/api/v4/chat/commit", {
    repo_id: sp.id, session_id: se.id, message: "Export schedule", decisions: ["The nightly export runs at 02:00 UTC"],
    source_turns: { session_id: se.id, from_seq: 4, to_seq: 4 },
    items: [{ kind: "decision", text: "The nightly export runs at 02:00 UTC", change: { op: "add", source: { session_id: se.id, from_seq: 4, to_seq: 4, quote } } }],
  });
  const [item] = await api("GET", `/api/v5/checkpoints/${cp.id}/items`);
  expect(item.origin?.from_seq === 4 && item.origin?.session_id === se.id, `the decision ${item.id} records turn #4 as its source: ${JSON.stringify(item)}`);

  for (const [theme, width, warm] of [["light", 1280, false], ["dark", 390, false], ["light", 1024, true]]) {
    const ctx = await browser.newContext({ viewport: { width, height: width === 390 ? 844 : 860 }, colorScheme: theme });
    const p = await ctx.newPage();
    p.on("pageerror", (e) => console.log("  page error:", e.message));
    if (warm) {
      // The reader had the thread open (at its newest message) before.
      await p.goto(`${base}/sessions/${se.id}`);
      await p.locator('article[data-seq="299"]').waitFor();
    }
    if (warm) {
      // On to the checkpoint inside the app, so the thread's turns stay in its cache.
      await p.evaluate((to) => {
        history.pushState({}, "", to);
        dispatchEvent(new PopStateEvent("popstate"));
      }, `/checkpoints/${cp.id}`);
    } else await p.goto(`${base}/checkpoints/${cp.id}`);
    await p.getByRole("button", { name: new RegExp(`^History of ${item.id}`) }).click();
    const link = p.getByTestId("item-source").getByRole("link", { name: "open the thread at turn #4" });
    await link.click();
    await p.waitForURL(new RegExp(`/sessions/${se.id}\\?turn=4$`));
    const marked = p.locator('article.focus[data-seq="4"]');
    await marked.waitFor();
    // In view once the thread has settled: the rows above it measured.
    await p.waitForFunction((seq) => {
      const art = document.querySelector(`article.focus[data-seq="${seq}"]`);
      const sc = document.querySelector("[data-testid=thread]");
      if (!art || !sc) return false;
      const a = art.getBoundingClientRect();
      const s = sc.getBoundingClientRect();
      return a.top >= s.top - 1 && a.bottom <= s.bottom + 1;
    }, 4, { timeout: 10000 }).catch(() => {});
    const at = await turnInView(p, 4);
    expect(at && at.inView && at.focus, `${theme} ${width}px${warm ? ", thread opened before" : ""}: turn #4 is marked and in the viewport (turn ${at?.top}–${at?.bottom}, thread ${at?.viewTop}–${at?.viewBottom})`);
    expect((await p.locator('article[data-seq="299"]').count()) === 0 || !(await turnInView(p, 299))?.inView, `${theme} ${width}px: the newest turn is not what is shown`);
    const text = await marked.innerText();
    expect(text.includes(quote), `${theme} ${width}px: the marked turn is the quoted message`);
    if (!warm) await shot(p, `provenance-turn-4-${theme}-${width}`);
    if (width === 1280) await axe(p, "thread at a provenance link");
    await ctx.close();
  }
}
