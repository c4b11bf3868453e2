import { afterEach, describe, expect, it } from "vitest";
import { cleanup, render } from "@testing-library/react";
import { renderToStaticMarkup } from "react-dom/server";
import renderMarkdown from "react-markdown";
import remarkGfm from "remark-gfm";
import { Markdown, plainParagraphs } from "./Markdown";

afterEach(cleanup);

describe("Markdown", () => {
  it("renders code blocks, lists and emphasis, and never raw HTML", () => {
    const { container } = render(<Markdown text={"## Plan\n- **train** first\n- `cairns`\n\n```sh\nrm -rf /\n```\n<img src=x onerror=alert(1)> <b>bold</b>"} />);
    expect(container.querySelector("h4")?.textContent).toBe("Plan");
    expect([...container.querySelectorAll("li")].map((l) => l.innerHTML)).toEqual(["<strong>train</strong> first", "<code>cairns</code>"]);
    expect(container.querySelector("pre code")?.textContent?.trimEnd()).toBe("rm -rf /");
    expect(container.querySelector("img")).toBeNull();
    expect(container.querySelector("b")).toBeNull();
    expect(container.querySelector("p")?.textContent).toBe("<img src=x onerror=alert(1)> <b>bold</b>");
  });
});

describe("plain text", () => {
  const viaParser = (body: string) => renderToStaticMarkup(<>{renderMarkdown({ children: body, remarkPlugins: [remarkGfm] })}</>);
  const plain = [
    "Question 12",
    "Why does the build fail on Debian?",
    "First paragraph.\n\nSecond one, with a comma; and 3 numbers 4 5.",
    "Two lines\nin one paragraph",
    "Three\n\n\n\nblank lines between",
    "Prices went from $5 to 10% more, said “someone” and 'another'.",
    "Ünïcödé, 日本語のテキスト, émoji-free accents and a well-known term",
    "A path like src/lib/x.ts is fine",
    "3 is a number, 3. at a line start is not",
  ];
  it("renders exactly what the markdown parser renders, without it", () => {
    for (const body of plain) {
      const fast = plainParagraphs(body);
      expect(fast, body).not.toBeNull();
      expect(renderToStaticMarkup(fast!), body).toBe(viaParser(body));
    }
  });
  it("leaves to the parser every text a markdown or GFM construct could start in", () => {
    const notPlain = [
      "**bold**", "_em_", "~~gone~~", "`code`", "# heading", "> quote", "- item", "+ item", "* item", "1. first",
      "2) second", "[link](x)", "![img](x)", "<b>html</b>", "a &amp; b", "see https://example.com", "mail me@example.com",
      "www.example.com", "a | table |", "line  \nbreak", "back\\slash", "    indented code", "\tTab", "Title\n===", "Title\n---",
      "a -- b", "x = y", "a + b", "done!", "ends with a space ", "3. at a line start", "WWW.EXAMPLE.COM", "",
    ];
    for (const body of notPlain) expect(plainParagraphs(body), body).toBeNull();
  });
  it("agrees with the parser on generated texts of every plain character", () => {
    // A fixed sequence (no flaky seeds): letters, digits, punctuation, spaces and line breaks in runs.
    let x = 7;
    const next = () => (x = (x * 1103515245 + 12345) % 2147483648) / 2147483648;
    const alphabet = ["a", "Z", "é", "語", "7", "0", " ", " ", ".", ",", ";", "?", "'", '"', "’", "“", "%", "/", "$", "-", "\n", "\n\n", "word", "1."];
    let checked = 0;
    for (let n = 0; n < 400; n++) {
      let body = "";
      const len = 1 + Math.floor(next() * 30);
      for (let i = 0; i < len; i++) body += alphabet[Math.floor(next() * alphabet.length)];
      body = body.trim();
      const fast = plainParagraphs(body);
      if (!fast) continue;
      checked++;
      expect(renderToStaticMarkup(fast), JSON.stringify(body)).toBe(viaParser(body));
    }
    expect(checked).toBeGreaterThan(50);
  });
});
