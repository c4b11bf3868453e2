import { Link, useParams } from "react-router-dom";
import { useQuery } from "@tanstack/react-query";
import { api } from "../api";
import { CompareView } from "../components/CompareView";
import { usePageTitle } from "../lib/title";
import { queryKeys } from "../lib/queryKeys";

/** /spaces/:spaceId/compare/:a...:b — a shareable compare of two checkpoints. */
export default function ComparePage() {
  const { spaceId = "", range = "" } = useParams();
  const [a, b] = range.split("...");
  const cmp = useQuery({ queryKey: queryKeys.compare(a, b), queryFn: () => api.compare(a, b), enabled: !!a && !!b });
  usePageTitle("Compare");
  return (
    <>
      <p className="small">
        <Link to={`/spaces/${spaceId}/lineage`}>← Lineage</Link>
      </p>
      <h1>Compare checkpoints</h1>
      {(!a || !b) && <p className="error">The address names two checkpoints as A...B.</p>}
      {cmp.isError && <p className="error">Could not compare: {(cmp.error as Error).message}</p>}
      {cmp.data && <CompareView cmp={cmp.data} />}
      {cmp.isLoading && <p className="muted">Loading…</p>}
    </>
  );
}
