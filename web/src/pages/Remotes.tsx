import { useCallback, useState, type FormEvent } from "react";
import { Link, useParams } from "react-router-dom";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { relTime } from "../api";
import { usePageTitle } from "../lib/title";
import { useSpaceEvents } from "../events";
import { adviceFor, describeDivergence, describeFetch, describePull, describePush, syncApi, type Remote, type SyncAdvice } from "../lib/sync";
import { queryKeys } from "../lib/queryKeys";
import { useSpace } from "../lib/queries";

type Step = "fetch" | "pull" | "push";
const RUNNING: Record<Step, string> = { fetch: "Fetching", pull: "Pulling", push: "Pushing" };

/**
 * A space's remotes (other servers holding a copy of it): how each branch
 * stands against them, and Fetch, Pull and Push. A pull whose conflicts
 * wait as a proposal links to the inbox; a refusal says what to do next.
 */
export default function Remotes() {
  usePageTitle("Remotes");
  const { spaceId = "" } = useParams();
  const qc = useQueryClient();
  const space = useSpace(spaceId);
  const remotes = useQuery({ queryKey: queryKeys.remotes(spaceId), queryFn: () => syncApi.list(spaceId) });
  const refresh = useCallback(() => qc.invalidateQueries({ queryKey: queryKeys.remotes(spaceId) }), [qc, spaceId]);
  // A checkpoint saved here (or pulled) changes how far ahead each remote is.
  useSpaceEvents(spaceId, refresh);
  const list = remotes.data ?? [];
  return (
    <>
      <h1>Remotes: {space.data?.name ?? "space"}</h1>
      <p className="small">
        <Link to={`/spaces/${spaceId}/lineage`}>Lineage</Link> · <Link to={`/spaces/${spaceId}/proposals`}>Proposals</Link> ·{" "}
        <Link to={`/spaces/${spaceId}/coordination`}>Coordination</Link>
      </p>
      <p className="muted">
        Other Smriti servers, or git repositories, holding a copy of this space. Fetch brings what they have without moving a branch here; Pull brings it into your branch
        (items both copies changed wait in the inbox); Push sends your branch when the remote has nothing newer.
      </p>
      {remotes.isError && <p className="error">{(remotes.error as Error).message}</p>}
      {remotes.isSuccess && list.length === 0 && <p className="muted">This space has no remote yet: add one below.</p>}
      <ul className="plain" data-testid="remotes">
        {list.map((r) => (
          <li key={r.name}>
            <RemoteCard spaceId={spaceId} remote={r} onChanged={refresh} />
          </li>
        ))}
      </ul>
      <AddRemote spaceId={spaceId} taken={list.map((r) => r.name)} onAdded={refresh} />
    </>
  );
}

interface Outcome {
  text: string;
  proposal?: string;
}

