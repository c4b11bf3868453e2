package portability

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"smriti"
	"smriti/internal/textutil"
	"smriti/records"
	"smriti/secrets"
	"strings"
	"unicode/utf8"
)

// Coding-agent transcript formats: the JSON Lines files Claude Code and
// Codex append to as a session goes on.
const (
	SourceClaudeCode = records.SourceClaudeCode
	SourceCodex      = records.SourceCodex
)

// Kinds of agent transcript entries.
const (
	// AgentMessage is a user or assistant message.
	AgentMessage = "message"
	// AgentTool is a tool call or its result, summarised on one line.
	AgentTool = "tool"
	// AgentNote is a compaction summary the agent's host wrote.
	AgentNote = "note"
)

// Agent transcript limits.
const (
	// maxAgentLine bounds one line of a transcript; a longer line (a tool
	// result holding a whole file, an image) is skipped, never held whole.
	maxAgentLine = 8 << 20
	// maxToolTarget bounds the target shown on a tool line.
	maxToolTarget = 160
	// MaxAgentSessionKey bounds the agent's own session id.
	MaxAgentSessionKey = 200
)

// AgentEntry is one entry of a coding agent's transcript worth a turn.
type AgentEntry = records.AgentEntry

// AgentTranscriptInfo is what reading a transcript learned about it.
type AgentTranscriptInfo struct {
	Source string `json:"source"`
	// SessionKey is the agent's own session id ("" when the file names none).
	SessionKey string `json:"session_key"`
	Cwd        string `json:"cwd,omitempty"`
	// Lines counts the lines read; Skipped those that were not JSON, were
	// too long, or held nothing to keep.
	Lines   int `json:"lines"`
	Skipped int `json:"skipped"`
	// Truncated is true when the last line was cut off (a file still being
	// written): it is left for the next import.
	Truncated bool `json:"truncated"`
}

// ValidAgentFormat reports whether f names a coding-agent transcript format.
func ValidAgentFormat(f string) bool { return records.ValidAgentFormat(f) }

// ReadAgentTranscript reads a coding agent's JSON Lines transcript as a
// stream, one line at a time (memory is bounded by maxAgentLine, not the
// file), and calls fn for each entry worth a turn, in file order, with what
// has been learned of the file so far. Lines that
// are not JSON or are too long are counted as skipped; a cut-off last line
// is tolerated. Every text passed to fn has had secrets redacted. The error
// is fn's, a read error, or EINVALID for an unknown format.
func ReadAgentTranscript(r io.Reader, format string, fn func(AgentEntry, *AgentTranscriptInfo) error) (*AgentTranscriptInfo, error) {
	return ReadAgentTranscriptAllowing(r, format, nil, fn)
}

// ReadAgentTranscriptAllowing is ReadAgentTranscript that keeps, in an
// entry's content, the values a space's allowlist keeps (allowed; nil keeps
// none). Keys that name an entry by its content (a stand-in's, and what an
// assistant message covers) are taken from the content with every secret
// redacted, so they do not change with the allowlist, and a hook, which
// reads without one, names the same entries.
func ReadAgentTranscriptAllowing(r io.Reader, format string, allowed func(rule, fingerprint string) bool, fn func(AgentEntry, *AgentTranscriptInfo) error) (*AgentTranscriptInfo, error) {
	var p agentParser
	switch format {
	case SourceClaudeCode:
		p = &claudeCodeParser{tools: map[string]string{}}
	case SourceCodex:
		p = &codexParser{tools: map[string]string{}}
	default:
		return nil, smriti.Errorf(smriti.EINVALID, "unknown transcript format %q: use claude-code or codex", textutil.Truncate(format, 40))
	}
	info := &AgentTranscriptInfo{Source: format}
	br := bufio.NewReaderSize(r, 64<<10)
	var line []byte
	for {
		var tooLong, last bool
		var err error
		line, tooLong, last, err = readAgentLine(br, line[:0])
		if err != nil {
			return info, smriti.Errorf(smriti.EINVALID, "could not read the transcript: %v", err)
		}
		line = bytes.TrimSpace(line)
		if len(line) > 0 || tooLong {
			info.Lines++
			switch {
			case tooLong:
				info.Skipped++
			case !json.Valid(line):
				if last {
					info.Truncated = true
				} else {
					info.Skipped++
				}
			default:
				standIn, isStandIn := parseStandIn(line)
				entries := []AgentEntry{standIn}
				if !isStandIn {
					entries = p.parse(line, info)
				}
				if len(entries) == 0 {
					info.Skipped++
				}
				for _, e := range entries {
					var named string
					e.Content, named = redactAllowing(strings.ToValidUTF8(e.Content, "\uFFFD"), allowed)
					switch {
					case isStandIn:
						e.Key = StandInKey(named)
					case e.Kind == AgentMessage && e.Role == smriti.RoleAssistant:
						e.Covers = StandInKey(named)
					}
					if err := fn(e, info); err != nil {
						return info, err
					}
				}
			}
		}
		if last {
			return info, nil
		}
	}
}

