import { useEffect, useState } from "react";
import ReactMarkdown, { type Components, type Options } from "react-markdown";
import remarkGfm from "remark-gfm";

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
  a: ({ href, children }) => (
    <a href={href} target="_blank" rel="noreferrer noopener">
      {children}
    </a>
  ),
};

export function Markdown({ text }: { text: string }) {
  const body = text.replace(/\r\n/g, "\n").trim();
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
  return (
    <div className="md">
      <ReactMarkdown remarkPlugins={[remarkGfm]} rehypePlugins={wantsCode && plugins ? plugins : []} components={components} skipHtml={false}>
        {body}
      </ReactMarkdown>
    </div>
  );
}
