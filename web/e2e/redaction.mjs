// A secret typed into the chat never becomes state: the message is sent
// through the composer with a fake GitHub token built here at run time (no
// key-like string is written in the repository), and the stored turn holds
// the marker "[redacted: github-pat]" in its place, which the thread says
// beside the message. Called by run.mjs with its browser, server and helpers.
import { randomInt } from "node:crypto";

const ALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

export async function redactionScenarios({ browser, base, api, expect, shot, axe }) {
  console.log("redaction: a GitHub token typed into the chat is stored as a marker, and the message says so");
  const token = "ghp_" + Array.from({ length: 36 }, () => ALNUM[randomInt(ALNUM.length)]).join("");
  const sp = await api("POST", "/api/v2/repos", { name: "Secrets stay out", description: "redaction" });
  const se = await api("POST", `/api/v4/chat/spaces/${sp.id}/sessions`, { title: "deploy", provider: "mock", model: "mock" });
  const ctx = await browser.newContext({ viewport: { width: 1280, height: 860 } });
  const page = await ctx.newPage();
  page.on("pageerror", (e) => console.log("  page error:", e.message));
  await page.goto(`${base}/sessions/${se.id}`);
  const box = page.getByRole("textbox", { name: "Message", exact: true });
  await box.fill(`The deploy uses the token ${token} for the registry.`);
  await box.press("Enter");
  await page.getByTestId("turn-assistant").first().waitFor();
  const turns = await api("GET", `/api/v4/chat/sessions/${se.id}/turns?after=-1&limit=10`);
  const user = turns.find((t) => t.role === "user");
  expect(user.content === "The deploy uses the token [redacted: github-pat] for the registry." && JSON.stringify((user.metadata?.redactions ?? []).map((r) => r.rule)) === JSON.stringify(["github-pat"]) && user.metadata.redactions.every((r) => typeof r.fingerprint === "string" && r.fingerprint !== ""),
    `the stored turn holds the marker, and its metadata names the rule: ${JSON.stringify(user.content)} ${JSON.stringify(user.metadata?.redactions)}`);
  expect(!JSON.stringify(turns).includes(token), "the token is in no stored turn, the reply included");
  const shown = page.locator("[data-seq='0']");
  await shown.filter({ hasText: "[redacted: github-pat]" }).waitFor();
  const badge = page.getByTestId("redaction-badge");
  await badge.waitFor();
  expect((await badge.count()) === 1 && (await badge.innerText()).trim() === "1 secret redacted: github-pat" && (await badge.isVisible()), `the message shows a badge beside it: "${(await badge.innerText()).trim()}"`);
  expect(!(await page.content()).includes(token), "the token is nowhere on the page once the message is stored");
  await shot(page, "redaction-badge");
  await axe(page, "chat with a redacted message");
  await ctx.close();
}