// readAgentLine appends the next line to buf without its newline; a line
// longer than maxAgentLine is consumed and dropped (tooLong). last is true
// at the end of the input.
func readAgentLine(br *bufio.Reader, buf []byte) (line []byte, tooLong, last bool, err error) {
	for {
		chunk, err := br.ReadSlice('\n')
		if !tooLong {
			if len(buf)+len(chunk) > maxAgentLine {
				tooLong, buf = true, buf[:0]
			} else {
				buf = append(buf, chunk...)
			}
		}
		switch {
		case err == nil:
			return buf, tooLong, false, nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case errors.Is(err, io.EOF):
			return buf, tooLong, true, nil
		default:
			return nil, false, false, err
		}
	}
}

type agentParser interface {
	parse(line []byte, info *AgentTranscriptInfo) []AgentEntry
}

// claudeCodeParser reads Claude Code's session files (one JSON object a
// line: "user" and "assistant" entries carrying an Anthropic Messages API
// message, "summary" entries, "system" events). Tool results name their
// call by id; tools maps each call id to its "name target" so a result can
// say what it answers.
type claudeCodeParser struct {
	tools map[string]string
}

type claudeCodeLine struct {
	Type             string          `json:"type"`
	UUID             string          `json:"uuid"`
	SessionID        string          `json:"sessionId"`
	Cwd              string          `json:"cwd"`
	Timestamp        string          `json:"timestamp"`
	IsMeta           bool            `json:"isMeta"`
	IsSidechain      bool            `json:"isSidechain"`
	IsCompactSummary bool            `json:"isCompactSummary"`
	Summary          string          `json:"summary"`
	LeafUUID         string          `json:"leafUuid"`
	Message          json.RawMessage `json:"message"`
}

type claudeCodeMessage struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
}

type claudeCodeBlock struct {
	Type      string          `json:"type"`
	Text      string          `json:"text"`
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Input     json.RawMessage `json:"input"`
	ToolUseID string          `json:"tool_use_id"`
	Content   json.RawMessage `json:"content"`
	IsError   bool            `json:"is_error"`
}

func (p *claudeCodeParser) parse(line []byte, info *AgentTranscriptInfo) []AgentEntry {
	var l claudeCodeLine
	if json.Unmarshal(line, &l) != nil {
		return nil
	}
	if info.SessionKey == "" && l.SessionID != "" && !l.IsSidechain {
		info.SessionKey = textutil.Truncate(l.SessionID, MaxAgentSessionKey)
	}
	if info.Cwd == "" && l.Cwd != "" {
		info.Cwd = l.Cwd
	}
	at, _ := isoTime(&l.Timestamp)
	if l.Timestamp == "" {
		at = nil
	}
	switch l.Type {
	case "summary":
		if strings.TrimSpace(l.Summary) == "" {
			return nil
		}
		key := "summary:" + l.LeafUUID
		if l.LeafUUID == "" {
			key = "summary:" + lineHash([]byte(l.Summary))
		}
		return []AgentEntry{{Key: key, Kind: AgentNote, Role: smriti.RoleSystem, Content: "Session summary: " + l.Summary, CreatedAt: at}}
	case "user", "assistant":
	default:
		return nil
	}
	// Sidechains are a subagent's own conversation; meta lines are the
	// host's plumbing (command caveats), not the user speaking.
	if l.IsSidechain || l.IsMeta || l.UUID == "" || len(l.Message) == 0 {
		return nil
	}
	var m claudeCodeMessage
	if json.Unmarshal(l.Message, &m) != nil {
		return nil
	}
	role := smriti.RoleUser
	if l.Type == "assistant" {
		role = smriti.RoleAssistant
	}
	var text string
	var blocks []claudeCodeBlock
	if len(m.Content) > 0 && m.Content[0] == '"' {
		_ = json.Unmarshal(m.Content, &text)
	} else {
		_ = json.Unmarshal(m.Content, &blocks)
	}
	if l.IsCompactSummary {
		for _, b := range blocks {
			if b.Type == "text" {
				text += b.Text
			}
		}
		text = hostMetaBlock.ReplaceAllString(text, "")
		if strings.TrimSpace(text) == "" {
			return nil
		}
		return []AgentEntry{{Key: l.UUID, Kind: AgentNote, Role: smriti.RoleSystem, Content: "Compaction summary: " + strings.TrimSpace(text), CreatedAt: at}}
	}
	var out []AgentEntry
	var texts []string
	keep := strings.TrimSpace
	if role == smriti.RoleUser {
		keep = userText
	}
	if s := keep(text); s != "" {
		texts = append(texts, s)
	}
	var tools []string
	var results []string
	for _, b := range blocks {
		switch b.Type {
		case "text":
			if s := keep(b.Text); s != "" {
				texts = append(texts, s)
			}
		case "tool_use":
			call := toolCallLine(b.Name, b.Input)
			p.tools[b.ID] = call
			tools = append(tools, "Tool call: "+call)
		case "tool_result":
			call := p.tools[b.ToolUseID]
			if call == "" {
				call = "a tool"
			}
			results = append(results, "Tool result: "+call+" → "+toolOutcome(b.IsError, blockText(b.Content)))
		}
	}
	if len(texts) > 0 {
		out = append(out, AgentEntry{Key: l.UUID, Kind: AgentMessage, Role: role, Content: strings.Join(texts, "\n\n"), CreatedAt: at})
	}
	if len(tools) > 0 {
		out = append(out, AgentEntry{Key: l.UUID + ":tools", Kind: AgentTool, Role: smriti.RoleAssistant, Content: strings.Join(tools, "\n"), CreatedAt: at})
	}
	if len(results) > 0 {
		out = append(out, AgentEntry{Key: l.UUID + ":results", Kind: AgentTool, Role: smriti.RoleSystem, Content: strings.Join(results, "\n"), CreatedAt: at})
	}
	return out
}

