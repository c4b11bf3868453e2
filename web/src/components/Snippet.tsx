import { Fragment } from "react";

const OPEN = "<mark>";
const CLOSE = "</mark>";

export interface SnippetPart {
  text: string;
  marked: boolean;
}

/**
 * Splits a search snippet on its highlight markers. Everything outside the
 * markers is plain text, even when it looks like HTML; an unclosed marker
 * highlights to the end.
 */
export function snippetParts(snippet: string): SnippetPart[] {
  const parts: SnippetPart[] = [];
  let rest = snippet;
  while (rest.length > 0) {
    const start = rest.indexOf(OPEN);
    if (start < 0) {
      parts.push({ text: rest, marked: false });
      break;
    }
    if (start > 0) parts.push({ text: rest.slice(0, start), marked: false });
    rest = rest.slice(start + OPEN.length);
    const end = rest.indexOf(CLOSE);
    const inner = end < 0 ? rest : rest.slice(0, end);
    if (inner) parts.push({ text: inner, marked: true });
    rest = end < 0 ? "" : rest.slice(end + CLOSE.length);
  }
  return parts;
}

/** Renders a snippet as text nodes and <mark> elements; never as HTML. */
export default function Snippet({ text }: { text: string }) {
  return (
    <>
      {snippetParts(text).map((p, i) => (p.marked ? <mark key={i}>{p.text}</mark> : <Fragment key={i}>{p.text}</Fragment>))}
    </>
  );
}
