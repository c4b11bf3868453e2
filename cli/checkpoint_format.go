package cli

import (
	"os"

	"smriti"
	"smriti/httpapi"
)

// viewOptions are the checkpoint view options of the CLI: the local clock
// and home directory, and the flag that shows artifacts in full.
func viewOptions(full bool) smriti.CheckpointRenderOptions {
	home, _ := os.UserHomeDir()
	return smriti.CheckpointRenderOptions{Now: now(), Home: home, FullArtifacts: full, FullHint: "--full-artifacts"}
}

// formatCheckpoint is `checkpoint show`.
func formatCheckpoint(c *httpapi.Commit, full bool) string {
	return smriti.RenderCheckpoint(c.Checkpoint(), viewOptions(full))
}

// formatCheckpointList is `checkpoint list`.
func formatCheckpointList(cps []httpapi.Commit) string {
	out := make([]*smriti.Checkpoint, len(cps))
	for i := range cps {
		out[i] = cps[i].Checkpoint()
	}
	return smriti.RenderCheckpointList(out, now())
}

// formatReview is `checkpoint review`.
func formatReview(r *httpapi.ReviewOut) string {
	return smriti.RenderReview(r.Review())
}
