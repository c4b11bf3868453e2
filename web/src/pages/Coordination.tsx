import { usePageTitle } from "../lib/title";
import { Link, useParams } from "react-router-dom";
import { useQuery } from "@tanstack/react-query";
import { api, relTime } from "../api";
import { Markdown } from "../components/Markdown";
import { useSpaceEvents } from "../events";
import { queryKeys } from "../lib/queryKeys";
import { useSpace } from "../lib/queries";

/** The space's state brief, as agents read it, and its claims. */
export default function Coordination() {
  usePageTitle("Coordination");
  const { spaceId = "" } = useParams();
  const space = useSpace(spaceId);
  const brief = useQuery({ queryKey: queryKeys.stateBrief(spaceId), queryFn: () => api.brief(spaceId) });
  const claims = useQuery({ queryKey: queryKeys.stateClaims(spaceId), queryFn: () => api.claims(spaceId) });
  useSpaceEvents(spaceId);
  return (
    <>
      <h1>Coordination: {space.data?.name ?? "space"}</h1>
      <p className="small">
        <Link to={`/spaces/${spaceId}/lineage`}>Lineage</Link> · <Link to={`/spaces/${spaceId}/proposals`}>Proposals</Link> · <Link to={`/spaces/${spaceId}/remotes`}>Remotes</Link>
      </p>
      <div className="grid2">
        <section aria-labelledby="brief-title" className="card">
          <h2 id="brief-title" style={{ marginTop: 0 }}>
            State brief
          </h2>
          {brief.isError && <p className="error">{(brief.error as Error).message}</p>}
          {brief.data && <Markdown text={brief.data} />}
        </section>
        <section aria-labelledby="claims-title">
          <h2 id="claims-title">Claims</h2>
          {claims.isError && <p className="error">{(claims.error as Error).message}</p>}
          {claims.data?.length === 0 && <p className="muted">No one has claimed work in this space.</p>}
          <ul className="plain" data-testid="claims">
            {(claims.data ?? []).map((c) => (
              <li key={c.id} className="card">
                <div className="row spread">
                  <strong>{c.agent || "someone"}</strong>
                  <span className={`badge ${c.status === "active" ? "ok" : ""}`}>{c.status}</span>
                </div>
                <div>{c.scope}</div>
                <div className="muted small">
                  {c.intent_type} on {c.branch_name}
                  {c.task_id && ` · task ${c.task_id}`} · claimed {relTime(c.claimed_at)} · expires {new Date(c.expires_at).toLocaleString()}
                </div>
              </li>
            ))}
          </ul>
        </section>
      </div>
    </>
  );
}
