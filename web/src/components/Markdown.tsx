import { createElement, Fragment, memo, useEffect, useState, type ReactElement, type ReactNode } from "react";
import renderMarkdown, { type Components, type Options } from "react-markdown";
import remarkGfm from "remark-gfm";
import { CodeBlock } from "./CodeBlock";

// Messages and checkpoint text are markdown (GitHub flavour). Raw HTML in
// the text is shown as text, never interpreted: react-markdown drops HTML
// nodes unless rehype-raw is added, and it is not. Headings are shifted
// down two levels so a reply never outranks the page's own headings.
//
// Syntax highlighting is a separate chunk, loaded the first time a message
// with a fenced code block is shown, so the first paint does not pay for it.
type PluggableList = NonNullable<Options["rehypePlugins"]>;

let highlight: PluggableList | null = null;
let loading: Promise<PluggableList> | null = null;
function loadHighlight(): Promise<PluggableList> {
  loading ??= import("rehype-highlight").then((m) => {
    highlight = [[m.default, { detect: false, ignoreMissing: true }]];
    return highlight;
  });
  return loading;
}

const shift = (level: number) => `h${Math.min(level + 2, 6)}` as "h3";
const components: Components = {
  h1: ({ children }) => { const T = shift(1); return <T>{children}</T>; },
  h2: ({ children }) => { const T = shift(2); return <T>{children}</T>; },
  h3: ({ children }) => { const T = shift(3); return <T>{children}</T>; },
  h4: ({ children }) => { const T = shift(4); return <T>{children}</T>; },
  pre: ({ children }) => <CodeBlock>{children}</CodeBlock>,
  a: ({ href, children }) => (
    <a href={href} target="_blank" rel="noreferrer noopener">
      {children}
    </a>
  ),
};

// Parsing is the expensive part (micromark, GFM, highlighting), and a long
// thread mounts the same messages again and again as it scrolls: the
// rendered tree is kept per text, for the plain and the highlighted variant.
const remarkPlugins = [remarkGfm];

// Much of a chat is plain prose (most questions are), which markdown would
// only wrap in paragraphs: such a text skips the parser and renders the
// same paragraphs (Markdown.test.tsx checks the two agree). Plain means
// letters, digits, spaces and sentence punctuation that no markdown or GFM
// construct starts with, and no line that begins a block (a list number,
// an indent) or ends in a hard break.
const PLAIN = /^[\p{L}\p{N}\p{M} .,;?'"’‘“”%/$\n-]*$/u;
const BLOCK_START = /^(?:[ \-]|\d+\.)|[ ]$|www\.|--/imu;

/** The paragraphs of a plain text as markdown renders them, or null for any other text. */
export function plainParagraphs(body: string): ReactElement | null {
  if (body === "" || !PLAIN.test(body) || BLOCK_START.test(body)) return null;
  const out: ReactNode[] = [];
  body.split(/\n{2,}/).forEach((para, i) => {
    if (i > 0) out.push("\n");
    out.push(createElement("p", null, para));
  });
  return createElement(Fragment, null, ...out);
}
const noPlugins: PluggableList = [];
const rendered = new Map<string, ReactElement>();
const CACHE = 400;
function render(body: string, plugins: PluggableList | null): ReactElement {
  const key = (plugins ? "h\u0000" : "p\u0000") + body;
  let el = rendered.get(key);
  if (el) {
    // Most recently used last, so the oldest is the one dropped.
    rendered.delete(key);
  } else {
    el = plainParagraphs(body) ?? renderMarkdown({ children: body, remarkPlugins, rehypePlugins: plugins ?? noPlugins, components, skipHtml: false });
    if (rendered.size >= CACHE) rendered.delete(rendered.keys().next().value!);
  }
  rendered.set(key, el);
  return el;
}

const clean = (text: string) => text.replace(/\r\n/g, "\n").trim();

/**
 * Renders texts into the cache while the browser is idle (newest first), so
 * that scrolling a long thread mounts messages without parsing them. Returns
 * a function that stops the work.
 */
export function warmMarkdown(texts: string[]): () => void {
  let stopped = false;
  const idle: (cb: (d: { timeRemaining(): number }) => void) => number =
    typeof requestIdleCallback === "function" ? (cb) => requestIdleCallback(cb, { timeout: 500 }) : (cb) => window.setTimeout(() => cb({ timeRemaining: () => 8 }), 16);
  const cancel = typeof cancelIdleCallback === "function" ? cancelIdleCallback : window.clearTimeout;
  const queue = texts.slice(-CACHE).reverse().map(clean);
  let handle = 0;
  const work = (d: { timeRemaining(): number }) => {
    while (!stopped && queue.length > 0 && d.timeRemaining() > 2) {
      const body = queue[0];
      if (body.includes("```") && !highlight) {
        loadHighlight().then(() => !stopped && (handle = idle(work)));
        return;
      }
      queue.shift();
      const key = (body.includes("```") ? "h\u0000" : "p\u0000") + body;
      if (!rendered.has(key)) render(body, body.includes("```") ? highlight : null);
    }
    if (!stopped && queue.length > 0) handle = idle(work);
  };
  handle = idle(work);
  return () => {
    stopped = true;
    cancel(handle);
  };
}

export const Markdown = memo(function Markdown({ text }: { text: string }) {
  const body = clean(text);
  const wantsCode = body.includes("```");
  const [plugins, setPlugins] = useState<PluggableList | null>(highlight);
  useEffect(() => {
    if (wantsCode && !plugins) {
      let live = true;
      loadHighlight().then((p) => live && setPlugins(p));
      return () => {
        live = false;
      };
    }
  }, [wantsCode, plugins]);
  return <div className="md">{render(body, wantsCode && plugins ? plugins : null)}</div>;
});
