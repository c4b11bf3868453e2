import { blockersOf } from "../api";

/** "blocked by" with one chip per blocking task id; nothing when there is none. */
export function Blockers({ value }: { value: string | string[] | null | undefined }) {
  const ids = blockersOf(value);
  if (ids.length === 0) return null;
  return (
    <span className="muted small" data-testid="blockers">
      {" "}
      → blocked by{" "}
      {ids.map((id, i) => (
        <span key={`${id}-${i}`} className="badge mono" style={{ marginRight: "0.2rem" }}>
          {id}
        </span>
      ))}
    </span>
  );
}
