import { useRef, type ReactNode } from "react";
import { CopyButton } from "./CopyButton";

/** A fenced code block with a button that copies its text (what is shown, without the highlighting markup). */
export function CodeBlock({ children }: { children?: ReactNode }) {
  const pre = useRef<HTMLPreElement>(null);
  return (
    <div className="code-block">
      <CopyButton className="icon-btn code-copy" label="Copy code" text={() => pre.current?.textContent ?? ""} />
      <pre ref={pre}>{children}</pre>
    </div>
  );
}