function RemoteCard({ spaceId, remote: r, onChanged }: { spaceId: string; remote: Remote; onChanged: () => void }) {
  const qc = useQueryClient();
  const [running, setRunning] = useState<Step | null>(null);
  const [outcome, setOutcome] = useState<Outcome | null>(null);
  const [failure, setFailure] = useState<{ step: Step | "remove"; detail: string; advice: SyncAdvice } | null>(null);
  const [removing, setRemoving] = useState(false);
  const branch = "main";
  const run = async (step: Step) => {
    setRunning(step);
    setFailure(null);
    setOutcome(null);
    try {
      if (step === "fetch") setOutcome({ text: describeFetch(await syncApi.fetch(spaceId, r.name)) });
      else if (step === "pull") {
        const res = await syncApi.pull(spaceId, r.name, branch);
        setOutcome({ text: describePull(res, r.name, branch), proposal: res.proposal?.id });
        qc.invalidateQueries({ queryKey: queryKeys.proposals(spaceId) });
      } else setOutcome({ text: describePush(await syncApi.push(spaceId, r.name, branch), r.name) });
    } catch (e) {
      setFailure({ step, detail: (e as Error).message, advice: adviceFor(step, e, r) });
    } finally {
      setRunning(null);
      onChanged();
    }
  };
  const remove = async () => {
    setFailure(null);
    try {
      await syncApi.remove(spaceId, r.name);
      onChanged();
    } catch (e) {
      setFailure({ step: "remove", detail: (e as Error).message, advice: { next: null, text: "" } });
    }
  };
  const headingId = `remote-${r.name}`;
  return (
    <section className="card" aria-labelledby={headingId} data-testid="remote" data-remote={r.name} aria-busy={running != null}>
      <div className="row spread">
        <h2 id={headingId} style={{ margin: 0 }}>
          {r.name}
        </h2>
        <span className="small muted remote-where">
          <span className="mono">{r.url}</span>
          {r.token && <> · token {r.token}</>} · {r.fetched_at ? `fetched ${relTime(r.fetched_at)}` : "never fetched"}
        </span>
      </div>
      {r.divergence.length === 0 ? (
        <p className="muted" data-testid="divergence">
          Not fetched yet: Fetch to see where its branches stand.
        </p>
      ) : (
        <ul className="plain">
          {r.divergence.map((d) => (
            <li key={d.branch} data-testid="divergence" data-branch={d.branch} data-ahead={d.ahead} data-behind={d.behind}>
              {describeDivergence(d)}
            </li>
          ))}
        </ul>
      )}
      <div className="row">
        {(["fetch", "pull", "push"] as Step[]).map((step) => (
          <button key={step} type="button" className={step === failure?.advice.next ? "primary" : undefined} disabled={running != null} onClick={() => run(step)}>
            {running === step ? `${RUNNING[step]}…` : `${step[0].toUpperCase()}${step.slice(1)}`}
          </button>
        ))}
        <span style={{ flex: 1 }} />
        {!removing ? (
          <button type="button" className="small" disabled={running != null} onClick={() => setRemoving(true)}>
            Remove…
          </button>
        ) : (
          <span className="row small" role="group" aria-label={`Remove ${r.name}`}>
            Forget {r.name} and what was fetched from it and not pulled?
            <button type="button" className="danger" onClick={remove}>
              Remove {r.name}
            </button>
            <button type="button" onClick={() => setRemoving(false)}>
              Keep it
            </button>
          </span>
        )}
      </div>
      <div role="status" className="small" data-testid="sync-progress">
        {running && `${RUNNING[running]} ${running === "push" ? "to" : "from"} ${r.name}…`}
        {outcome && (
          <span data-testid="sync-outcome">
            {outcome.text}{" "}
            {outcome.proposal && <Link to={`/spaces/${spaceId}/proposals?proposal=${outcome.proposal}`}>Review it in the inbox</Link>}
          </span>
        )}
      </div>
      {failure && (
        <div role="alert" className="sync-error" data-testid="sync-error">
          <p className="error" style={{ margin: 0 }}>
            {failure.step[0].toUpperCase() + failure.step.slice(1)} failed: {failure.detail}
          </p>
          {failure.advice.text && (
            <p style={{ margin: "var(--space-1) 0 0" }} data-testid="sync-advice">
              {failure.advice.text}{" "}
              {failure.advice.next && (
                <button type="button" className="small" onClick={() => run(failure.advice.next!)}>
                  {failure.advice.next === "pull" ? `Pull from ${r.name}` : `Fetch ${r.name} again`}
                </button>
              )}
            </p>
          )}
        </div>
      )}
    </section>
  );
}

function AddRemote({ spaceId, taken, onAdded }: { spaceId: string; taken: string[]; onAdded: () => void }) {
  const [name, setName] = useState("");
  const [url, setUrl] = useState("");
  const [other, setOther] = useState("");
  const [token, setToken] = useState("");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState("");
  const suggested = taken.includes("origin") ? "" : "origin";
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setBusy(true);
    setError("");
    try {
      await syncApi.add(spaceId, { name: name.trim() || suggested, url: url.trim(), remote_space_id: other.trim() || null, token: token || null });
      setName("");
      setUrl("");
      setOther("");
      setToken("");
      onAdded();
    } catch (err) {
      setError((err as Error).message);
    } finally {
      setBusy(false);
    }
  };
  return (
    <form className="card" aria-labelledby="add-remote-title" onSubmit={submit}>
      <h2 id="add-remote-title" style={{ marginTop: 0 }}>
        Add a remote
      </h2>
      <div className="grid2">
        <div>
          <label htmlFor="remote-name">Name</label>
          <input id="remote-name" value={name} placeholder={suggested} onChange={(e) => setName(e.target.value)} style={{ width: "100%" }} />
        </div>
        <div>
          <label htmlFor="remote-url">URL: a Smriti server or a git repository</label>
          <input id="remote-url" type="text" required value={url} placeholder="https://smriti.example.org or git@host:me/notes.git" onChange={(e) => setUrl(e.target.value)} style={{ width: "100%" }} />
        </div>
        <div>
          <label htmlFor="remote-space">Space id there (empty: the same as here)</label>
          <input id="remote-space" value={other} onChange={(e) => setOther(e.target.value)} style={{ width: "100%" }} className="mono" />
        </div>
        <div>
          <label htmlFor="remote-token">API token (kept by the server, never shown again)</label>
          <input id="remote-token" type="password" autoComplete="off" value={token} onChange={(e) => setToken(e.target.value)} style={{ width: "100%" }} />
        </div>
      </div>
      {error && (
        <p className="error" role="alert">
          {error}
        </p>
      )}
      <div className="row" style={{ marginTop: "var(--space-2)" }}>
        <button type="submit" className="primary" disabled={busy || !url.trim() || !(name.trim() || suggested)}>
          {busy ? "Adding…" : "Add remote"}
        </button>
      </div>
    </form>
  );
}
