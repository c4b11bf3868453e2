import { Link } from "react-router-dom";
import type { Proposal } from "../lib/proposals";

/** What the checkpoint dialog shows once its draft was saved for later: where it waits. */
export function SavedForLater({ proposal }: { proposal: Proposal }) {
  return (
    <div data-testid="saved-for-later">
      <p>
        “{proposal.title}” waits in the inbox as proposal <span className="mono">{proposal.id.slice(0, 8)}</span> on{" "}
        <span className="badge">{proposal.branch_name}</span>: it becomes a checkpoint when someone accepts it.
      </p>
      <div className="row">
        <Link to={`/spaces/${proposal.repo_id}/proposals`} data-autofocus>
          Open the inbox
        </Link>
      </div>
    </div>
  );
}
