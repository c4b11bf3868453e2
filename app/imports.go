package app

import (
	"context"
	"io"

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
