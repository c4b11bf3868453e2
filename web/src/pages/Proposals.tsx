import { useCallback, useState } from "react";
import { Link, useParams, useSearchParams } from "react-router-dom";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { ApiError, relTime, type MergeConflict, type MergeResolution } from "../api";
import { usePageTitle } from "../lib/title";
import { useSpaceEvents } from "../events";
import { ConflictDialog, RebasedNotice, conflictOf } from "../components/ConflictDialog";
import { REVIEW_LISTS, editDropping, proposalsApi, taskText, type Proposal, type ProposalEdit } from "../lib/proposals";
import { queryKeys } from "../lib/queryKeys";
import { useSpace } from "../lib/queries";

/**
 * The space's inbox: drafts saved for later (by agent hooks, the CLI, MCP)
 * waiting for a person. Each is reviewed item by item — untick what should
 * not be saved — then accepted (saved on its base; a head that moved is
 * rebased onto, or the conflicts are shown to settle), edited or rejected.
 */
export default function Proposals() {
  usePageTitle("Proposals");
  const { spaceId = "" } = useParams();
  const qc = useQueryClient();
  const space = useSpace(spaceId);
  const list = useQuery({ queryKey: queryKeys.proposals(spaceId), queryFn: () => proposalsApi.list(spaceId) });
  // A pull's outcome links here with ?proposal=ID: that proposal opens first.
  const [params] = useSearchParams();
  const [selected, setSelected] = useState<string>(params.get("proposal") ?? "");
  const [done, setDone] = useState<{ title: string; checkpoint: string; hash: string; rebasedFrom: string | null; head: string } | null>(null);
  const refresh = useCallback(() => qc.invalidateQueries({ queryKey: queryKeys.proposals(spaceId) }), [qc, spaceId]);
  useSpaceEvents(spaceId, refresh);
  const proposals = list.data ?? [];
  const current = proposals.find((p) => p.id === selected) ?? proposals[0];
  return (
    <>
      <h1>Proposals: {space.data?.name ?? "space"}</h1>
      <p className="small">
        <Link to={`/spaces/${spaceId}/lineage`}>Lineage</Link> · <Link to={`/spaces/${spaceId}/coordination`}>Coordination</Link> · <Link to={`/spaces/${spaceId}/remotes`}>Remotes</Link>
      </p>
      {done && (
        <div className="card" role="status" data-testid="accepted">
          Saved “{done.title}” as checkpoint <Link to={`/checkpoints/${done.checkpoint}`}>{done.hash.slice(0, 7)}</Link>.
          {done.rebasedFrom && <RebasedNotice head={done.head.slice(0, 8)} base={done.rebasedFrom.slice(0, 8)} />}
        </div>
      )}
      {list.isError && <p className="error">{(list.error as Error).message}</p>}
      {list.isSuccess && proposals.length === 0 && <p className="muted">Nothing waits for review in this space.</p>}
      <div className="grid2">
        <section aria-labelledby="inbox-title">
          <h2 id="inbox-title">Waiting for review ({proposals.length})</h2>
          <ul className="plain" data-testid="proposals">
            {proposals.map((p) => (
              <li key={p.id}>
                <button
                  type="button"
                  className="card"
                  style={{ width: "100%", textAlign: "left", borderColor: p.id === current?.id ? "var(--accent)" : undefined }}
                  aria-pressed={p.id === current?.id}
                  onClick={() => setSelected(p.id)}
                >
                  <strong>{p.title}</strong>
                  <br />
                  <span className="small muted">
                    {p.conflicts?.length ? `from a pull, ${p.conflicts.length} item(s) both copies changed,` : `from ${p.source}`} on {p.branch_name} · {relTime(p.created_at)} · <span className="mono">{p.id.slice(0, 8)}</span>
                  </span>
                </button>
              </li>
            ))}
          </ul>
        </section>
        {current && <Review key={current.id + current.updated_at} spaceId={spaceId} proposal={current} onDone={(d) => (setDone(d), refresh())} onChanged={refresh} />}
      </div>
    </>
  );
}

