import { usePageTitle } from "../lib/title";
import { useQuery } from "@tanstack/react-query";
import { Link, useSearchParams } from "react-router-dom";
import { api, SEARCH_KINDS, short, type SearchHit, type SearchKind } from "../api";
import Snippet from "../components/Snippet";

const KIND_LABEL: Record<SearchKind, string> = { checkpoint: "Checkpoints", turn: "Turns", note: "Notes" };

function isKind(v: string | null): v is SearchKind {
  return v !== null && (SEARCH_KINDS as readonly string[]).includes(v);
}

/** Where a hit leads: its checkpoint (checkpoint, note) or its chat session (turn). */
function hitLink(h: SearchHit): string | null {
  if (h.kind === "turn") return h.session_id ? `/sessions/${h.session_id}` : null;
  return h.checkpoint_id ? `/checkpoints/${h.checkpoint_id}` : null;
}

function hitTitle(h: SearchHit): string {
  if (h.title) return h.title;
  if (h.kind === "turn") return h.sequence_number != null ? `Turn ${h.sequence_number}` : "Turn";
  return h.commit_hash ? short(h.commit_hash) : "Untitled";
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
        {h.commit_hash && <> · <code>{short(h.commit_hash)}</code></>}
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
    queryKey: ["search", q, kind ?? ""],
    queryFn: () => api.search({ q, kind }),
    enabled: q !== "",
  });

  const setKind = (v: string) => {
    const next = new URLSearchParams(params);
    if (isKind(v)) next.set("kind", v);
    else next.delete("kind");
    setParams(next);
  };

  const hits = res.data?.results ?? [];
  const groups = SEARCH_KINDS.map((k) => [k, hits.filter((h) => h.kind === k)] as const).filter(([, list]) => list.length > 0);

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
      {res.isSuccess && hits.length === 0 && <p role="status">No results for “{q}”.</p>}
      {groups.map(([k, list]) => (
        <section key={k} aria-labelledby={`search-group-${k}`}>
          <h2 id={`search-group-${k}`}>
            {KIND_LABEL[k]} ({list.length})
          </h2>
          <ul className="search-results">
            {list.map((h) => (
              <Hit key={`${h.kind}-${h.id}`} h={h} />
            ))}
          </ul>
        </section>
      ))}
    </>
  );
}
