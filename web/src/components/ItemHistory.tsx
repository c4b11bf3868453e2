import { useState } from "react";
import { Link } from "react-router-dom";
import { useQuery } from "@tanstack/react-query";
import { ChevronDown, ChevronRight } from "lucide-react";
import { api, relTime, short, type ID, type ItemHistory as History, type ItemSource, type ItemView } from "../api";
import { labelOfKind } from "../lib/diff";
import { queryKeys } from "../lib/queryKeys";

const EVENTS: Record<string, string> = {
  introduced: "introduced",
  changed: "changed",
  resolved: "resolved",
  retracted: "retracted",
  superseded: "superseded",
  superseded_by: "superseded by a newer item",
  carried_into_merge: "carried into a merge",
};

const SIDES: Record<string, string> = { ours: "ours (the merge target)", theirs: "theirs (the merged branch)", base: "the common base" };

/** The label of an event: a version a merge turned down names that merge. */
export function eventLabel(h: Pick<History["history"][number], "event" | "commit_hash">): string {
  if (h.event === "rejected") return `rejected in merge ${short(h.commit_hash)}`;
  return EVENTS[h.event] ?? h.event;
}

type Src = Partial<ItemSource> | null | undefined;

/**
 * The turns an event came from: its change's source, or for an introduction
 * without one the item's origin.
 */
export function sourceOf(h: History["history"][number]): Src {
  const s = h.change?.source;
  if (s && (s.session_id || s.from_seq != null || s.quote)) return s;
  if (h.event === "introduced" && h.origin && (h.origin.session_id || h.origin.from_seq != null || h.origin.quote)) return h.origin;
  return null;
}

function turnsLabel(s: Src): string {
  if (!s || s.from_seq == null) return "";
  return s.to_seq != null && s.to_seq !== s.from_seq ? `turns #${s.from_seq}–#${s.to_seq}` : `turn #${s.from_seq}`;
}

function Source({ src }: { src: Src }) {
  if (!src) return null;
  const turns = turnsLabel(src);
  return (
    <div className="muted small" data-testid="item-source">
      {src.session_id ? (
        <>
          from session{" "}
          <Link to={`/sessions/${src.session_id}`} className="mono">
            {src.session_id.slice(0, 8)}
          </Link>
          {turns && (
            <>
              , {turns} ·{" "}
              <Link to={`/sessions/${src.session_id}?turn=${src.from_seq}`}>open the thread at turn #{src.from_seq}</Link>
            </>
          )}
        </>
      ) : (
        turns && <>from {turns}</>
      )}
      {src.quote && <blockquote className="quote">{src.quote}</blockquote>}
    </div>
  );
}

export function HistoryTimeline({ history }: { history: History }) {
  return (
    <ol className="plain" data-testid="item-history" style={{ borderLeft: "2px solid var(--border-strong)", marginLeft: "0.4rem", paddingLeft: "0.8rem" }}>
      {history.history.map((h, i) => {
        const ch = h.change;
        const rejected = h.event === "rejected";
        const side = rejected ? ch?.merge?.rejected?.[0]?.side : undefined;
        const model = h.event === "introduced" ? h.origin?.model : null;
        const agent = h.event === "introduced" ? h.origin?.author_agent : null;
        return (
          <li key={i} style={{ margin: "0.3rem 0" }} data-event={h.event}>
            <span className={`badge ${h.event === "introduced" ? "ok" : rejected || h.event === "retracted" || h.event === "superseded" ? "bad" : "accent"}`}>{eventLabel(h)}</span>{" "}
            <Link to={`/checkpoints/${h.checkpoint_id}`} className="mono">
              {short(h.commit_hash)}
            </Link>{" "}
            <span className="badge">{h.branch_name}</span> <span className="muted small">{relTime(h.created_at)}</span>
            <div className={rejected ? "rejected-text" : undefined}>
              {rejected && !h.text ? <em>the removal of the item</em> : h.text}
              {side && <span className="muted small"> — the version of {SIDES[side] ?? side}, turned down</span>}
            </div>
            {!rejected && ch?.before != null && h.event === "changed" && <div className="muted small">was “{ch.before}”</div>}
            {!rejected && ch?.merge && <div className="muted small">{ch.merge.choice === "custom" ? "kept the text written in the merge" : `kept the version of ${SIDES[ch.merge.choice] ?? ch.merge.choice}`}</div>}
            {(ch?.by || ch?.reason || model || agent) && (
              <div className="muted small">
                {[ch?.by && `by ${ch.by}`, ch?.reason, model ? `drafted by ${model}` : agent ? `by ${agent}` : null].filter(Boolean).join(" · ")}
              </div>
            )}
            <Source src={sourceOf(h)} />
          </li>
        );
      })}
    </ol>
  );
}

function Row({ spaceId, item }: { spaceId: ID; item: ItemView }) {
  const [open, setOpen] = useState(false);
  const h = useQuery({ queryKey: queryKeys.item(spaceId, item.id), queryFn: () => api.itemHistory(spaceId, item.id), enabled: open });
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