function Review({
  spaceId,
  proposal: p,
  onDone,
  onChanged,
}: {
  spaceId: string;
  proposal: Proposal;
  onDone: (d: { title: string; checkpoint: string; hash: string; rebasedFrom: string | null; head: string }) => void;
  onChanged: () => void;
}) {
  const [title, setTitle] = useState(p.title);
  const [summary, setSummary] = useState(p.summary);
  const [dropped, setDropped] = useState<Set<string>>(new Set());
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState("");
  const [conflicts, setConflicts] = useState<{ list: MergeConflict[]; head: string } | null>(null);
  // Once the edits are saved they are the proposal's; a retried accept
  // does not send them again (the inbox remounts this on the next read).
  const [edited, setEdited] = useState(false);

  const pendingEdit = (): ProposalEdit | null => {
    if (edited) return null;
    const e: ProposalEdit = { ...(editDropping(p, dropped) ?? {}) };
    if (title.trim() !== p.title) e.message = title;
    if (summary !== p.summary) e.summary = summary;
    return Object.keys(e).length ? e : null;
  };
  const run = async (fn: () => Promise<void>) => {
    setBusy(true);
    setError("");
    try {
      await fn();
    } catch (e) {
      const c = e instanceof ApiError ? conflictOf(e) : null;
      if (c) setConflicts({ list: c.conflicts, head: c.head_checkpoint_id });
      else setError((e as Error).message);
    } finally {
      setBusy(false);
    }
  };
  const saveEdits = async () => {
    const e = pendingEdit();
    if (e) {
      await proposalsApi.edit(spaceId, p.id, e);
      setEdited(true);
    }
  };
  const accept = (resolutions: MergeResolution[] = []) =>
    run(async () => {
      await saveEdits();
      const out = await proposalsApi.accept(spaceId, p.id, resolutions);
      setConflicts(null);
      const cp = out.checkpoint;
      onDone({ title: cp.message, checkpoint: cp.id, hash: cp.commit_hash, rebasedFrom: cp.rebased_from ?? null, head: cp.parent_commit_id ?? "" });
    });
  const toggle = (k: string) =>
    setDropped((d) => {
      const n = new Set(d);
      if (n.has(k)) n.delete(k);
      else n.add(k);
      return n;
    });
  return (
    <section aria-labelledby="review-title" className="card" data-testid="review">
      <h2 id="review-title" style={{ marginTop: 0 }}>
        Review <span className="mono">{p.id.slice(0, 8)}</span>
      </h2>
      <p className="small muted">
        Saved {relTime(p.created_at)} from {p.source}, to go on <strong>{p.branch_name}</strong>
        {p.base_checkpoint_id ? (
          <>
            {" "}
            on top of <Link to={`/checkpoints/${p.base_checkpoint_id}`}>{p.base_checkpoint_id.slice(0, 8)}</Link>
          </>
        ) : null}
        . Untick what should not be saved.
      </p>
      {p.conflicts && p.conflicts.length > 0 && <PullConflicts conflicts={p.conflicts} />}
      <label htmlFor="proposal-title">Title</label>
      <input id="proposal-title" value={title} onChange={(e) => setTitle(e.target.value)} style={{ width: "100%" }} />
      <label htmlFor="proposal-summary">Summary</label>
      <textarea id="proposal-summary" value={summary} rows={3} onChange={(e) => setSummary(e.target.value)} />
      {REVIEW_LISTS.map(({ field, label }) => {
        const items = (p[field] as (string | { text: string })[]).map((it) => (typeof it === "string" ? it : taskText(it)));
        if (items.length === 0) return null;
        return (
          <fieldset key={field} data-testid={`review-${field}`}>
            <legend>{label}</legend>
            {items.map((text, i) => (
              <label key={i} className="row" style={{ fontWeight: "normal", margin: "var(--space-1) 0" }}>
                <input type="checkbox" checked={!dropped.has(`${field}:${i}`)} onChange={() => toggle(`${field}:${i}`)} /> {text}
              </label>
            ))}
          </fieldset>
        );
      })}
      {error && (
        <p className="error" role="alert">
          {error}
        </p>
      )}
      <div className="row">
        <button type="button" className="primary" disabled={busy || !title.trim()} onClick={() => accept()}>
          Accept
        </button>
        <button type="button" disabled={busy || !pendingEdit()} onClick={() => run(async () => (await saveEdits(), onChanged()))}>
          Save edits
        </button>
        <button type="button" disabled={busy} onClick={() => run(async () => (await proposalsApi.reject(spaceId, p.id), onChanged()))}>
          Reject
        </button>
      </div>
      {conflicts && <ConflictDialog conflicts={conflicts.list} headId={conflicts.head} busy={busy} error={error} onResolve={(r) => accept(r)} onCancel={() => setConflicts(null)} />}
    </section>
  );
}

/**
 * A pull's proposal: each item both copies changed, with this copy's
 * version (kept by the pull's merge) and the other copy's (what accepting
 * takes).
 */
function PullConflicts({ conflicts }: { conflicts: MergeConflict[] }) {
  return (
    <section aria-labelledby="pull-conflicts-title" data-testid="pull-conflicts">
      <h3 id="pull-conflicts-title">Changed on both copies ({conflicts.length})</h3>
      <p className="small muted">The pull kept this copy's version of each; accepting takes the other copy's, rejecting keeps this one.</p>
      <ul className="plain">
        {conflicts.map((c) => (
          <li key={`${c.field}:${c.key}`} className="card" data-testid="pull-conflict" data-key={c.key}>
            <div className="small muted">
              {c.field.replace("_", " ")} {c.key && <span className="mono">{c.key}</span>}
              {c.base && <> · was “{c.base}”</>}
            </div>
            <div>
              This copy: <strong>{c.ours || "(removed)"}</strong>
            </div>
            <div>
              Other copy: <strong>{c.theirs || "(removed)"}</strong>
            </div>
          </li>
        ))}
      </ul>
    </section>
  );
}
