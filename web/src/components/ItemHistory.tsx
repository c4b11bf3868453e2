import { useState } from "react";
import { Link } from "react-router-dom";
import { useQuery } from "@tanstack/react-query";
import { ChevronDown, ChevronRight } from "lucide-react";
import { api, relTime, short, type ID, type ItemHistory as History, type ItemView } from "../api";
import { labelOfKind, sourceLabel } from "../lib/diff";

const EVENTS: Record<string, string> = {
  introduced: "introduced",
  changed: "changed",
  resolved: "resolved",
  retracted: "retracted",
  superseded: "superseded",
  superseded_by: "superseded by a newer item",
  carried_into_merge: "carried into a merge",
};

export function HistoryTimeline({ history }: { history: History }) {
  return (
    <ol className="plain" data-testid="item-history" style={{ borderLeft: "2px solid var(--border-strong)", marginLeft: "0.4rem", paddingLeft: "0.8rem" }}>
      {history.history.map((h, i) => (
        <li key={i} style={{ margin: "0.3rem 0" }}>
          <span className={`badge ${h.event === "introduced" ? "ok" : h.event === "retracted" || h.event === "superseded" ? "bad" : "accent"}`}>{EVENTS[h.event] ?? h.event}</span>{" "}
          <Link to={`/checkpoints/${h.checkpoint_id}`} className="mono">
            {short(h.commit_hash)}
          </Link>{" "}
          <span className="badge">{h.branch_name}</span> <span className="muted small">{relTime(h.created_at)}</span>
          <div>{h.text}</div>
          <div className="muted small">
            {sourceLabel({ source: h.source ?? null }) && <>from {sourceLabel({ source: h.source ?? null })} </>}
            {h.source?.session_id && (
              <Link to={`/sessions/${h.source.session_id}`} className="small">
                session
              </Link>
            )}
            {h.by && <> · by {h.by}</>}
            {h.reason && <> · {h.reason}</>}
            {(h.author_agent || h.model) && <> · {[h.author_agent, h.model].filter(Boolean).join(" / ")}</>}
          </div>
        </li>
      ))}
    </ol>
  );
}

function Row({ spaceId, item }: { spaceId: ID; item: ItemView }) {
  const [open, setOpen] = useState(false);
  const h = useQuery({ queryKey: ["item", spaceId, item.id], queryFn: () => api.itemHistory(spaceId, item.id), enabled: open });
  return (
    <li style={{ margin: "0.2rem 0" }}>
      <button type="button" className="ghost" aria-expanded={open} onClick={() => setOpen((o) => !o)} aria-label={`History of ${item.id}: ${item.text}`}>
        {open ? <ChevronDown size={14} aria-hidden /> : <ChevronRight size={14} aria-hidden />}
        <span className="mono small muted">{item.id}</span>
      </button>{" "}
      {item.text} {item.status && item.status !== "open" && <span className="badge">{item.status}</span>}
      {open && (h.data ? <HistoryTimeline history={h.data} /> : h.isError ? <p className="error small">{(h.error as Error).message}</p> : <p className="muted small">Loading…</p>)}
    </li>
  );
}

/** The checkpoint's items with their ids; each opens its history along the lineage. */
export function ItemsWithHistory({ spaceId, items }: { spaceId: ID; items: ItemView[] }) {
  const kinds = [...new Set(items.map((i) => i.kind))];
  return (
    <section aria-labelledby="items-title" data-testid="items">
      <h2 id="items-title">Items and where they came from</h2>
      {kinds.map((k) => (
        <div key={k}>
          <h3>{labelOfKind(k)}</h3>
          <ul className="plain">
            {items
              .filter((i) => i.kind === k)
              .map((i) => (
                <Row key={i.id} spaceId={spaceId} item={i} />
              ))}
          </ul>
        </div>
      ))}
    </section>
  );
}
