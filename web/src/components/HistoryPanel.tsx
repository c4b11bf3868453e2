import { useState } from "react";
import { Link, useNavigate } from "react-router-dom";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { api, ApiError, short, type Checkpoint, type CompareResponse, type DeleteDependents, type ID } from "../api";
import { Modal } from "./Modal";
import { CompareView } from "./CompareView";
import { X } from "lucide-react";
import { useBackCloses } from "../lib/backCloses";
import { queryKeys } from "../lib/queryKeys";

export interface MountedOn {
  id: ID;
  hash: string;
  baseSeq: number;
}

/** A session's reachable checkpoints: mount, fork, delete, compare. */
export function HistoryPanel({
  sessionId,
  spaceId,
  mount,
  onMount,
  onUnmount,
  onClose,
}: {
  sessionId: ID;
  spaceId: ID;
  mount: MountedOn | null;
  onMount: (c: Checkpoint) => void;
  onUnmount: () => void;
  /** Closes the panel (its button, Esc, or the browser's back). */
  onClose?: () => void;
}) {
  const nav = useNavigate();
  const qc = useQueryClient();
  const list = useQuery({ queryKey: queryKeys.reachable(sessionId), queryFn: () => api.reachable(sessionId) });
  const [selected, setSelected] = useState<ID[]>([]);
  const [compare, setCompare] = useState<CompareResponse | null>(null);
  const [forking, setForking] = useState<Checkpoint | null>(null);
  const [branch, setBranch] = useState("");
  const [deleting, setDeleting] = useState<Checkpoint | null>(null);
  const [dependents, setDependents] = useState<DeleteDependents | null>(null);
  const [understood, setUnderstood] = useState(false);
  const [error, setError] = useState("");

  useBackCloses(!!onClose, () => onClose?.());
  const toggle = (id: ID) =>
    setSelected((s) => (s.includes(id) ? s.filter((x) => x !== id) : [...s, id].slice(-2)));

  async function doFork() {
    if (!forking) return;
    setError("");
    try {
      const f = await api.fork(spaceId, forking.id, branch.trim());
      qc.invalidateQueries({ queryKey: queryKeys.sessions() });
      setForking(null);
      nav(`/sessions/${f.session_id}`);
    } catch (e) {
      setError((e as Error).message);
    }
  }

  async function doDelete(cascade: boolean) {
    if (!deleting) return;
    setError("");
    try {
      await api.deleteCheckpoint(deleting.id, cascade);
      if (mount?.id === deleting.id) onUnmount();
      setDeleting(null);
      setDependents(null);
      qc.invalidateQueries();
    } catch (e) {
      if (e instanceof ApiError && e.status === 409 && e.detail && typeof e.detail === "object") {
        setDependents(e.detail as DeleteDependents);
      } else setError((e as Error).message);
    }
  }

  return (
    <aside className="panel" aria-labelledby="history-title">
      <div className="row spread" style={{ flexWrap: "nowrap" }}>
        <h2 id="history-title">Checkpoints this session can reach</h2>
        {onClose && (
          <button type="button" className="icon-btn" aria-label="Close the history panel" onClick={onClose}>
            <X size={18} aria-hidden />
          </button>
        )}
      </div>
      {list.isLoading && <p>Loading…</p>}
      {list.data?.length === 0 && <p className="muted">No checkpoints yet.</p>}
      <ul className="plain">
        {(list.data ?? []).map((c) => (
          <li key={c.id} className="card" data-testid="history-item">
            <div className="row spread">
              <label style={{ margin: 0, fontWeight: 400 }} className="row">
                <input type="checkbox" checked={selected.includes(c.id)} onChange={() => toggle(c.id)} aria-label={`Select ${short(c.commit_hash)} to compare`} />
                <span className="mono">{short(c.commit_hash)}</span>
              </label>
              <span className="badge">{c.branch_name}</span>
            </div>
            <div>{c.message}</div>
            <div className="row small" style={{ marginTop: "0.3rem" }}>
              {mount?.id === c.id ? (
                <button onClick={onUnmount}>Unmount</button>
              ) : (
                <button onClick={() => onMount(c)} aria-label={`Mount ${short(c.commit_hash)}`}>
                  Mount
                </button>
              )}
              <button
                onClick={() => {
                  setForking(c);
                  setBranch("");
                }}
                aria-label={`Fork from ${short(c.commit_hash)}`}
              >
                Fork
              </button>
              <button className="danger" onClick={() => setDeleting(c)} aria-label={`Delete ${short(c.commit_hash)}`}>
                Delete
              </button>
              <Link to={`/checkpoints/${c.id}`}>Details</Link>
            </div>
          </li>
        ))}
      </ul>
      <div className="row">
        <button disabled={selected.length !== 2} onClick={async () => setCompare(await api.compare(selected[0], selected[1]))}>
          Compare selected
        </button>
        {selected.length === 1 && <span className="muted small">Select one more to compare</span>}
        <Link to={`/spaces/${spaceId}/lineage?session=${sessionId}`}>Branch graph</Link>
      </div>
      {compare && (
        <Modal title="Compare checkpoints" onClose={() => setCompare(null)}>
          <CompareView cmp={compare} />
        </Modal>
      )}
      {forking && (
        <Modal title={`Fork from ${short(forking.commit_hash)}`} onClose={() => setForking(null)}>
          <label htmlFor="fork-branch">Branch name (empty for a generated one)</label>
          <input id="fork-branch" value={branch} onChange={(e) => setBranch(e.target.value)} />
          {error && (
            <p className="error" role="alert">
              {error}
            </p>
          )}
          <div className="row" style={{ marginTop: "0.6rem" }}>
            <button className="primary" onClick={doFork}>
              Create branch
            </button>
            <button onClick={() => setForking(null)}>Cancel</button>
          </div>
        </Modal>
      )}
      {deleting && (
        <Modal
          title={`Delete ${short(deleting.commit_hash)}?`}
          onClose={() => {
            setDeleting(null);
            setDependents(null);
          }}
        >
          {!dependents ? (
            <>
              <p>Delete the checkpoint “{deleting.message}”?</p>
              <button className="danger" onClick={() => doDelete(false)}>
                Delete
              </button>
            </>
          ) : (
            <>
              <p>{dependents.message}</p>
              {dependents.dependents.child_commits.length > 0 && (
                <>
                  <h3>Checkpoints built on it</h3>
                  <ul>{dependents.dependents.child_commits.map((d) => <li key={d.id}>{d.label}</li>)}</ul>
                </>
              )}
              {dependents.dependents.forked_sessions.length > 0 && (
                <>
                  <h3>Sessions forked from it</h3>
                  <ul>{dependents.dependents.forked_sessions.map((d) => <li key={d.id}>{d.label}</li>)}</ul>
                </>
              )}
              <label style={{ fontWeight: 400 }} className="row">
                <input type="checkbox" checked={understood} onChange={(e) => setUnderstood(e.target.checked)} />I understand these will be deleted too
              </label>
              <button className="danger" disabled={!understood} onClick={() => doDelete(true)}>
                Delete everything listed
              </button>
            </>
          )}
          {error && (
            <p className="error" role="alert">
              {error}
            </p>
          )}
        </Modal>
      )}
    </aside>
  );
}
