import { Link, useParams } from "react-router-dom";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { api, notesOf, relTime, short, type Checkpoint, type TaskWire } from "../api";
import { Blockers } from "../components/Blockers";
import { NotesPanel } from "../components/NotesPanel";
import { ContextPackPanel } from "../components/ContextPackPanel";
import { ItemsWithHistory } from "../components/ItemHistory";
import { CheckpointCode } from "../components/CheckpointCode";
import { gitStateOf } from "../lib/gitstate";
import { usePageTitle } from "../lib/title";
import { queryKeys } from "../lib/queryKeys";

function List({ title, items }: { title: string; items: string[] }) {
  if (!items.length) return null;
  return (
    <>
      <h3>{title}</h3>
      <ul>{items.map((x, i) => <li key={i}>{x}</li>)}</ul>
    </>
  );
}

function Task({ t }: { t: TaskWire }) {
  if (typeof t === "string") return <li>{t}</li>;
  const done = t.status === "done";
  return (
    <li>
      <span style={done ? { textDecoration: "line-through" } : undefined}>{t.text}</span> {t.intent_hint && <span className="badge">{t.intent_hint}</span>}{" "}
      {done && <span className="badge ok">done</span>} {t.id && <span className="muted small">id: {t.id}</span>}
      <Blockers value={t.blocked_by} />
    </li>
  );
}

function Delta({ title, before, after }: { title: string; before: string[]; after: string[] }) {
  const added = after.filter((x) => !before.includes(x));
  const removed = before.filter((x) => !after.includes(x));
  if (!added.length && !removed.length) return null;
  return (
    <>
      <h3>{title}</h3>
      <ul className="plain">
        {added.map((x) => (
          <li key={`+${x}`}>
            <span className="badge ok" aria-label="added">
              +
            </span>{" "}
            {x}
          </li>
        ))}
        {removed.map((x) => (
          <li key={`-${x}`}>
            <span className="badge bad" aria-label="removed">
              −
            </span>{" "}
            {x}
          </li>
        ))}
      </ul>
    </>
  );
}

export default function CheckpointDetail() {
  const { id = "" } = useParams();
  const cp = useQuery({ queryKey: queryKeys.checkpoint(id), queryFn: () => api.checkpoint(id) });
  const parentId = cp.data?.parent_commit_id;
  const parent = useQuery({ queryKey: queryKeys.checkpoint(parentId), queryFn: () => api.checkpoint(parentId!), enabled: !!parentId });
  const verify = useQuery({ queryKey: queryKeys.verify(id), queryFn: () => api.verify(id) });
  // Items with ids come from servers with the state model (v5); older ones send none and the section is not shown.
  const withItems = useQuery({ queryKey: queryKeys.checkpointItems(id), queryFn: () => api.checkpointItems(id), enabled: !!cp.data, retry: false });
  usePageTitle(cp.data ? `${short(cp.data.commit_hash)} ${cp.data.message}` : "Checkpoint");
  const qc = useQueryClient();

  // The note the server returns is shown at once; the refetch brings the
  // checkpoint's stored list (metadata.notes) back as the source of truth.
  async function addNote(text: string, kind: string) {
    const n = await api.addNote(id, text, kind);
    qc.setQueryData<Checkpoint>(queryKeys.checkpoint(id), (old) =>
      old ? { ...old, metadata: { ...old.metadata, notes: [...notesOf(old), n] } } : old,
    );
    void qc.invalidateQueries({ queryKey: queryKeys.checkpoint(id) });
  }

  if (cp.isError) return <p className="error">Could not load the checkpoint: {(cp.error as Error).message}</p>;
  const c = cp.data;
  if (!c) return <p>Loading…</p>;
  const tasks = (ts: TaskWire[]) => ts.map((t) => (typeof t === "string" ? t : t.text));
  const git = gitStateOf(c.metadata);
  return (
    <>
      <div className="row spread">
        <h1 style={{ marginBottom: 0 }}>{c.message}</h1>
        {verify.data ? (
          <span className={`badge ${verify.data.ok ? "ok" : "bad"}`} data-testid="verify-badge" title={`${verify.data.checked} checkpoints rechecked to the root`}>
            {verify.data.ok ? `verified ✓ (${verify.data.checked} in chain)` : `hash chain broken at ${verify.data.first_mismatch?.slice(0, 8)}`}
          </span>
        ) : (
          <span className="badge">verifying…</span>
        )}
      </div>
      <p className="muted small">
        <span className="mono">{c.commit_hash}</span> · <span className="badge">{c.branch_name}</span> · {c.author_agent ?? c.author_type} · {relTime(c.created_at)} ·{" "}
        <Link to={`/spaces/${c.repo_id}/lineage`}>lineage</Link>
        {parentId && (
          <>
            {" "}
            · parent <Link to={`/checkpoints/${parentId}`}>{short(parent.data?.commit_hash) || parentId.slice(0, 8)}</Link>
          </>
        )}
        {c.merge_parent_id && (
          <>
            {" "}
            · merged from <Link to={`/checkpoints/${c.merge_parent_id}`}>{c.merge_parent_id.slice(0, 8)}</Link>
          </>
        )}
      </p>
      {git && <CheckpointCode git={git} />}
      <div className="grid2">
        <section aria-labelledby="state-title">
          <h2 id="state-title">State</h2>
          {c.objective && (
            <p>
              <strong>Objective:</strong> {c.objective}
            </p>
          )}
          {c.summary && (
            <p>
              <strong>Summary:</strong> {c.summary}
            </p>
          )}
          <List title="Decisions" items={c.decisions} />
          <List title="Assumptions" items={c.assumptions} />
          {c.tasks.length > 0 && (
            <>
              <h3>Tasks</h3>
              <ul>{c.tasks.map((t, i) => <Task key={i} t={t} />)}</ul>
            </>
          )}
          <List title="Open questions" items={c.open_questions} />
          <List title="Entities" items={c.entities} />
          {c.artifacts.length > 0 && (
            <>
              <h3>Artifacts</h3>
              {c.artifacts.map((a) => (
                <details key={a.id}>
                  <summary>{a.label || a.id}</summary>
                  <pre style={{ whiteSpace: "pre-wrap" }}>{a.content}</pre>
                </details>
              ))}
            </>
          )}
        </section>
        <section aria-labelledby="delta-title">
          <h2 id="delta-title">What changed since the parent</h2>
          {!parentId && <p className="muted">This is a root checkpoint.</p>}
          {parent.data && (
            <>
              {parent.data.objective !== c.objective && (
                <p>
                  <strong>Objective</strong> was “{parent.data.objective || "—"}”, now “{c.objective || "—"}”.
                </p>
              )}
              {parent.data.summary !== c.summary && <p>The summary changed.</p>}
              <Delta title="Decisions" before={parent.data.decisions} after={c.decisions} />
              <Delta title="Tasks" before={tasks(parent.data.tasks)} after={tasks(c.tasks)} />
              <Delta title="Open questions" before={parent.data.open_questions} after={c.open_questions} />
            </>
          )}
          <NotesPanel notes={notesOf(c)} onAdd={addNote} />
        </section>
      </div>
      {Array.isArray(withItems.data?.items) && withItems.data.items.length > 0 && <ItemsWithHistory spaceId={c.repo_id} items={withItems.data.items} />}
      <ContextPackPanel checkpointId={c.id} />
    </>
  );
}
