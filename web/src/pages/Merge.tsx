import { useState } from "react";
import { Link, useParams, useSearchParams } from "react-router-dom";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { api, short, type CheckpointNode, type LineageTree, type MergePreview, type MergeResolution } from "../api";
import { MergeView } from "../components/MergeView";
import { usePageTitle } from "../lib/title";
import { queryKeys } from "../lib/queryKeys";
import { useTree } from "../lib/queries";

/** A branch's head: its newest checkpoint. */
export function branchHead(tree: Pick<LineageTree, "checkpoints">, branch: string): CheckpointNode | null {
  let head: CheckpointNode | null = null;
  for (const c of tree.checkpoints) if (c.branch_name === branch && (!head || c.created_at >= head.created_at)) head = c;
  return head;
}

/**
 * /spaces/:spaceId/merge?source=<branch>&into=<branch> — "merge <branch>
 * into <target>" as a pull request: the direction is in the address, never
 * in the order checkpoints were clicked.
 */
export default function MergePage() {
  const { spaceId = "" } = useParams();
  const [params] = useSearchParams();
  const source = params.get("source") ?? "";
  const into = params.get("into") || "main";
  usePageTitle(`Merge ${source} into ${into}`);
  const qc = useQueryClient();
  const tree = useTree(spaceId);
  const theirs = tree.data ? branchHead(tree.data, source) : null;
  const ours = tree.data ? branchHead(tree.data, into) : null;
  const [override, setOverride] = useState<MergePreview | null>(null);
  const [merged, setMerged] = useState<{ id: string; hash: string } | null>(null);
  const preview = useQuery({
    queryKey: queryKeys.mergePreview(spaceId, theirs?.id, ours?.id),
    queryFn: () => api.mergePreview({ space_id: spaceId, source_checkpoint_id: theirs!.id, target_checkpoint_id: ours!.id, resolutions: [], dry_run: true }),
    enabled: !!theirs && !!ours,
  });
  const target = useQuery({ queryKey: queryKeys.checkpointItems(ours?.id), queryFn: () => api.checkpointItems(ours!.id), enabled: !!ours });
  const shown = override ?? preview.data;

  let problem = "";
  if (!source) problem = "The address names no branch to merge (?source=<branch>).";
  else if (source === into) problem = `A branch cannot be merged into itself (${source}).`;
  else if (tree.data && !theirs) problem = `Branch ${source} has no checkpoint to merge yet.`;
  else if (tree.data && !ours) problem = `Branch ${into} has no checkpoint to merge into.`;

  return (
    <>
      <p className="small">
        <Link to={`/spaces/${spaceId}/lineage`}>← Lineage</Link>
      </p>
      <h1>
        Merge {source || "…"} into {into}
      </h1>
      {theirs && ours && (
        <p className="muted">
          <span className="mono">{short(theirs.commit_hash)}</span> ({source}) → <span className="mono">{short(ours.commit_hash)}</span> ({into}) ·{" "}
          <Link to={`/spaces/${spaceId}/compare/${ours.id}...${theirs.id}`}>Compare the two heads</Link>
        </p>
      )}
      {problem && <p className="error">{problem}</p>}
      {tree.isError && <p className="error">Could not load the lineage: {(tree.error as Error).message}</p>}
      {preview.isError && <p className="error">Could not preview the merge: {(preview.error as Error).message}</p>}
      {!problem && (tree.isLoading || preview.isLoading) && <p className="muted">Loading…</p>}
      {merged && (
        <p role="status">
          Merged as <Link to={`/checkpoints/${merged.id}`}>{short(merged.hash)}</Link> on {into}.
        </p>
      )}
      {!merged && !problem && shown && theirs && ours && (
        <MergeView
          key={`${theirs.id}-${ours.id}`}
          preview={shown}
          ours={target.data}
          sourceLabel={source}
          targetLabel={into}
          onPreview={async (r: MergeResolution[]) => {
            setOverride(await api.mergePreview({ space_id: spaceId, source_checkpoint_id: theirs.id, target_checkpoint_id: ours.id, resolutions: r, dry_run: true }));
          }}
          onMerge={async (r: MergeResolution[]) => {
            const res = await api.merge({ space_id: spaceId, source_checkpoint_id: theirs.id, target_checkpoint_id: ours.id, resolutions: r, dry_run: false });
            setMerged({ id: res.checkpoint.id, hash: res.checkpoint.commit_hash });
            qc.invalidateQueries({ queryKey: queryKeys.tree(spaceId) });
          }}
        />
      )}
    </>
  );
}
