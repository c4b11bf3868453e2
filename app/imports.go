package app

import (
	"context"
	"io"
	"strings"

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
func (a *App) ImportAgentTranscript(ctx context.Context, body io.Reader, in portability.AgentImport) (*portability.AgentImportResult, error) {
	return portability.ImportAgentTranscript(ctx, a.store, body, in)
}

// draftImported drafts a checkpoint from an imported session's turns
// alone and saves it as a change over the head it drafted on, so a
// checkpoint saved on the branch meanwhile is rebased onto, never
// overwritten (or the conflict is reported for that conversation).
func (a *App) draftImported(ctx context.Context, spaceID, sessionID smriti.ID) (*smriti.ID, error) {
	n := intelligence.MaxDraftTurns
	res, err := a.intel.Draft(ctx, intelligence.DraftRequest{SessionID: sessionID, NumTurns: &n})
	if err != nil {
		return nil, err
	}
	content := res.Draft.Content()
	if strings.TrimSpace(content.Message) == "" {
		content.Message = "Imported conversation"
	}
	in := smriti.CheckpointCommit{SpaceID: spaceID, SessionID: sessionID, Content: content, SourceTurns: res.SourceTurns, Items: res.Items}
	if res.Base != nil {
		in.BaseCheckpointID = &res.Base.ID
	}
	if res.Model != "" {
		in.Model = &res.Model
	}
	rs := a.redactor(ctx, spaceID)
	rs.content(&in.Content)
	rs.items(in.Items)
	cp, err := a.store.CommitCheckpoint(ctx, in)
	if err != nil {
		return nil, err
	}
	return &cp.ID, nil
}
