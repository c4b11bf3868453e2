import { useEffect, useRef, useState, type Dispatch, type FormEvent, type SetStateAction } from "react";
import { ApiError, blockersOf, short, type Artifact, type Checkpoint, type CommitBody, type Draft, type ID, type ItemKind, type ItemView, type MergeConflict, type TaskObject, type TaskWire } from "../api";
import { clientChanges, fieldOfKind, type ShownChange } from "../lib/diff";
import { keysOf, type KeyOf } from "../lib/itemKeys";
import { adoptIds, changeList, realign, rowsWithIds, taskRowsWithIds, type Row, type TaskRow } from "../lib/inplace";
import { Blockers } from "./Blockers";
import { ConflictDialog, conflictOf } from "./ConflictDialog";
import { DraftDiff } from "./DraftDiff";
import { droppedChanges } from "../lib/droppedChanges";

/**
 * What the form saves: the commit body's content fields, always filled, with
 * tasks as objects; the base it builds on when known; the change list (every
 * item with its id and what the save does to it, see lib/inplace); and the
 * resolutions that settle a 409 (sent on the same request again).
 */
export type CheckpointFields = { [K in "message" | "summary" | "objective" | "decisions" | "assumptions" | "open_questions" | "entities"]-?: NonNullable<CommitBody[K]> } & {
  tasks: TaskObject[];
  artifacts: Artifact[];
  base_checkpoint_id?: ID;
} & Partial<Pick<CommitBody, "items" | "resolutions">>;

const INTENTS = ["", "implement", "investigate", "review", "test", "docs"];

/** Tasks arrive as strings or objects; the form edits them as objects. */
export function toTaskObjects(tasks: TaskWire[] | undefined): TaskObject[] {
  return (tasks ?? []).map((t) => (typeof t === "string" ? { text: t, status: "open" } : { ...t, status: t.status || "open" }));
}

let artifactSeq = 0;
const artifactID = () => `a${Date.now().toString(16)}${(artifactSeq++).toString(16)}`;

type LineField = "decisions" | "assumptions" | "open_questions" | "entities";
const joinRows = (rs: Row[]) => rs.map((r) => r.text).join("\n");
const rowTexts = (rs: Row[]) => rs.map((r) => r.text.trim()).filter(Boolean);

/**
 * The checkpoint form. It opens with the content of the checkpoint it
 * builds on (base), so saving without edits keeps the whole state; Draft
 * with AI fills it with the proposal and lists what the proposal changes,
 * each change removable. Items are edited in place: each line keeps its
 * item's id, and a save sends the change list against the base; when the
 * branch moved on and someone changed the same items, the save's 409 opens
 * the conflict dialog, whose choices are sent on the same request again.
 */
