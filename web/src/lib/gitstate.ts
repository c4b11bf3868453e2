import type { GitState } from "../api";

export type { GitState } from "../api";

/** How a stored git state that is not one git writes is shown (smriti.InvalidGitState). */
export const INVALID_GIT_STATE = "invalid git state";

/**
 * Reads metadata.git back, as the server's GitStateOf does: null when absent, "invalid" when it is
 * not an object of the four fields with their types or fails validGitState.
 */
export function gitStateOf(metadata: Record<string, unknown> | undefined): GitState | "invalid" | null {
  const g = metadata?.git;
  if (g === undefined || g === null) return null;
  if (typeof g !== "object" || Array.isArray(g)) return "invalid";
  const m = g as Record<string, unknown>;
  const out: GitState = { commit: "", branch: "", dirty: false, diff_sha256: "" };
  for (const k of ["commit", "branch", "diff_sha256"] as const) {
    const v = m[k];
    if (v === undefined || v === null) continue;
    if (typeof v !== "string") return "invalid";
    out[k] = v;
  }
  if (m.dirty !== undefined && m.dirty !== null) {
    if (typeof m.dirty !== "boolean") return "invalid";
    out.dirty = m.dirty;
  }
  return validGitState(out) ? out : "invalid";
}

const hex = (s: string, ...lengths: number[]) => lengths.includes(s.length) && /^[0-9a-f]*$/.test(s);

/**
 * Whether a branch name is one git creates (git-check-ref-format for refs/heads/<name>, no
 * leading "-"), and neither "@" alone nor one with a control or bidirectional format character,
 * as GitState.Validate in the Go domain.
 */
function validBranch(b: string): boolean {
  if (new TextEncoder().encode(b).length > 255) return false;
  if (b.startsWith("-") || b === "@") return false;
  if (b.startsWith("/") || b.endsWith("/") || b.includes("//") || b.endsWith(".") || b.includes("..") || b.includes("@{")) return false;
  // C0 and C1 controls, DEL, space, ~ ^ : ? * [ \, and the Unicode format characters (Cf).
  if (/[\u0000-\u0020\u007f-\u009f~^:?*[\\]|\p{Cf}/u.test(b)) return false;
  return b.split("/").every((part) => !part.startsWith(".") && !part.endsWith(".lock"));
}

/**
 * Whether a git state is one git writes: commit 40 or 64 lowercase hex digits, branch "" or a
 * branch name (validBranch), diff_sha256 "" or 64 lowercase hex digits.
 */
export function validGitState(g: GitState): boolean {
  return hex(g.commit, 40, 64) && (g.branch === "" || validBranch(g.branch)) && (g.diff_sha256 === "" || hex(g.diff_sha256, 64));
}

/** s as one POSIX shell word: single-quoted, each ' written as '\''. */
export function shellQuote(s: string): string {
  return `'${s.replaceAll("'", `'\\''`)}'`;
}

/** The one-line view: "0123456789ab on main, dirty (diff 999999999999)"; INVALID_GIT_STATE for an invalid state. */
export function gitLine(g: GitState): string {
  if (!validGitState(g)) return INVALID_GIT_STATE;
  let s = g.commit.slice(0, 12) + (g.branch ? ` on ${g.branch}` : " (detached)");
  if (g.dirty) s += `, dirty (diff ${g.diff_sha256.slice(0, 12)})`;
  return s;
}

/**
 * The shell line that gets a work tree to this code, the one `smriti restore` prints
 * (GitState.RestoreCommand in the Go domain; both are tested against testdata/gitstate.json):
 * every value one single-quoted word after `--`. "" for an invalid state: a stored value never
 * becomes a command.
 */
export function restoreCommand(g: GitState): string {
  if (!validGitState(g)) return "";
  let cmd = "git stash push -u -m smriti-restore && ";
  cmd += g.branch
    ? `git switch -- ${shellQuote(g.branch)} && git reset --keep ${shellQuote(g.commit)} --`
    : `git switch --detach -- ${shellQuote(g.commit)}`;
  if (g.dirty) cmd += `   # the checkpoint saw uncommitted changes (diff ${g.diff_sha256.slice(0, 12)}) that git cannot bring back`;
  return cmd;
}
