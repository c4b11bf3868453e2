import { Link } from "react-router-dom";
import { short, type Draft } from "../../api";
import { CheckpointForm } from "../../components/CheckpointForm";
import { RebasedNotice } from "../../components/ConflictDialog";
import { Modal } from "../../components/Modal";
import { SavedForLater } from "../../components/SavedForLater";
import type { useCheckpointPanel } from "./useCheckpointPanel";

/**
 * The chat's checkpoint dialogs: the form (with Draft with AI when a
 * background model is there), the saved checkpoint with its review, and
 * a draft saved for later.
 */
export function CheckpointModal({ panel, draftAvailable, onDraft }: { panel: ReturnType<typeof useCheckpointPanel>; draftAvailable: boolean; onDraft: () => Promise<Draft> }) {
  const { saved, later } = panel;
  return (
    <>
      {later && (
        <Modal title="Saved for later" onClose={panel.closeLater}>
          <SavedForLater proposal={later} />
        </Modal>
      )}
      {(panel.creating || saved) && (
        <Modal title={saved ? "Checkpoint saved" : "Create checkpoint"} wide={!saved} onClose={panel.close}>
          {saved ? (
            <>
              <p>
                <span className="mono">{short(saved.cp.commit_hash)}</span> on <span className="badge">{saved.cp.branch_name}</span>: {saved.cp.message}
              </p>
              {panel.rebased && <RebasedNotice head={panel.rebased.head} base={panel.rebased.base} />}
              <div className="row">
                <button onClick={panel.review} data-autofocus>
                  Review it
                </button>
                <Link to={`/checkpoints/${saved.cp.id}`}>Open details</Link>
              </div>
              {saved.reviewError && <p className="error">{saved.reviewError}</p>}
              {saved.review && (
                <div data-testid="review">
                  <h3>Issues</h3>
                  {saved.review.issues.length === 0 ? (
                    <p>None found.</p>
                  ) : (
                    <ul>
                      {saved.review.issues.map((i, k) => (
                        <li key={k}>
                          <span className="badge">{i.type}</span> {i.description}
                        </li>
                      ))}
                    </ul>
                  )}
                  <h3>Suggestions</h3>
                  {saved.review.suggestions.length === 0 ? <p>None.</p> : <ul>{saved.review.suggestions.map((s, k) => <li key={k}>{s}</li>)}</ul>}
                </div>
              )}
            </>
          ) : (
            <CheckpointForm base={panel.formBase} draftAvailable={draftAvailable} onDraft={onDraft} onSubmit={panel.saveCheckpoint} onSaveForLater={panel.saveForLater} />
          )}
        </Modal>
      )}
    </>
  );
}
