/** Where a project's code stood when a checkpoint was written (its metadata.git). */
export interface GitState {
  commit: string;
  /** "" on a detached HEAD. */
  branch: string;
  dirty: boolean;
  /** SHA-256 of `git diff HEAD` and untracked files; "" when clean. */
  diff_sha256: string;
}

/** Reads metadata.git back: null when absent or without a commit (as the server's GitStateOf). */
export function gitStateOf(metadata: Record<string, unknown> | undefined): GitState | null {
  const g = metadata?.git;
  if (!g || typeof g !== "object") return null;
  const m = g as Record<string, unknown>;
  const str = (v: unknown) => (typeof v === "string" ? v : "");
  if (!str(m.commit)) return null;
  return { commit: str(m.commit), branch: str(m.branch), dirty: m.dirty === true, diff_sha256: str(m.diff_sha256) };
}

/**
 * The shell line that gets a work tree to this code, the one `smriti restore` prints
 * (GitState.RestoreCommand in the Go domain; a test on each side pins the same text).
 */
export function restoreCommand(g: GitState): string {
  let cmd = g.branch
    ? `git stash push -u -m smriti-restore && git switch ${g.branch} && git reset --keep ${g.commit}`
    : `git stash push -u -m smriti-restore && git switch --detach ${g.commit}`;
  if (g.dirty) cmd += `   # the checkpoint saw uncommitted changes (diff ${g.diff_sha256.slice(0, 12)}) that git cannot bring back`;
  return cmd;
}