// blockText is the text of a tool result's content: a string or a list of
// content blocks (whose non-text parts, images, are left out).
func blockText(raw json.RawMessage) string {
	if len(raw) == 0 {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var blocks []claudeCodeBlock
	_ = json.Unmarshal(raw, &blocks)
	var b strings.Builder
	for _, bl := range blocks {
		if bl.Type == "text" {
			b.WriteString(bl.Text)
		}
	}
	return b.String()
}

// codexParser reads Codex session ("rollout") files: one JSON object a line
// with a timestamp, a type (session_meta, response_item, event_msg,
// turn_context, compacted) and a payload. Messages and tool calls are taken
// from response_item lines only: event_msg lines repeat them for the UI.
type codexParser struct {
	tools map[string]string
}

type codexLine struct {
	Timestamp string          `json:"timestamp"`
	Type      string          `json:"type"`
	Payload   json.RawMessage `json:"payload"`
}

type codexPayload struct {
	Type      string          `json:"type"`
	ID        string          `json:"id"`
	Cwd       string          `json:"cwd"`
	Role      string          `json:"role"`
	Content   json.RawMessage `json:"content"`
	Name      string          `json:"name"`
	Arguments string          `json:"arguments"`
	Input     string          `json:"input"`
	CallID    string          `json:"call_id"`
	Output    json.RawMessage `json:"output"`
	Message   string          `json:"message"`
	Action    *struct {
		Command []string `json:"command"`
	} `json:"action"`
}

func (p *codexParser) parse(line []byte, info *AgentTranscriptInfo) []AgentEntry {
	var l codexLine
	if json.Unmarshal(line, &l) != nil || len(l.Payload) == 0 {
		return nil
	}
	var pl codexPayload
	if json.Unmarshal(l.Payload, &pl) != nil {
		return nil
	}
	at, _ := isoTime(&l.Timestamp)
	if l.Timestamp == "" {
		at = nil
	}
	key := lineHash(line)
	switch l.Type {
	case "session_meta":
		if info.SessionKey == "" && pl.ID != "" {
			info.SessionKey = textutil.Truncate(pl.ID, MaxAgentSessionKey)
		}
		if info.Cwd == "" {
			info.Cwd = pl.Cwd
		}
		return nil
	case "compacted":
		if strings.TrimSpace(pl.Message) == "" {
			return nil
		}
		return []AgentEntry{{Key: key, Kind: AgentNote, Role: smriti.RoleSystem, Content: "Compaction summary: " + strings.TrimSpace(pl.Message), CreatedAt: at}}
	case "response_item":
	default:
		return nil
	}
	switch pl.Type {
	case "message":
		if pl.Role != smriti.RoleUser && pl.Role != smriti.RoleAssistant {
			return nil // developer and system prompts
		}
		var parts []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		}
		_ = json.Unmarshal(pl.Content, &parts)
		var texts []string
		for _, c := range parts {
			s := strings.TrimSpace(c.Text)
			if pl.Role == smriti.RoleUser {
				s = userText(s) // the context Codex injects as user messages
			}
			if s != "" {
				texts = append(texts, s)
			}
		}
		if len(texts) == 0 {
			return nil
		}
		return []AgentEntry{{Key: key, Kind: AgentMessage, Role: pl.Role, Content: strings.Join(texts, "\n\n"), CreatedAt: at}}
	case "function_call", "custom_tool_call", "local_shell_call":
		var call string
		switch {
		case pl.Action != nil:
			call = toolCallLine("shell", mustJSON(map[string]any{"command": pl.Action.Command}))
		case pl.Type == "custom_tool_call":
			call = toolCallLine(pl.Name, mustJSON(map[string]any{"input": pl.Input}))
		default:
			call = toolCallLine(pl.Name, json.RawMessage(pl.Arguments))
		}
		p.tools[pl.CallID] = call
		return []AgentEntry{{Key: key, Kind: AgentTool, Role: smriti.RoleAssistant, Content: "Tool call: " + call, CreatedAt: at}}
	case "function_call_output", "custom_tool_call_output":
		call := p.tools[pl.CallID]
		if call == "" {
			call = "a tool"
		}
		out, failed := codexOutput(pl.Output)
		return []AgentEntry{{Key: key, Kind: AgentTool, Role: smriti.RoleSystem, Content: "Tool result: " + call + " → " + toolOutcome(failed, out), CreatedAt: at}}
	}
	return nil
}

