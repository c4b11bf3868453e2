package portability

import (
	"context"
	"errors"
	"fmt"
	"io"
	"smriti"
	"smriti/internal/textutil"
	"smriti/secrets"
)

// TranscriptImporter turns transcript files into sessions of a space.
type TranscriptImporter struct {
	Store TranscriptStore
	// Draft drafts and saves a checkpoint from one imported session alone
	// and returns its id; it is called for TranscriptImport.Draft, and is
	// the use-case layer's (an LLM-backed call and a commit).
	Draft func(ctx context.Context, spaceID, sessionID smriti.ID) (*smriti.ID, error)
	// Allowed, when set, is the allowlist of a space: the values it keeps
	// although they look like secrets.
	Allowed func(ctx context.Context, spaceID smriti.ID) func(rule, fingerprint string) bool
}

// Import reads the transcript from r and imports each conversation: a new
// session with its turns, then, when asked, a checkpoint drafted by the
// background intelligence from that session alone (the draft's isolation and
// poisoning defences apply). A conversation that fails to parse or to draft
// is reported with its error and the rest go on; one imported before is
// reported unchanged and nothing is written for it. The error is for the
// file as a whole: an unknown space, or JSON that cannot be read past.
func (im *TranscriptImporter) Import(ctx context.Context, r io.Reader, in TranscriptImport) ([]ImportedConversation, error) {
	out := []ImportedConversation{}
	redact := redactSecrets
	if im.Allowed != nil {
		allowed := im.Allowed(ctx, in.SpaceID)
		redact = func(s string) string {
			var keep []secrets.Finding
			for _, f := range secrets.Find(s) {
				if !allowed(f.Rule, f.Fingerprint) {
					keep = append(keep, f)
				}
			}
			return secrets.Apply(s, keep)
		}
	}
	err := ReadTranscripts(r, in.Filename, func(i int, c *Conversation, perr error) error {
		rep := ImportedConversation{Index: i, Status: ImportFailed}
		if c != nil {
			rep.Title, rep.Source, rep.Turns = textutil.Truncate(c.Title, MaxImportTitleChars), c.Source, len(c.Turns)
			rep.ContentHash = c.ContentHash()
		}
		fail := func(err error) error {
			if smriti.ErrorCode(err) == smriti.EINTERNAL || errors.Is(err, context.Canceled) {
				return err
			}
			msg := smriti.ErrorMessage(err)
			rep.Error = &msg
			out = append(out, rep)
			return nil
		}
		if perr != nil {
			return fail(perr)
		}
		// Secrets never become state: each message is redacted before it
		// is stored (and so before a draft gives it to the model).
		c.Title = redact(c.Title)
		for i := range c.Turns {
			c.Turns[i].Content = redact(c.Turns[i].Content)
		}
		s, created, err := im.Store.ImportConversation(ctx, in.SpaceID, c, in.Filename)
		if smriti.ErrorCode(err) == smriti.ENOTFOUND {
			return err // the space: nothing of this file can be imported
		}
		if err != nil {
			return fail(err)
		}
		if s != nil {
			rep.SessionID = &s.ID
		}
		rep.Status = ImportImported
		if !created {
			rep.Status = ImportUnchanged
		}
		if created && in.Draft && len(c.Turns) > 0 {
			id, err := im.Draft(ctx, in.SpaceID, s.ID)
			if cc, ok := smriti.ErrorData(err).(*smriti.CommitConflict); ok {
				// Nothing to send again from here: the turns stay unsaved,
				// and a new draft of the session starts from the head.
				msg := fmt.Sprintf("imported, but the drafted checkpoint was not saved: a checkpoint saved meanwhile (%s) changed %d of the same item(s); "+
					"the session's turns stay unsaved — draft session %s again to build on the new head", cc.HeadCheckpointID, len(cc.Conflicts), s.ID)
				rep.Error = &msg
			} else if err != nil {
				msg := "imported, but drafting a checkpoint failed: " + smriti.ErrorMessage(err)
				rep.Error = &msg
			}
			rep.CheckpointID = id
		}
		out = append(out, rep)
		return nil
	})
	return out, err
}
