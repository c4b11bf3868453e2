import { usePageTitle } from "../lib/title";
import { useState, type FormEvent } from "react";
import { Link, useNavigate } from "react-router-dom";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { api, relTime, short, type Space } from "../api";
import { Modal } from "../components/Modal";
import { FirstRun } from "../components/FirstRun";
import { queryKeys } from "../lib/queryKeys";
import { useSessions, useSpaces } from "../lib/queries";

export default function Overview() {
  usePageTitle("Overview");
  const nav = useNavigate();
  const qc = useQueryClient();
  const spaces = useSpaces();
  const sessions = useSessions();
  const latest = (sessions.data ?? []).find((s) => s.repo_id);
  const head = useQuery({ queryKey: queryKeys.head(latest?.repo_id), queryFn: () => api.head(latest!.repo_id!), enabled: !!latest?.repo_id });
  const resumeSpace = spaces.data?.find((s) => s.id === latest?.repo_id);
  const [name, setName] = useState("");
  const [description, setDescription] = useState("");
  const [error, setError] = useState("");
  const [deleting, setDeleting] = useState<Space | null>(null);

  const create = useMutation({
    mutationFn: async () => {
      const sp = await api.createSpace(name.trim(), description.trim());
      return api.createSession(sp.id, "First session", "mock", "");
    },
    onSuccess: (se) => {
      qc.invalidateQueries({ queryKey: queryKeys.spaces() });
      qc.invalidateQueries({ queryKey: queryKeys.sessions() });
      nav(`/sessions/${se.id}`);
    },
    onError: (e: Error) => setError(e.message),
  });

  async function open(sp: Space) {
    const h = await api.head(sp.id);
    if (h.latest_session_id) nav(`/sessions/${h.latest_session_id}`);
    else nav(`/sessions/${(await api.createSession(sp.id, "New session", "mock", "")).id}`);
  }

  function submit(e: FormEvent) {
    e.preventDefault();
    if (!name.trim()) {
      setError("Give the space a name.");
      return;
    }
    setError("");
    create.mutate();
  }

  return (
    <>
      <h1>Overview</h1>
      {latest && resumeSpace ? (
        <section className="card" aria-labelledby="resume-title">
          <h2 id="resume-title" style={{ marginTop: 0 }}>
            Resume: {resumeSpace.name}
          </h2>
          <p className="muted small">
            {latest.title || "Untitled"} · {relTime(latest.updated_at)}
            {latest.branch_name !== "main" && <span className="badge">branch {latest.branch_name}</span>}
          </p>
          {head.data?.commit_hash ? (
            <>
              <p>
                <strong>Current objective:</strong> {head.data.objective || "—"}
              </p>
              <p>
                <strong>Last checkpoint</strong> <span className="mono">{short(head.data.commit_hash)}</span>: {head.data.summary || "—"}
              </p>
            </>
          ) : (
            <p className="muted">No checkpoints yet.</p>
          )}
          <Link to={`/sessions/${latest.id}`}>Continue the session</Link>
        </section>
      ) : (
        !spaces.isLoading && (
          <FirstRun />
        )
      )}

      <section aria-labelledby="create-title" className="card">
        <h2 id="create-title" style={{ marginTop: 0 }}>
          Create a space
        </h2>
        <form onSubmit={submit} className="row" style={{ alignItems: "flex-end" }}>
          <div>
            <label htmlFor="space-name">Name</label>
            <input id="space-name" value={name} onChange={(e) => setName(e.target.value)} />
          </div>
          <div style={{ flex: 1 }}>
            <label htmlFor="space-description">Description</label>
            <input id="space-description" value={description} onChange={(e) => setDescription(e.target.value)} style={{ width: "100%" }} />
          </div>
          <button type="submit" className="primary" disabled={create.isPending}>
            Create space
          </button>
        </form>
        {error && (
          <p className="error" role="alert">
            {error}
          </p>
        )}
      </section>

      <section aria-labelledby="spaces-title">
        <h2 id="spaces-title">Recent spaces</h2>
        {spaces.isError && <p className="error">Could not load spaces: {(spaces.error as Error).message}</p>}
        {(spaces.data ?? []).length === 0 && !spaces.isLoading && <p className="muted">No spaces yet.</p>}
        <ul className="plain">
          {(spaces.data ?? []).slice(0, 10).map((sp) => (
            <li key={sp.id} className="card row spread">
              <div>
                <strong>{sp.name}</strong> <span className="muted small">· updated {relTime(sp.updated_at)}</span>
                {sp.description && <div className="muted small">{sp.description}</div>}
              </div>
              <div className="row">
                <button onClick={() => open(sp)}>Open chat</button>
                <Link to={`/spaces/${sp.id}/lineage`}>Lineage</Link>
                <button className="danger" onClick={() => setDeleting(sp)} aria-label={`Delete space ${sp.name}`}>
                  Delete
                </button>
              </div>
            </li>
          ))}
        </ul>
      </section>
      {deleting && (
        <Modal title={`Delete ${deleting.name}?`} onClose={() => setDeleting(null)}>
          <p>This permanently deletes the space, all of its checkpoints, sessions and turns. It cannot be undone.</p>
          <div className="row">
            <button
              className="danger"
              onClick={async () => {
                await api.deleteSpace(deleting.id);
                setDeleting(null);
                qc.invalidateQueries();
              }}
            >
              Delete space
            </button>
            <button onClick={() => setDeleting(null)}>Cancel</button>
          </div>
        </Modal>
      )}
    </>
  );
}
