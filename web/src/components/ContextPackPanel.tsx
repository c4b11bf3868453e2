import { useRef, useState } from "react";
import { useQuery } from "@tanstack/react-query";
import { api, PACK_TARGETS, type ID, type PackTarget } from "../api";
import { copyText } from "../lib/clipboard";
import { queryKeys } from "../lib/queryKeys";

const TARGET_LABELS: Record<PackTarget, string> = {
  generic: "Generic (Markdown)",
  claude: "Claude",
  cursor: "Cursor",
  chatgpt: "ChatGPT",
  agents_md: "AGENTS.md",
};

/** A checkpoint rendered as a context pack for another tool, ready to copy. */
export function ContextPackPanel({ checkpointId }: { checkpointId: ID }) {
  const [target, setTarget] = useState<PackTarget>("generic");
  const [announce, setAnnounce] = useState("");
  const field = useRef<HTMLTextAreaElement>(null);
  const pack = useQuery({ queryKey: queryKeys.contextPack(checkpointId, target), queryFn: () => api.contextPack(checkpointId, target) });

  async function copy() {
    if (!pack.data) return;
    setAnnounce("");
    setAnnounce((await copyText(pack.data.content, field.current)) ? "Copied" : "Copy failed: select the text and copy it by hand");
  }

  return (
    <section aria-labelledby="pack-title">
      <h2 id="pack-title">Context pack</h2>
      <div className="row">
        <label htmlFor="pack-target" style={{ margin: 0 }}>
          Target
        </label>
        <select
          id="pack-target"
          value={target}
          onChange={(e) => {
            setTarget(e.target.value as PackTarget);
            setAnnounce("");
          }}
        >
          {PACK_TARGETS.map((t) => (
            <option key={t} value={t}>
              {TARGET_LABELS[t]}
            </option>
          ))}
        </select>
        <button type="button" onClick={copy} disabled={!pack.data}>
          Copy
        </button>
        <span role="status" aria-live="polite" className="muted small" data-testid="pack-status">
          {announce}
        </span>
      </div>
      {pack.isError && <p className="error">Could not export the checkpoint: {(pack.error as Error).message}</p>}
      {pack.data && (
        <>
          <p className="muted small">
            {pack.data.target_tool} · {pack.data.format}
          </p>
          <label htmlFor="pack-content" className="sr-only">
            Context pack content
          </label>
          <textarea id="pack-content" ref={field} readOnly rows={12} value={pack.data.content} className="mono" data-testid="pack-content" />
        </>
      )}
      {pack.isPending && <p className="muted">Rendering…</p>}
    </section>
  );
}
