import type { ContextPreview } from "../api";

/**
 * Where the model's context starts in a thread, from the server's context
 * preview: turns before allowed_from_seq are beyond the mode's boundary
 * (before the mounted, fork or head checkpoint), turns from there up to the
 * first one sent were dropped to fit the token budget.
 */
export interface ContextLine {
  /** The first turn the model is given; null when it is given none of them. */
  startSeq: number | null;
  /** Why the model does not see the turn, or null when it does. */
  outside(seq: number): string | null;
  /** The divider's text. */
  label: string;
}

const BOUNDARY: Record<string, string> = {
  MOUNTED: "before the mounted checkpoint",
  HEAD: "before the head checkpoint",
  FORKED: "before the branch's checkpoint",
  FRESH: "outside the context",
};

export function contextLine(p: Pick<ContextPreview, "mode" | "turn_range" | "allowed_from_seq" | "stopped_turns" | "checkpoints"> & Partial<Pick<ContextPreview, "dropped_turns">> | undefined): ContextLine | null {
  if (!p) return null;
  const mode = p.mode.toUpperCase();
  const allowed = p.allowed_from_seq ?? 0;
  const from = p.turn_range?.from_seq ?? null;
  const boundary = BOUNDARY[mode] ?? BOUNDARY.FRESH;
  // With no turn sent, a turn past the boundary was dropped only if the
  // preview says it dropped some (else it is newer than the preview).
  const overBudget = (seq: number) => (from != null ? seq < from : (p.dropped_turns ?? 0) > 0);
  const outside = (seq: number) => (seq < allowed ? boundary : overBudget(seq) ? "over the token budget" : null);
  const cps = p.checkpoints.length;
  const what = cps ? `${cps === 1 ? "the checkpoint" : `${cps} checkpoints`} and ` : "";
  const base = from == null ? `The model's context starts here (${mode}): ${what}your next message; none of the messages above are sent` : `The model's context starts here (${mode}): ${what}the messages below`;
  const stopped = p.stopped_turns?.length ? `; stopped replies are included as far as they got (#${p.stopped_turns.join(", #")})` : "";
  return { startSeq: from, outside, label: base + stopped + "." };
}
