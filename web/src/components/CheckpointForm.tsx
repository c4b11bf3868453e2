import { useState, type FormEvent } from "react";
import type { Artifact, Draft, TaskObject, TaskWire } from "../api";

export interface CheckpointFields {
  message: string;
  summary: string;
  objective: string;
  decisions: string[];
  assumptions: string[];
  tasks: TaskObject[];
  open_questions: string[];
  entities: string[];
  artifacts: Artifact[];
}

const INTENTS = ["", "implement", "investigate", "review", "test", "docs"];

/** Tasks arrive as strings or objects; the form edits them as objects. */
export function toTaskObjects(tasks: TaskWire[] | undefined): TaskObject[] {
  return (tasks ?? []).map((t) => (typeof t === "string" ? { text: t, status: "open" } : { ...t, status: t.status || "open" }));
}

const lines = (s: string) =>
  s
    .split("\n")
    .map((l) => l.trim())
    .filter(Boolean);

let artifactSeq = 0;
const artifactID = () => `a${Date.now().toString(16)}${(artifactSeq++).toString(16)}`;

export function CheckpointForm({
  onDraft,
  onSubmit,
  draftAvailable = true,
}: {
  onDraft?: () => Promise<Draft>;
  onSubmit: (f: CheckpointFields) => Promise<void>;
  draftAvailable?: boolean;
}) {
  const [message, setMessage] = useState("");
  const [objective, setObjective] = useState("");
  const [summary, setSummary] = useState("");
  const [decisions, setDecisions] = useState("");
  const [assumptions, setAssumptions] = useState("");
  const [questions, setQuestions] = useState("");
  const [entities, setEntities] = useState("");
  const [tasks, setTasks] = useState<TaskObject[]>([]);
  const [artifacts, setArtifacts] = useState<Artifact[]>([]);
  const [busy, setBusy] = useState<"" | "draft" | "save">("");
  const [error, setError] = useState("");

  async function draft() {
    if (!onDraft) return;
    setBusy("draft");
    setError("");
    try {
      const d = await onDraft();
      setMessage(d.title ?? "");
      setObjective(d.objective ?? "");
      setSummary(d.summary ?? "");
      setDecisions((d.decisions ?? []).join("\n"));
      setAssumptions((d.assumptions ?? []).join("\n"));
      setQuestions((d.open_questions ?? []).join("\n"));
      setEntities((d.entities ?? []).join("\n"));
      setTasks(toTaskObjects(d.tasks));
      if (d.artifacts) setArtifacts(d.artifacts);
    } catch (e) {
      setError(`Draft failed: ${(e as Error).message}`);
    } finally {
      setBusy("");
    }
  }

  async function submit(e: FormEvent) {
    e.preventDefault();
    if (!message.trim()) {
      setError("A message is required.");
      return;
    }
    setBusy("save");
    setError("");
    try {
      await onSubmit({
        message: message.trim(),
        objective: objective.trim(),
        summary: summary.trim(),
        decisions: lines(decisions),
        assumptions: lines(assumptions),
        open_questions: lines(questions),
        entities: lines(entities),
        tasks: tasks
          .filter((t) => t.text.trim())
          .map((t) => {
            const o: TaskObject = { text: t.text.trim() };
            if (t.id) o.id = t.id;
            if (t.intent_hint) o.intent_hint = t.intent_hint;
            if (t.blocked_by) o.blocked_by = t.blocked_by;
            if (t.status) o.status = t.status;
            return o;
          }),
        artifacts: artifacts.filter((a) => a.content.trim()),
      });
    } catch (e) {
      setError(`Save failed: ${(e as Error).message}`);
    } finally {
      setBusy("");
    }
  }

  const setTask = (i: number, patch: Partial<TaskObject>) => setTasks((ts) => ts.map((t, j) => (j === i ? { ...t, ...patch } : t)));
  const setArtifact = (i: number, patch: Partial<Artifact>) => setArtifacts((as) => as.map((a, j) => (j === i ? { ...a, ...patch } : a)));

  return (
    <form onSubmit={submit} aria-label="Checkpoint">
      {onDraft && (
        <div className="row">
          <button type="button" onClick={draft} disabled={busy !== "" || !draftAvailable}>
            {busy === "draft" ? "Drafting…" : "Draft with AI"}
          </button>
          {!draftAvailable && <span className="muted small">Drafting needs a background provider (see Settings).</span>}
        </div>
      )}
      <label htmlFor="cp-message">Message (required)</label>
      <input id="cp-message" value={message} onChange={(e) => setMessage(e.target.value)} style={{ width: "100%" }} required />
      <label htmlFor="cp-objective">Objective</label>
      <input id="cp-objective" value={objective} onChange={(e) => setObjective(e.target.value)} style={{ width: "100%" }} />
      <label htmlFor="cp-summary">Summary</label>
      <textarea id="cp-summary" rows={3} value={summary} onChange={(e) => setSummary(e.target.value)} />
      <div className="grid2">
        <div>
          <label htmlFor="cp-decisions">Decisions (one per line)</label>
          <textarea id="cp-decisions" rows={4} value={decisions} onChange={(e) => setDecisions(e.target.value)} />
        </div>
        <div>
          <label htmlFor="cp-assumptions">Assumptions (one per line)</label>
          <textarea id="cp-assumptions" rows={4} value={assumptions} onChange={(e) => setAssumptions(e.target.value)} />
        </div>
        <div>
          <label htmlFor="cp-questions">Open questions (one per line)</label>
          <textarea id="cp-questions" rows={3} value={questions} onChange={(e) => setQuestions(e.target.value)} />
        </div>
        <div>
          <label htmlFor="cp-entities">Entities (one per line)</label>
          <textarea id="cp-entities" rows={3} value={entities} onChange={(e) => setEntities(e.target.value)} />
        </div>
      </div>
      <fieldset style={{ border: "1px solid var(--border)", borderRadius: 8, marginTop: "0.6rem" }}>
        <legend>Tasks</legend>
        {tasks.map((t, i) => (
          <div className="task-row" key={i} role="group" aria-label={`Task ${i + 1}`}>
            <input aria-label={`Task ${i + 1} text`} value={t.text} onChange={(e) => setTask(i, { text: e.target.value })} />
            <select aria-label={`Task ${i + 1} intent`} value={t.intent_hint ?? ""} onChange={(e) => setTask(i, { intent_hint: e.target.value })}>
              {INTENTS.map((x) => (
                <option key={x} value={x}>
                  {x || "no intent"}
                </option>
              ))}
            </select>
            <select aria-label={`Task ${i + 1} status`} value={t.status ?? "open"} onChange={(e) => setTask(i, { status: e.target.value })}>
              <option value="open">open</option>
              <option value="done">done</option>
            </select>
            <button type="button" aria-label={`Remove task ${i + 1}`} onClick={() => setTasks((ts) => ts.filter((_, j) => j !== i))}>
              ✕
            </button>
            {(t.id || t.blocked_by) && (
              <span className="muted small" style={{ gridColumn: "1 / -1" }}>
                {t.id && <>id: {t.id} </>}
                {t.blocked_by && <>→ blocked by {t.blocked_by}</>}
              </span>
            )}
          </div>
        ))}
        <button type="button" onClick={() => setTasks((ts) => [...ts, { text: "", status: "open" }])}>
          Add task
        </button>
      </fieldset>
      <fieldset style={{ border: "1px solid var(--border)", borderRadius: 8, marginTop: "0.6rem" }}>
        <legend>Artifacts</legend>
        {artifacts.map((a, i) => (
          <div key={a.id} role="group" aria-label={`Artifact ${i + 1}`} style={{ marginBottom: "0.4rem" }}>
            <div className="row">
              <input aria-label={`Artifact ${i + 1} label`} value={a.label} onChange={(e) => setArtifact(i, { label: e.target.value })} />
              <button type="button" aria-label={`Remove artifact ${i + 1}`} onClick={() => setArtifacts((as) => as.filter((_, j) => j !== i))}>
                ✕
              </button>
            </div>
            <textarea aria-label={`Artifact ${i + 1} content`} rows={2} value={a.content} onChange={(e) => setArtifact(i, { content: e.target.value })} />
          </div>
        ))}
        <button type="button" onClick={() => setArtifacts((as) => [...as, { id: artifactID(), type: "text", label: "", content: "" }])}>
          Add artifact
        </button>
      </fieldset>
      {error && (
        <p className="error" role="alert">
          {error}
        </p>
      )}
      <div className="row" style={{ marginTop: "0.8rem" }}>
        <button type="submit" className="primary" disabled={busy !== ""}>
          {busy === "save" ? "Saving…" : "Save checkpoint"}
        </button>
      </div>
    </form>
  );
}
