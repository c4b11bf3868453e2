import { short } from "../../api";
import { Modal } from "../../components/Modal";
import type { useBranching } from "./useBranching";

/** The fork dialog: a new branch from the checkpoint forkAt chose. */
export function ForkModal({ fork }: { fork: ReturnType<typeof useBranching>["fork"] }) {
  const { forking } = fork;
  if (!forking) return null;
  return (
    <Modal title={`Fork from ${short(forking.commit_hash)}`} onClose={fork.cancel}>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          void fork.submit();
        }}
      >
        <p className="muted small">
          A new branch starts from “{forking.message}”; the messages after it stay on this branch.
        </p>
        <label htmlFor="chat-fork-branch">Branch name (empty for a generated one)</label>
        <input id="chat-fork-branch" value={fork.branch} onChange={(e) => fork.setBranch(e.target.value)} style={{ width: "100%" }} />
        {fork.error && (
          <p className="error" role="alert">
            {fork.error}
          </p>
        )}
        <div className="row" style={{ marginTop: "0.8rem" }}>
          <button className="primary" type="submit">
            Create branch
          </button>
          <button type="button" onClick={fork.cancel}>
            Cancel
          </button>
        </div>
      </form>
    </Modal>
  );
}
