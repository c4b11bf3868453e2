package wire

import (
	"smriti/portability"
	"smriti/search"

	"smriti"
)

// TranscriptImportResponse reports what became of each conversation.
type TranscriptImportResponse struct {
	SpaceID       smriti.ID                          `json:"space_id" doc:"The space imported into"`
	Imported      int                                `json:"imported" doc:"Conversations written"`
	Unchanged     int                                `json:"unchanged" doc:"Conversations imported before (nothing written)"`
	Failed        int                                `json:"failed" doc:"Conversations that could not be read"`
	Conversations []portability.ImportedConversation `json:"conversations" doc:"Each conversation in the file's order"`
	Agent         *AgentImport                       `json:"agent,omitempty" doc:"For a coding agent's transcript (format claude-code or codex): the session it was appended to and what was added; absent for other formats"`
}

// AgentImport reports a coding agent's transcript import.
type AgentImport struct {
	Source     string    `json:"source" enum:"claude-code,codex" doc:"The transcript format"`
	SessionKey string    `json:"session_key" doc:"The agent's own session id (from the file, the session_key parameter, or the file name)"`
	SessionID  smriti.ID `json:"session_id" doc:"The space's session holding this agent session's turns; every import of the same agent session appends to it"`
	Created    bool      `json:"created" doc:"True when this import created the session"`
	Added      int       `json:"added" doc:"Turns written by this import"`
	Unchanged  int       `json:"unchanged" doc:"Entries already imported before (matched by message uuid or line hash), left as they were"`
	Lines      int       `json:"lines" doc:"Lines read from the file"`
	Skipped    int       `json:"skipped" doc:"Lines that were not JSON, too long, or held nothing worth a turn"`
	Truncated  bool      `json:"truncated" doc:"True when the last line was cut off (a file still being written); it is imported next time"`
}

// SpaceImportResponse is the space an imported bundle became.
type SpaceImportResponse struct {
	Repo   Repo                     `json:"repo" doc:"The space written"`
	Counts portability.BundleCounts `json:"counts" doc:"What the bundle held"`
	AsNew  bool                     `json:"as_new" doc:"True when imported with ?as_new=true: new ids and recomputed hashes, lineage kept"`
}

// SearchResponse lists search hits, best first.
type SearchResponse struct {
	Query   string              `json:"query" doc:"The query as searched"`
	Results []*search.SearchHit `json:"results" doc:"The hits, best first"`
}

// SearchGroupsResponse lists grouped search results, best first.
type SearchGroupsResponse struct {
	Query   string               `json:"query" doc:"The query as searched"`
	Results []search.SearchGroup `json:"results" doc:"One result per item (with the checkpoints it lives in), turn, note or checkpoint matched outside its items; best first"`
}
