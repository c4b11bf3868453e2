package portability

import (
	"context"
	"io"
	"path"
	"smriti"
	"smriti/internal/textutil"
	"strings"
)

// AgentImport imports one coding agent's transcript into a space.
type AgentImport struct {
	SpaceID smriti.ID
	Format  string
	// Filename names the file in the session's metadata; its base name
	// without extension is the session key when the file names none.
	Filename string
	// SessionKey, when set, overrides the session id the file names (a
	// hook knows it from its input).
	SessionKey string
	// Allowed, when set, is the space's allowlist: the values it keeps
	// although they look like secrets.
	Allowed func(rule, fingerprint string) bool
}

// AgentImportResult reports an agent transcript import.
type AgentImportResult struct {
	AgentTranscriptInfo
	SessionID smriti.ID `json:"session_id"`
	// Created is true when this import created the session.
	Created bool `json:"created"`
	// Added counts the turns written by this import; Unchanged the
	// entries imported before.
	Added     int `json:"added"`
	Unchanged int `json:"unchanged"`
}

// AgentTranscriptStore appends a coding agent's transcript to a session.
type AgentTranscriptStore interface {
	// AppendAgentEntries finds the space's session for (source, key), or
	// creates it titled title, and appends as turns the entries whose keys
	// it has not stored before, in one transaction. It returns the session,
	// whether it was created, and how many entries were written. ENOTFOUND
	// for a space the caller may not see; EFORBIDDEN without write access.
	AppendAgentEntries(ctx context.Context, spaceID smriti.ID, source, key, title string, entries []AgentEntry) (s *smriti.Session, created bool, added int, err error)
}

// agentBatch is how many entries one transaction writes.
const agentBatch = 256

// ImportAgentTranscript streams a coding agent's transcript into the
// space's session for that agent session, a batch of entries per
// transaction; entries imported before are left as they are.
func ImportAgentTranscript(ctx context.Context, st AgentTranscriptStore, r io.Reader, in AgentImport) (*AgentImportResult, error) {
	if !ValidAgentFormat(in.Format) {
		return nil, smriti.Errorf(smriti.EINVALID, "unknown transcript format %q: use claude-code or codex", textutil.Truncate(in.Format, 40))
	}
	res := &AgentImportResult{}
	var batch []AgentEntry
	var info *AgentTranscriptInfo
	key := strings.TrimSpace(in.SessionKey)
	title := func() string {
		base := strings.TrimSuffix(path.Base(strings.ReplaceAll(in.Filename, "\\", "/")), ".jsonl")
		name := map[string]string{SourceClaudeCode: "Claude Code", SourceCodex: "Codex"}[in.Format]
		if base == "" || base == "." || base == "/" {
			return name + " session"
		}
		return textutil.Truncate(name+" session "+base, MaxImportTitleChars)
	}
	flush := func() error {
		if len(batch) == 0 && res.SessionID != (smriti.ID{}) {
			return nil
		}
		k := key
		if k == "" && info != nil {
			k = info.SessionKey
		}
		if k == "" {
			k = strings.TrimSuffix(path.Base(strings.ReplaceAll(in.Filename, "\\", "/")), ".jsonl")
		}
		if k == "" || k == "." {
			return smriti.Errorf(smriti.EUNPROCESSABLE, "the transcript names no session id; pass one")
		}
		key = textutil.Truncate(k, MaxAgentSessionKey)
		s, created, added, err := st.AppendAgentEntries(ctx, in.SpaceID, in.Format, key, title(), batch)
		if err != nil {
			return err
		}
		res.SessionID = s.ID
		res.Created = res.Created || created
		res.Added += added
		res.Unchanged += len(batch) - added
		batch = batch[:0]
		return nil
	}
	info, err := ReadAgentTranscriptAllowing(r, in.Format, in.Allowed, func(e AgentEntry, seen *AgentTranscriptInfo) error {
		batch = append(batch, e)
		if len(batch) >= agentBatch {
			info = seen
			return flush()
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if err := flush(); err != nil {
		return nil, err
	}
	res.AgentTranscriptInfo = *info
	return res, nil
}
