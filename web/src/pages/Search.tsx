import { usePageTitle } from "../lib/title";
import { useQuery } from "@tanstack/react-query";
import { Link, useSearchParams } from "react-router-dom";
import { api, SEARCH_KINDS, short, type SearchGroup, type SearchHit, type SearchKind } from "../api";
import Snippet from "../components/Snippet";
import "../components/review.css";
import { queryKeys } from "../lib/queryKeys";

const KIND_LABEL: Record<SearchKind, string> = { checkpoint: "Checkpoints", turn: "Turns", note: "Notes" };
type Section = SearchKind | "item";
const SECTION_LABEL: Record<Section, string> = { item: "Items", ...KIND_LABEL };
const SECTIONS: Section[] = ["item", ...SEARCH_KINDS];

function isKind(v: string | null): v is SearchKind {
  return v !== null && (SEARCH_KINDS as readonly string[]).includes(v);
}

/** Where a hit leads: its checkpoint (checkpoint, note) or its thread at that message (turn). */
export function hitLink(h: SearchHit): string | null {
  if (h.kind === "turn") return h.session_id ? `/sessions/${h.session_id}${h.sequence_number != null ? `?turn=${h.sequence_number}` : ""}` : null;
  return h.checkpoint_id ? `/checkpoints/${h.checkpoint_id}` : null;
}

function hitTitle(h: SearchHit): string {
  if (h.title) return h.title;
  if (h.kind === "turn") return h.sequence_number != null ? `Turn ${h.sequence_number}` : "Turn";
  return h.commit_hash ? short(h.commit_hash) : "Untitled";
}

/** An item found in one or more checkpoints: its text once, then where it lives. */
function ItemResult({ g }: { g: SearchGroup }) {
  const it = g.item!;
  const first = g.checkpoints[0];
  return (
    <li className="search-hit" data-testid="search-item" data-item-id={it.id}>
      <h3>{first ? <Link to={`/checkpoints/${first.checkpoint_id}`}>{it.text}</Link> : it.text}</h3>
      <p className="muted">
        {it.kind.replace("_", " ")} <code>{it.id}</code> · in {g.checkpoints.length} checkpoint{g.checkpoints.length === 1 ? "" : "s"}
      </p>
      {g.hit?.snippet && (
        <p className="snippet">
          <Snippet text={g.hit.snippet} />
        </p>
      )}
      <ul className="search-where" aria-label={`Checkpoints holding ${it.id}`}>
        {g.checkpoints.map((c) => (
          <li key={c.checkpoint_id}>
            <Link to={`/checkpoints/${c.checkpoint_id}`} className="badge" title={c.title}>
              <span className="mono">{short(c.commit_hash)}</span> {c.branch}
            </Link>
          </li>
        ))}
      </ul>
    </li>
  );
}

function Hit({ h }: { h: SearchHit }) {
  const to = hitLink(h);
  const title = hitTitle(h);
  return (
    <li className="search-hit">
      <h3>{to ? <Link to={to}>{title}</Link> : title}</h3>
      <p className="muted">
        {h.kind}
        {h.branch && <> · branch {h.branch}</>}
        {h.commit_hash && (
          <>
            {" "}
            · <code>{short(h.commit_hash)}</code>
          </>
        )}
        {h.kind === "turn" && h.sequence_number != null && <> · turn {h.sequence_number}</>}
      </p>
      {h.snippet && (
        <p className="snippet">
          <Snippet text={h.snippet} />
        </p>
      )}
    </li>
  );
}

export default function Search() {
  usePageTitle("Search");
  const [params, setParams] = useSearchParams();
  const q = (params.get("q") ?? "").trim();
  const rawKind = params.get("kind");
  const kind = isKind(rawKind) ? rawKind : undefined;
  const res = useQuery({
    queryKey: queryKeys.searchGrouped(q, kind ?? ""),
    queryFn: () => api.searchGrouped({ q, kind }),
    enabled: q !== "",
  });

  const setKind = (v: string) => {
    const next = new URLSearchParams(params);
    if (isKind(v)) next.set("kind", v);
    else next.delete("kind");
    setParams(next);
  };

  const results = res.data?.results ?? [];
  const sections = SECTIONS.map((k) => [k, results.filter((g) => g.kind === k)] as const).filter(([, list]) => list.length > 0);

  return (
    <>
      <h1>{q ? `Search results for “${q}”` : "Search"}</h1>
      <div className="row">
        <label htmlFor="search-kind">Kind</label>{" "}
        <select id="search-kind" value={kind ?? ""} onChange={(e) => setKind(e.target.value)}>
          <option value="">All kinds</option>
          {SEARCH_KINDS.map((k) => (
            <option key={k} value={k}>
              {KIND_LABEL[k]}
            </option>
          ))}
        </select>
      </div>
      {q === "" && <p className="muted">Type words in the search box to find checkpoints, turns and notes.</p>}
      {q !== "" && res.isPending && <p role="status">Searching…</p>}
      {res.isError && (
        <p className="error" role="alert">
          Search failed: {(res.error as Error).message}
        </p>
      )}
      {res.isSuccess && results.length === 0 && <p role="status">No results for “{q}”.</p>}
      {sections.map(([k, list]) => (
        <section key={k} aria-labelledby={`search-group-${k}`}>
          <h2 id={`search-group-${k}`}>
            {SECTION_LABEL[k]} ({list.length})
          </h2>
          <ul className="search-results">
            {list.map((g) => (g.kind === "item" ? <ItemResult key={`i-${g.item?.id}-${g.hit?.space_id}`} g={g} /> : g.hit && <Hit key={`${g.kind}-${g.hit.id}`} h={g.hit} />))}
          </ul>
        </section>
      ))}
    </>
  );
}
