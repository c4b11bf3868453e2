import { useRef, useState } from "react";
import { copyText } from "../lib/clipboard";
import { INVALID_GIT_STATE, restoreCommand, type GitState } from "../lib/gitstate";

/**
 * Where the code stood when the checkpoint was written (metadata.git), and the command that gets a
 * work tree back there; for a stored value that is not a git state ("invalid"), only that, and no
 * command to copy.
 */
export function CheckpointCode({ git }: { git: GitState | "invalid" }) {
  if (git === "invalid") {
    return (
      <section aria-labelledby="code-title" data-testid="checkpoint-code">
        <h2 id="code-title">Code</h2>
        <p className="muted" data-testid="git-invalid">
          The checkpoint recorded an {INVALID_GIT_STATE} (not a commit, branch and diff hash git writes), so no command to
          get the code there is shown.
        </p>
      </section>
    );
  }
  return <ValidCode git={git} />;
}

function ValidCode({ git }: { git: GitState }) {
  const [announce, setAnnounce] = useState("");
  const field = useRef<HTMLInputElement>(null);
  const cmd = restoreCommand(git);

  async function copy() {
    setAnnounce("");
    setAnnounce((await copyText(cmd, field.current)) ? "Copied" : "Copy failed: select the command and copy it by hand");
  }

  return (
    <section aria-labelledby="code-title" data-testid="checkpoint-code">
      <h2 id="code-title">Code</h2>
      <p>
        git{" "}
        <span className="mono" title={git.commit} data-testid="git-commit">
          {git.commit.slice(0, 12)}
        </span>{" "}
        {git.branch ? (
          <>
            on <span className="badge">{git.branch}</span>
          </>
        ) : (
          <span className="badge">detached</span>
        )}{" "}
        {git.dirty ? (
          <span className="badge warn" title={`uncommitted changes, diff ${git.diff_sha256.slice(0, 12)}`}>
            dirty
          </span>
        ) : (
          <span className="badge ok">clean</span>
        )}
      </p>
      <label htmlFor="restore-command" className="muted small">
        To get the code there (what <span className="mono">smriti restore</span> prints)
      </label>
      <div className="row">
        <input id="restore-command" ref={field} readOnly value={cmd} className="mono" style={{ flex: 1, minWidth: "16rem" }} onFocus={(e) => e.target.select()} />
        <button type="button" onClick={copy}>
          Copy
        </button>
        <span role="status" aria-live="polite" className="muted small" data-testid="restore-status">
          {announce}
        </span>
      </div>
    </section>
  );
}