export function CheckpointForm({
  onDraft,
  onSubmit,
  onSaveForLater,
  draftAvailable = true,
  base = null,
}: {
  onDraft?: () => Promise<Draft>;
  onSubmit: (f: CheckpointFields) => Promise<void>;
  /** Keeps the form's content as a proposal instead of committing it. */
  onSaveForLater?: (f: CheckpointFields) => Promise<void>;
  draftAvailable?: boolean;
  base?: Checkpoint | null;
}) {
  const [message, setMessage] = useState("");
  const [objective, setObjective] = useState(base?.objective ?? "");
  const [summary, setSummary] = useState(base?.summary ?? "");
  const [decisions, setDecisions] = useState<Row[]>(rowsWithIds("decision", base?.decisions, base?.items));
  const [assumptions, setAssumptions] = useState<Row[]>(rowsWithIds("assumption", base?.assumptions, base?.items));
  const [questions, setQuestions] = useState<Row[]>(rowsWithIds("open_question", base?.open_questions, base?.items));
  const [entities, setEntities] = useState<Row[]>(rowsWithIds("entity", base?.entities, base?.items));
  const [tasks, setTasks] = useState<TaskRow[]>(taskRowsWithIds(toTaskObjects(base?.tasks), base?.items));
  const [artifacts, setArtifacts] = useState<Artifact[]>(base?.artifacts ?? []);
  const [busy, setBusy] = useState<"" | "draft" | "save" | "later">("");
  const [error, setError] = useState("");
  const [proposal, setProposal] = useState<{ changes: ShownChange[]; fromServer: boolean; baseId?: string } | null>(null);
  const [excluded, setExcluded] = useState<Set<number>>(new Set());
  // After a hand edit the change list is what the form now changes in the base.
  const [handEdited, setHandEdited] = useState(false);
  const [draftItems, setDraftItems] = useState<ItemView[]>([]);
  const [conflict, setConflict] = useState<{ fields: CheckpointFields; conflicts: MergeConflict[]; head: string } | null>(null);
  // The base may arrive after the form opened: fill it in once, if nothing was typed yet.
  const filled = useRef(!!base);
  const touched = useRef(false);
  // The checkpoint the form's content came from: a save's base, even when
  // the branch moves on while the form is open (the server then rebases).
  const openedOn = useRef<Checkpoint | null>(base);
  useEffect(() => {
    // The same base with its items view (it may come after the content):
    // lines still without an id take their items' ids.
    const was = openedOn.current;
    if (base && was && base.id === was.id && !was.items && base.items) {
      openedOn.current = base;
      const adopt = (kind: ItemKind) => (rs: Row[]) => adoptIds(kind, rs, base.items, (r) => r.id, (r, id) => ({ ...r, id }));
      setDecisions(adopt("decision"));
      setAssumptions(adopt("assumption"));
      setQuestions(adopt("open_question"));
      setEntities(adopt("entity"));
      setTasks((ts) => adoptIds("task", ts, base.items, (t) => t.itemId, (t, itemId) => ({ ...t, itemId })));
      return;
    }
    if (!base || filled.current || touched.current) return;
    filled.current = true;
    openedOn.current = base;
    setObjective(base.objective ?? "");
    setSummary(base.summary ?? "");
    setDecisions(rowsWithIds("decision", base.decisions, base.items));
    setAssumptions(rowsWithIds("assumption", base.assumptions, base.items));
    setQuestions(rowsWithIds("open_question", base.open_questions, base.items));
    setEntities(rowsWithIds("entity", base.entities, base.items));
    setTasks(taskRowsWithIds(toTaskObjects(base.tasks), base.items));
    setArtifacts(base.artifacts ?? []);
  }, [base]);

  const lineState: Record<LineField, [Row[], Dispatch<SetStateAction<Row[]>>]> = {
    decisions: [decisions, setDecisions],
    assumptions: [assumptions, setAssumptions],
    open_questions: [questions, setQuestions],
    entities: [entities, setEntities],
  };
  function editLines(field: LineField, fn: (xs: string[]) => string[]) {
    // Functional, so several edits in one tick (dropping remembered changes) compose.
    lineState[field][1]((rows) => realign(rows, fn(rowTexts(rows)).join("\n")));
  }
  // The server's keys of the texts the form holds (see KeyOf): the base's
  // and the draft's items, and the proposal's changes.
  const formKeys = () => keysOf(base?.items, openedOn.current?.items, draftItems, proposal?.changes);

  // Drops a change from the form (or brings it back): the fields are edited
  // in place, so what the user typed elsewhere stays. Lines are matched to
  // the change's texts by keyOf.
  function applyChange(c: ShownChange, include: boolean, keyOf: KeyOf = formKeys()) {
    const same = (x: string, t: string | null) => keyOf(x) === keyOf(t);
    const without = (xs: string[], t: string | null) => xs.filter((x) => !same(x, t));
    const replace = (xs: string[], from: string | null, to: string | null) => {
      const i = xs.findIndex((x) => same(x, from));
      if (i < 0) return to ? [...xs, to] : xs;
      return xs.map((x, j) => (j === i ? (to ?? x) : x));
    };
    const field = fieldOfKind(c.kind) ?? (c.id ? fieldOfKind(({ d: "decision", a: "assumption", t: "task", q: "open_question", e: "entity" } as const)[c.id[0] as "d"]) : null);
    if (!field) return;
    if (field === "tasks") {
      setTasks((ts) => {
        const find = (t: string | null) => ts.findIndex((x) => same(x.text, t));
        switch (c.op) {
          case "add":
            return include ? (find(c.after) < 0 ? [...ts, { text: c.after ?? "", status: "open" }] : ts) : ts.filter((x) => !same(x.text, c.after));
          case "update":
          case "supersede": {
            const i = find(include ? c.before : c.after);
            if (i < 0) return ts;
            return ts.map((x, j) => (j === i ? { ...x, text: (include ? c.after : c.before) ?? x.text } : x));
          }
          case "resolve": {
            const i = find(c.after ?? c.before) >= 0 ? find(c.after ?? c.before) : find(c.before);
            if (i < 0) return include ? ts : [...ts, { text: c.before ?? "", status: "open" }];
            return ts.map((x, j) => (j === i ? { ...x, status: include ? "done" : "open" } : x));
          }
          default:
            return include ? ts.filter((x) => !same(x.text, c.before)) : find(c.before) < 0 ? [...ts, { text: c.before ?? "", status: "open" }] : ts;
        }
      });
      return;
    }
    editLines(field, (xs) => {
      switch (c.op) {
        case "add":
          return include ? (xs.some((x) => same(x, c.after)) ? xs : [...xs, c.after ?? ""]) : without(xs, c.after);
        case "update":
        case "supersede":
          return include ? replace(xs, c.before, c.after) : replace(xs, c.after, c.before);
        default:
          // resolve (a question answered) and retract take the item out.
          return include ? without(xs, c.before) : xs.some((x) => same(x, c.before)) ? xs : [...xs, c.before ?? ""];
      }
    });
  }

  function toggle(i: number) {
    if (!proposal) return;
    const next = new Set(excluded);
    const include = next.has(i);
    if (include) next.delete(i);
    else next.add(i);
    setExcluded(next);
    applyChange(proposal.changes[i], include);
    if (proposal.baseId) {
      if (include) droppedChanges.remove(proposal.baseId, proposal.changes[i]);
      else droppedChanges.add(proposal.baseId, proposal.changes[i]);
    }
  }

  async function draft() {
    if (!onDraft) return;
    setBusy("draft");
    setError("");
    try {
      const d = await onDraft();
      touched.current = true; // a base arriving later must not overwrite the proposal
      setMessage(d.title ?? "");
      setObjective(d.objective ?? "");
      setSummary(d.summary ?? "");
      const known = [...d.items, ...((openedOn.current ?? base)?.items ?? [])];
      const keyOf = keysOf(known, d.changes);
      setDecisions(rowsWithIds("decision", d.decisions, known, keyOf));
      setAssumptions(rowsWithIds("assumption", d.assumptions, known, keyOf));
      setQuestions(rowsWithIds("open_question", d.open_questions, known, keyOf));
      setEntities(rowsWithIds("entity", d.entities, known, keyOf));
      setTasks(taskRowsWithIds(toTaskObjects(d.tasks), known, keyOf));
      setDraftItems(d.items);
      const dc = { changes: d.changes, fromServer: true };
      const baseId = d.base_checkpoint_id ?? base?.id ?? undefined;
      setProposal({ ...dc, baseId });
      // What the user dropped before on this base stays dropped.
      const again = baseId ? droppedChanges.stillDropped(baseId, dc.changes) : new Set<number>();
      for (const i of again) applyChange(dc.changes[i], false, keyOf);
      setExcluded(again);
      setHandEdited(false);
    } catch (e) {
      setError(`Draft failed: ${(e as Error).message}`);
    } finally {
      setBusy("");
    }
  }

  // Saves; a 409 with conflicts opens the conflict dialog with what was sent.
  async function save(fields: CheckpointFields) {
    setBusy("save");
    setError("");
    try {
      await onSubmit(fields);
      setConflict(null);
    } catch (e) {
      const c = e instanceof ApiError ? conflictOf(e) : null;
      if (c) setConflict({ fields, conflicts: c.conflicts, head: c.head_checkpoint_id });
      else setError(`Save failed: ${(e as Error).message}`);
    } finally {
      setBusy("");
    }
  }

  // Keeps the content as a proposal: nothing is committed, and a failure
  // says so (the form stays filled in).
  async function saveForLater() {
    const f = fieldsOf();
    if (!f || !onSaveForLater) return;
    setBusy("later");
    setError("");
    try {
      await onSaveForLater(f);
    } catch (e) {
      setError(`Save for later failed: ${(e as Error).message}`);
    } finally {
      setBusy("");
    }
  }

  async function submit(e: FormEvent) {
    e.preventDefault();
    const f = fieldsOf();
    if (f) await save(f);
  }

  // What a save sends; null (with the reason shown) when the message is missing.
  function fieldsOf(): CheckpointFields | null {
    if (!message.trim()) {
      setError("A message is required.");
      return null;
    }
    const content = {
      decisions: rowTexts(decisions),
      assumptions: rowTexts(assumptions),
      open_questions: rowTexts(questions),
      entities: rowTexts(entities),
      tasks: tasks
        .filter((t) => t.text.trim())
        .map((t) => {
          const o: TaskObject = { text: t.text.trim() };
          if (t.id) o.id = t.id;
          if (t.intent_hint) o.intent_hint = t.intent_hint;
          const blockers = blockersOf(t.blocked_by);
          if (blockers.length) o.blocked_by = blockers.length === 1 ? blockers[0] : blockers;
          if (t.status) o.status = t.status;
          return o;
        }),
    };
    const from = openedOn.current ?? base;
    const items = changeList({ decision: decisions, assumption: assumptions, open_question: questions, entity: entities, task: tasks }, from?.items, draftItems);
    const baseId = proposal?.baseId ?? from?.id;
    return {
      message: message.trim(),
      objective: objective.trim(),
      summary: summary.trim(),
      ...content,
      artifacts: artifacts.filter((a) => a.content.trim()),
      ...(baseId ? { base_checkpoint_id: baseId } : {}),
      ...(items.length > 0 ? { items } : {}),
    };
  }

  // The list the proposal shows: the draft's own until the form is edited by
  // hand, then what the form changes in the base now (each change keeping
  // the turns it came from), followed by the dropped ones, restorable.
  const shown = (() => {
    if (!proposal || !handEdited) return { changes: proposal?.changes ?? [], excluded, toggle };
    const keyOf = formKeys();
    const now = clientChanges(base, {
      decisions: rowTexts(decisions),
      assumptions: rowTexts(assumptions),
      open_questions: rowTexts(questions),
      entities: rowTexts(entities),
      tasks: tasks.filter((t) => t.text.trim()).map((t) => ({ text: t.text, status: t.status })),
    }, keyOf).map((c) => ({ ...c, source: c.source ?? proposal.changes.find((p) => p.kind === c.kind && keyOf(p.after ?? p.before) === keyOf(c.after ?? c.before))?.source ?? null }));
    const dropped = [...excluded].sort((a, b) => a - b);
    return {
      changes: [...now, ...dropped.map((i) => proposal.changes[i])],
      excluded: new Set(dropped.map((_, k) => now.length + k)),
      toggle: (i: number) => {
        if (i >= now.length) return toggle(dropped[i - now.length]);
        applyChange(now[i], false);
        if (proposal.baseId) droppedChanges.add(proposal.baseId, now[i]);
      },
    };
  })();

  const setTask = (i: number, patch: Partial<TaskRow>) => setTasks((ts) => ts.map((t, j) => (j === i ? { ...t, ...patch } : t)));
  const setArtifact = (i: number, patch: Partial<Artifact>) => setArtifacts((as) => as.map((a, j) => (j === i ? { ...a, ...patch } : a)));

  return (
    <>
    <form
      onSubmit={submit}
      aria-label="Checkpoint"
      onInput={() => {
        touched.current = true;
        // Later, not during the event: a re-render now would reset a
        // controlled field before its own change handler reads it.
        if (proposal && !handEdited) setTimeout(() => setHandEdited(true), 0);
      }}
    >
      {onDraft && (
        <div className="row">
          <button type="button" onClick={draft} disabled={busy !== "" || !draftAvailable}>
            {busy === "draft" ? "Drafting…" : "Draft with AI"}
          </button>
          {!draftAvailable && <span className="muted small">Drafting needs a background provider (see Settings).</span>}
          {(openedOn.current ?? base) ? (
            <span className="muted small">
              Builds on <span className="mono">{short((openedOn.current ?? base)!.commit_hash)}</span> “{(openedOn.current ?? base)!.message}”: its content is filled in below.
            </span>
          ) : (
            <span className="muted small">The first checkpoint of this line of work.</span>
          )}
        </div>
      )}
      {proposal && (
        <DraftDiff
          changes={shown.changes}
          excluded={shown.excluded}
          onToggle={shown.toggle}
          fromServer={proposal.fromServer && !handEdited}
          baseLabel={base ? short(base.commit_hash) : "an empty checkpoint"}
        />
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
          <textarea id="cp-decisions" rows={4} value={joinRows(decisions)} onChange={(e) => setDecisions(realign(decisions, e.target.value))} />
        </div>
        <div>
          <label htmlFor="cp-assumptions">Assumptions (one per line)</label>
          <textarea id="cp-assumptions" rows={4} value={joinRows(assumptions)} onChange={(e) => setAssumptions(realign(assumptions, e.target.value))} />
        </div>
        <div>
          <label htmlFor="cp-questions">Open questions (one per line)</label>
          <textarea id="cp-questions" rows={3} value={joinRows(questions)} onChange={(e) => setQuestions(realign(questions, e.target.value))} />
        </div>
        <div>
          <label htmlFor="cp-entities">Entities (one per line)</label>
          <textarea id="cp-entities" rows={3} value={joinRows(entities)} onChange={(e) => setEntities(realign(entities, e.target.value))} />
        </div>
      </div>
      <fieldset style={{ border: "1px solid var(--border)", borderRadius: 8, marginTop: "0.6rem" }}>
        <legend>Tasks</legend>
        {tasks.map((t, i) => (
          <div className="task-row" key={i} role="group" aria-label={`Task ${i + 1}`}>
            <input aria-label={`Task ${i + 1} text`} value={t.text} onChange={(e) => setTask(i, { text: e.target.value })} />
            <select aria-label={`Task ${i + 1} intent`} value={t.intent_hint ?? ""} onChange={(e) => setTask(i, { intent_hint: (e.target.value || undefined) as TaskObject["intent_hint"] })}>
              {INTENTS.map((x) => (
                <option key={x} value={x}>
                  {x || "no intent"}
                </option>
              ))}
            </select>
            <select aria-label={`Task ${i + 1} status`} value={t.status ?? "open"} onChange={(e) => setTask(i, { status: e.target.value as TaskObject["status"] })}>
              <option value="open">open</option>
              <option value="done">done</option>
            </select>
            <button type="button" aria-label={`Remove task ${i + 1}`} onClick={() => setTasks((ts) => ts.filter((_, j) => j !== i))}>
              ✕
            </button>
            {(t.id || blockersOf(t.blocked_by).length > 0) && (
              <span className="muted small" style={{ gridColumn: "1 / -1" }}>
                {t.id && <>id: {t.id} </>}
                <Blockers value={t.blocked_by} />
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
        {onSaveForLater && (
          <>
            <button type="button" onClick={saveForLater} disabled={busy !== ""}>
              {busy === "later" ? "Saving for later…" : "Save for later"}
            </button>
            <span className="muted small">Keeps it as a proposal in the space's inbox, not yet a checkpoint.</span>
          </>
        )}
      </div>
    </form>
    {conflict && (
      <ConflictDialog
        conflicts={conflict.conflicts}
        headId={conflict.head}
        busy={busy === "save"}
        error={error}
        onCancel={() => setConflict(null)}
        onResolve={(resolutions) => save({ ...conflict.fields, resolutions })}
      />
    )}
    </>
  );
}
