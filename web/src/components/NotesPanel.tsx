import { useState, type FormEvent } from "react";
import { relTime, type Note } from "../api";

/** A checkpoint's notes (kind, text, author, time) and the form that appends one. */
export function NotesPanel({ notes, onAdd }: { notes: Note[]; onAdd: (text: string, kind: string) => Promise<void> }) {
  const [text, setText] = useState("");
  const [kind, setKind] = useState("note");
  const [error, setError] = useState("");

  async function submit(e: FormEvent) {
    e.preventDefault();
    if (!text.trim()) return;
    setError("");
    try {
      await onAdd(text.trim(), kind);
      setText("");
    } catch (err) {
      setError((err as Error).message);
    }
  }

  return (
    <>
      <h2>Notes</h2>
      {notes.length === 0 ? (
        <p className="muted">No notes yet.</p>
      ) : (
        <ul className="plain" data-testid="notes">
          {notes.map((n) => (
            <li key={n.id} data-testid="note">
              <span className="badge">{n.kind}</span> {n.text}{" "}
              <span className="muted small">
                — {n.author || "unknown"}
                {n.created_at && (
                  <>
                    {" · "}
                    <time dateTime={n.created_at} title={new Date(n.created_at).toLocaleString()}>
                      {relTime(n.created_at)}
                    </time>
                  </>
                )}
              </span>
            </li>
          ))}
        </ul>
      )}
      <form onSubmit={submit}>
        <label htmlFor="note-text">Add a note</label>
        <textarea id="note-text" rows={2} value={text} onChange={(e) => setText(e.target.value)} maxLength={2000} />
        <div className="row">
          <label htmlFor="note-kind" style={{ margin: 0 }}>
            Kind
          </label>
          <select id="note-kind" value={kind} onChange={(e) => setKind(e.target.value)}>
            <option>note</option>
            <option>milestone</option>
            <option>noise</option>
          </select>
          <button type="submit">Add note</button>
        </div>
        {error && <p className="error">{error}</p>}
      </form>
    </>
  );
}
