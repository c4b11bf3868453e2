package app

import (
	"context"

	"smriti"
	"smriti/intelligence"
)

// Draft proposes a checkpoint from a session's recent turns.
func (a *App) Draft(ctx context.Context, req intelligence.DraftRequest) (*intelligence.DraftResult, error) {
	if err := a.gate.Admit(ctx, req.SessionID); err != nil {
		return nil, err
	}
	return a.intel.Draft(ctx, req)
}

// ExtractRequest asks for a checkpoint extracted from a document.
type ExtractRequest struct {
	// Space is the space the checkpoint is for, when known: the gate checks
	// the caller's role in it before any provider is called.
	Space *smriti.ID
	// Content is the document; nil is EUNPROCESSABLE ("content is
	// required"), answered after the gate like every other refusal of an
	// LLM-backed call.
	Content *string
	UseMock bool
	// Onto is the checkpoint the document changes (nil: every item new).
	Onto *smriti.ID
}

// Extract proposes a checkpoint from a document, as changes onto req.Onto.
func (a *App) Extract(ctx context.Context, req ExtractRequest) (*intelligence.DraftResult, error) {
	var ids []smriti.ID
	if req.Space != nil {
		ids = append(ids, *req.Space)
	}
	if req.Onto != nil {
		ids = append(ids, *req.Onto)
	}
	if err := a.gate.Admit(ctx, ids...); err != nil {
		return nil, err
	}
	if req.Content == nil {
		return nil, smriti.Errorf(smriti.EUNPROCESSABLE, "content is required")
	}
	return a.intel.Extract(ctx, intelligence.ExtractRequest{Markdown: *req.Content, UseMock: req.UseMock, Onto: req.Onto})
}

// Review checks a checkpoint for contradictions and suspicious content.
func (a *App) Review(ctx context.Context, id smriti.ID) (*intelligence.Review, error) {
	if err := a.gate.Admit(ctx, id); err != nil {
		return nil, err
	}
	return a.intel.Review(ctx, id)
}

// Title names a session from its first exchange.
func (a *App) Title(ctx context.Context, session smriti.ID) (*smriti.Session, error) {
	if err := a.gate.Admit(ctx, session); err != nil {
		return nil, err
	}
	return a.intel.Title(ctx, session)
}
