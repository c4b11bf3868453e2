import { useRef, useState, type ReactNode } from "react";
import { Check, Copy } from "lucide-react";
import { toast } from "sonner";

/** A fenced code block with a button that copies its text (what is shown, without the highlighting markup). */
export function CodeBlock({ children }: { children?: ReactNode }) {
  const pre = useRef<HTMLPreElement>(null);
  const [done, setDone] = useState(false);
  return (
    <div className="code-block">
      <button
        type="button"
        className="icon-btn code-copy"
        aria-label="Copy code"
        tabIndex={-1}
        onClick={async () => {
          try {
            await navigator.clipboard.writeText(pre.current?.textContent ?? "");
            setDone(true);
            setTimeout(() => setDone(false), 1500);
          } catch {
            toast.error("The browser refused access to the clipboard.");
          }
        }}
      >
        {done ? <Check size={14} aria-hidden /> : <Copy size={14} aria-hidden />}
      </button>
      <pre ref={pre}>{children}</pre>
    </div>
  );
}