// codexOutput reads a tool output: a string, itself often JSON holding the
// output and an exit code, or an object with content and success.
func codexOutput(raw json.RawMessage) (text string, failed bool) {
	var s string
	if json.Unmarshal(raw, &s) != nil {
		var o struct {
			Content string `json:"content"`
			Success *bool  `json:"success"`
		}
		_ = json.Unmarshal(raw, &o)
		return o.Content, o.Success != nil && !*o.Success
	}
	var inner struct {
		Output   *string `json:"output"`
		Metadata struct {
			ExitCode *int `json:"exit_code"`
		} `json:"metadata"`
	}
	if json.Unmarshal([]byte(s), &inner) == nil && inner.Output != nil {
		return *inner.Output, inner.Metadata.ExitCode != nil && *inner.Metadata.ExitCode != 0
	}
	return s, false
}

func mustJSON(v any) json.RawMessage {
	b, _ := json.Marshal(v)
	return b
}

// toolTargetKeys are the input fields that say what a tool acted on, in the
// order they are looked for.
var toolTargetKeys = []string{"file_path", "path", "notebook_path", "command", "cmd", "pattern", "url", "query", "description", "prompt", "input"}

// toolCallLine is "Name `target`": the tool and the first input field that
// says what it acted on, on one line, cut to maxToolTarget.
func toolCallLine(name string, input json.RawMessage) string {
	name = strings.TrimSpace(name)
	if name == "" {
		name = "tool"
	}
	var m map[string]any
	_ = json.Unmarshal(input, &m)
	target := ""
	for _, k := range toolTargetKeys {
		switch v := m[k].(type) {
		case string:
			target = v
		case []any:
			parts := make([]string, 0, len(v))
			for _, x := range v {
				parts = append(parts, fmt.Sprint(x))
			}
			target = strings.Join(parts, " ")
		}
		if target != "" {
			break
		}
	}
	target = oneLine(redactSecrets(target), maxToolTarget)
	if target == "" {
		return name
	}
	return name + " `" + strings.ReplaceAll(target, "`", "'") + "`"
}

// toolOutcome says how a call ended: ok or error, the size of its output,
// and for an error its first line.
func toolOutcome(failed bool, out string) string {
	out = strings.TrimSpace(out)
	n := 0
	if out != "" {
		n = strings.Count(out, "\n") + 1
	}
	size := fmt.Sprintf("%d lines", n)
	if n == 1 {
		size = "1 line"
	}
	if !failed {
		return "ok, " + size
	}
	first, _, _ := strings.Cut(out, "\n")
	if first = oneLine(redactSecrets(first), maxToolTarget); first != "" {
		return "error: " + first
	}
	return "error"
}

// oneLine folds white space to single spaces and cuts s to n runes.
func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) > n {
		return string([]rune(s)[:n-1]) + "…"
	}
	return s
}

func lineHash(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:16])
}

// redactSecrets replaces each secret in s with a marker naming the rule that
// found it (see package secrets), so an imported message or tool call never
// stores a key it happened to show.
func redactSecrets(s string) string {
	out, _ := secrets.Redact(s)
	return out
}

// redactAllowing is s with each secret the allowlist does not keep
// redacted, and s with every secret redacted (what keys are taken from).
func redactAllowing(s string, allowed func(rule, fingerprint string) bool) (stored, named string) {
	found := secrets.Find(s)
	if len(found) == 0 {
		return s, s
	}
	named = secrets.Apply(s, found)
	if allowed == nil {
		return named, named
	}
	var keep []secrets.Finding
	for _, f := range found {
		if !allowed(f.Rule, f.Fingerprint) {
			keep = append(keep, f)
		}
	}
	return secrets.Apply(s, keep), named
}

// RedactSecrets is a text as a transcript import stores it: each secret
// replaced by a marker naming its rule (a hook compares the host's last
// message with what the reader gives, which is redacted).
func RedactSecrets(s string) string { return redactSecrets(s) }
