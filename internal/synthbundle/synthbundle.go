// Package synthbundle writes large synthetic space bundles for benchmarks
// and load scripts (a chain of checkpoints with many items, sessions with
// many turns), with real ids and hashes, so a bundle imports and verifies
// as an exported one does.
package synthbundle

import (
	"fmt"
	"os"
	"time"

	"smriti"
	"smriti/portability"
	"smriti/records"
)

// WriteFile writes a bundle of a space of n checkpoints (a chain, each with items items,
// one item changed per checkpoint) and turns turns over 100 sessions.
func WriteFile(path string, n, items, turns int) (smriti.ID, error) {
	return WriteFileWith(path, n, items, turns, func(k, s int) string {
		return fmt.Sprintf("Turn %d of session %d: a message of ordinary length about the plan.", k, s)
	})
}

// WriteFileWith is WriteFile with each turn's content given by text(turn
// number in its session, session number).
func WriteFileWith(path string, n, items, turns int, text func(k, s int) string) (smriti.ID, error) {
	f, err := os.Create(path)
	if err != nil {
		return smriti.NilID, err
	}
	defer f.Close()
	w, err := portability.NewBundleWriter(f)
	if err != nil {
		return smriti.NilID, err
	}
	space := smriti.NewID()
	t0 := time.Now().UTC().Add(-time.Hour).Truncate(time.Microsecond)
	if err := w.Write(records.BundleRecord{Type: records.RecordSpace, Space: &records.BundleSpace{ID: space, Name: "syncload " + space.String()[:8],
		Metadata: map[string]any{}, CreatedAt: t0, UpdatedAt: t0}}); err != nil {
		return smriti.NilID, err
	}
	counts := records.BundleCounts{}
	texts := make([]string, items)
	for i := range texts {
		texts[i] = fmt.Sprintf("Decision %d: keep the service behind the load balancer, version 0", i)
	}
	var parent *smriti.ID
	parentHash := ""
	order := int64(0)
	for c := 0; c < n; c++ {
		texts[c%items] = fmt.Sprintf("Decision %d: keep the service behind the load balancer, version %d", c%items, c)
		cp := &smriti.Checkpoint{ID: smriti.NewID(), SpaceID: space, ParentID: parent, BranchName: "main", AuthorType: "user",
			Content: smriti.Content{Message: fmt.Sprintf("Checkpoint %d", c), Decisions: append([]string(nil), texts...), Assumptions: []string{},
				Tasks: []smriti.Task{}, OpenQuestions: []string{}, Entities: []string{}, Artifacts: []smriti.Artifact{}},
			ContextBlob: map[string]any{}, Metadata: map[string]any{}, CreatedAt: t0.Add(time.Duration(c) * time.Millisecond), HashVersion: smriti.CurrentHashVersion}
		for i, tx := range texts {
			cp.Items = append(cp.Items, smriti.Item{ID: fmt.Sprintf("d-%06x", i), Kind: smriti.KindDecision, Text: tx, Status: smriti.ItemOpen,
				Supersedes: []string{}})
		}
		cp.Hash = cp.ComputeHash(parentHash, "")
		b := records.BundleCheckpointOf(cp)
		o := order
		b.LogOrder = &o
		order++
		if err := w.Write(records.BundleRecord{Type: records.RecordCheckpoint, Checkpoint: b}); err != nil {
			return smriti.NilID, err
		}
		counts.Checkpoints++
		id := cp.ID
		parent, parentHash = &id, cp.Hash
	}
	perSession := turns / 100
	for s := 0; s < 100 && perSession > 0; s++ {
		sid := smriti.NewID()
		if err := w.Write(records.BundleRecord{Type: records.RecordSession, Session: &records.BundleSession{ID: sid, Title: fmt.Sprintf("Session %d", s),
			ActiveProvider: "mock", ActiveModel: "mock", BranchName: "main", BranchDisposition: "active", Metadata: map[string]any{},
			CreatedAt: t0, UpdatedAt: t0}}); err != nil {
			return smriti.NilID, err
		}
		counts.Sessions++
		for k := 0; k < perSession; k++ {
			role := "user"
			if k%2 == 1 {
				role = "assistant"
			}
			o := order
			order++
			if err := w.Write(records.BundleRecord{Type: records.RecordTurn, Turn: &records.BundleTurn{ID: smriti.NewID(), SessionID: sid, Seq: int64(k),
				Role: role, Content: text(k, s), Provider: "mock", Model: "mock",
				Tokens: 16, Metadata: map[string]any{}, CreatedAt: t0, LogOrder: &o}}); err != nil {
				return smriti.NilID, err
			}
			counts.Turns++
		}
	}
	if err := w.Write(records.BundleRecord{Type: records.RecordEnd, End: &counts}); err != nil {
		return smriti.NilID, err
	}
	return space, w.Close()
}
