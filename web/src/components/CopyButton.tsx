import { useState } from "react";
import { Check, Copy } from "lucide-react";
import { toast } from "sonner";

/**
 * An icon button that copies text (read when clicked) and shows a tick for
 * a moment; a refused clipboard says so. Out of the tab order: the message
 * or block it sits on is the stop, as in chat apps.
 */
export function CopyButton({ text, label, className = "icon-btn" }: { text: () => string; label: string; className?: string }) {
  const [done, setDone] = useState(false);
  return (
    <button
      type="button"
      className={className}
      aria-label={label}
      tabIndex={-1}
      onClick={async () => {
        try {
          await navigator.clipboard.writeText(text());
          setDone(true);
          setTimeout(() => setDone(false), 1500);
        } catch {
          toast.error("The browser refused access to the clipboard.");
        }
      }}
    >
      {done ? <Check size={14} aria-hidden /> : <Copy size={14} aria-hidden />}
    </button>
  );
}
