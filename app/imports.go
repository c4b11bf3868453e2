package app

import (
	"context"
	"io"

	"smriti"
	"smriti/intelligence"
	"smriti/portability"
)

// ImportTranscripts imports chat exports into a space; drafting a
// checkpoint for each conversation is LLM-backed and passes the gate.
func (a *App) ImportTranscripts(ctx context.Context, body io.Reader, in portability.TranscriptImport) ([]portability.ImportedConversation, error) {
	if in.Draft {
		if err := a.gate.Admit(ctx, in.SpaceID); err != nil {
			return nil, err
		}
	}
	return a.transcripts.Import(ctx, body, in)
}

// ImportAgentTranscript imports a coding agent's transcript into a space.
// Values on the space's allowlist are kept, as at every door.
func (a *App) ImportAgentTranscript(ctx context.Context, body io.Reader, in portability.AgentImport) (*portability.AgentImportResult, error) {
	in.Allowed = a.allowlist(ctx, func() (smriti.ID, error) { return in.SpaceID, nil })
	return portability.ImportAgentTranscript(ctx, a.store, body, in)
}

// draftImported drafts a checkpoint from an imported session's turns
// alone and saves it (Save) as a change over the head it drafted on, so a
// checkpoint saved on the branch meanwhile is rebased onto, never
// overwritten (or the conflict is reported for that conversation); the
// drafting model is its author.
func (a *App) draftImported(ctx context.Context, spaceID, sessionID smriti.ID) (*smriti.ID, error) {
	n := intelligence.MaxDraftTurns
	res, err := a.intel.Draft(ctx, intelligence.DraftRequest{SessionID: sessionID, NumTurns: &n})
	if err != nil {
		return nil, err
	}
	out, err := a.Save(ctx, SaveRequest{CheckpointCommit: smriti.CheckpointCommit{SpaceID: spaceID, SessionID: sessionID}, drafted: res})
	if err != nil {
		return nil, err
	}
	cp := out.Checkpoint
	return &cp.ID, nil
}
