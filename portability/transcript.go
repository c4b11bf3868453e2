package portability

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"regexp"
	"smriti"
	"smriti/internal/textutil"
	"smriti/records"
	"sort"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	jsonv1 "github.com/go-json-experiment/json/v1"
)

// Transcript sources.
const (
	SourceChatGPT  = "chatgpt"
	SourceClaude   = "claude"
	SourceMarkdown = "markdown"
)

// MaxImportTitleChars bounds a conversation's title; longer ones are cut.
const MaxImportTitleChars = records.MaxImportTitleChars

// maxImportTurnChars bounds one imported turn; longer ones are refused
// with their conversation rather than cut silently.
const maxImportTurnChars = records.MaxImportTurnChars

// Conversation is one conversation read from a transcript file, in order.
type Conversation = records.Conversation

// ConversationTurn is one message of an imported conversation.
type ConversationTurn = records.ConversationTurn

// TranscriptImport imports conversations into a space.
type TranscriptImport struct {
	SpaceID smriti.ID
	// Filename names the file in reports and becomes the title of a
	// markdown transcript without a heading.
	Filename string
	// Draft asks for a drafted checkpoint after each imported conversation.
	Draft bool
}

// ImportedConversation reports what became of one conversation.
type ImportedConversation struct {
	// Index is the conversation's position in the file, from 0.
	Index       int    `json:"index" doc:"Position of the conversation in the file, from 0"`
	Title       string `json:"title" doc:"Its title"`
	Source      string `json:"source" doc:"The format it was read as: chatgpt, claude, or markdown"`
	ContentHash string `json:"content_hash" doc:"SHA-256 of its turns: importing it again changes nothing"`
	// Status is imported, unchanged (imported before: nothing written),
	// or failed.
	Status       string     `json:"status" doc:"imported, unchanged (imported before: nothing written) or failed"`
	SessionID    *smriti.ID `json:"session_id" doc:"The session it became (null when failed)"`
	Turns        int        `json:"turns" doc:"Turns written"`
	CheckpointID *smriti.ID `json:"checkpoint_id" doc:"The checkpoint drafted from it with ?draft=true (null otherwise)"`
	Error        *string    `json:"error" doc:"Why it failed (null otherwise)"`
}

// Import statuses.
const (
	ImportImported  = "imported"
	ImportUnchanged = "unchanged"
	ImportFailed    = "failed"
)

// TranscriptStore writes one imported conversation.
type TranscriptStore interface {
	// ImportConversation writes the conversation as a new session of the
	// space with its turns numbered from 0, in one transaction, and records
	// its content hash. When the space already holds a conversation with
	// that hash nothing is written, created is false and s is the session
	// imported before (nil when it has been deleted since). ENOTFOUND for a
	// space the caller may not see.
	ImportConversation(ctx context.Context, spaceID smriti.ID, c *Conversation, filename string) (s *smriti.Session, created bool, err error)
}

// ReadTranscripts reads the conversations of a transcript file and calls fn
// for each in order; a conversation that cannot be read is passed with its
// error (and a nil conversation) and the reading goes on. The file is read as
// a stream: a JSON export (ChatGPT's or Claude's conversations.json, an
// array, or one conversation object) one conversation at a time, so memory
// stays bounded by the largest conversation, not the file. Anything that is
// not JSON is read as one markdown or plain-text transcript. The error
// returned is fn's, or one that stops the whole file (unreadable JSON).
func ReadTranscripts(r io.Reader, filename string, fn func(i int, c *Conversation, err error) error) error {
	br := bufio.NewReaderSize(r, 64<<10)
	first, err := firstNonSpace(br)
	if errors.Is(err, io.EOF) {
		return smriti.Errorf(smriti.EUNPROCESSABLE, "the transcript is empty")
	}
	if err != nil {
		return smriti.Errorf(smriti.EINVALID, "could not read the transcript: %v", err)
	}
	switch first {
	case '[':
		return readJSONArray(br, fn)
	case '{':
		dec := json.NewDecoder(br)
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return smriti.Errorf(smriti.EINVALID, "malformed JSON transcript: %v", err)
		}
		c, err := parseJSONConversation(raw)
		return fn(0, c, err)
	}
	text, err := io.ReadAll(io.LimitReader(br, int64(maxImportTurnChars)*8+1))
	if err != nil {
		return smriti.Errorf(smriti.EINVALID, "could not read the transcript: %v", err)
	}
	if len(text) > maxImportTurnChars*8 {
		return smriti.Errorf(smriti.EUNPROCESSABLE, "a text transcript must be at most %d bytes", maxImportTurnChars*8)
	}
	c, err := parseMarkdownTranscript(string(text), filename)
	return fn(0, c, err)
}

func firstNonSpace(br *bufio.Reader) (byte, error) {
	for {
		b, err := br.ReadByte()
		if err != nil {
			return 0, err
		}
		// A UTF-8 byte order mark is skipped like white space.
		if b == 0xEF {
			if p, _ := br.Peek(2); bytes.Equal(p, []byte{0xBB, 0xBF}) {
				br.Discard(2)
				continue
			}
		}
		if b != ' ' && b != '\n' && b != '\r' && b != '\t' {
			return b, br.UnreadByte()
		}
	}
}

// readJSONArray walks the top-level array token by token and decodes one
// element at a time.
func readJSONArray(r io.Reader, fn func(int, *Conversation, error) error) error {
	dec := json.NewDecoder(r)
	if _, err := dec.Token(); err != nil {
		return smriti.Errorf(smriti.EINVALID, "malformed JSON transcript: %v", err)
	}
	for i := 0; dec.More(); i++ {
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			if i == 0 {
				return smriti.Errorf(smriti.EINVALID, "malformed JSON in conversation 0: %v", err)
			}
			// What came before is imported; say where reading stopped.
			return fn(i, nil, smriti.Errorf(smriti.EINVALID, "malformed JSON in conversation %d: %v; the rest of the file was not read", i, err))
		}
		c, perr := parseJSONConversation(raw)
		if err := fn(i, c, perr); err != nil {
			return err
		}
	}
	if _, err := dec.Token(); err != nil {
		return smriti.Errorf(smriti.EINVALID, "malformed JSON transcript: the array does not end: %v", err)
	}
	return nil
}

func parseJSONConversation(raw json.RawMessage) (*Conversation, error) {
	var probe struct {
		Mapping      json.RawMessage `json:"mapping"`
		ChatMessages json.RawMessage `json:"chat_messages"`
	}
	if err := json.Unmarshal(raw, &probe); err != nil {
		return nil, smriti.Errorf(smriti.EUNPROCESSABLE, "a conversation must be a JSON object")
	}
	switch {
	case probe.Mapping != nil:
		return parseChatGPT(raw)
	case probe.ChatMessages != nil:
		return parseClaude(raw)
	}
	return nil, smriti.Errorf(smriti.EUNPROCESSABLE, "not a ChatGPT conversation (no \"mapping\") nor a Claude one (no \"chat_messages\")")
}

type chatgptConversation struct {
	ID             string                 `json:"id"`
	ConversationID string                 `json:"conversation_id"`
	Title          *string                `json:"title"`
	CreateTime     *float64               `json:"create_time"`
	CurrentNode    *string                `json:"current_node"`
	Mapping        map[string]chatgptNode `json:"mapping"`
}

type chatgptNode struct {
	ID       string          `json:"id"`
	Parent   *string         `json:"parent"`
	Children []string        `json:"children"`
	Message  *chatgptMessage `json:"message"`
}

type chatgptMessage struct {
	Author struct {
		Role string `json:"role"`
	} `json:"author"`
	CreateTime *float64 `json:"create_time"`
	Content    struct {
		ContentType string            `json:"content_type"`
		Parts       []json.RawMessage `json:"parts"`
		Text        *string           `json:"text"`
	} `json:"content"`
	Metadata struct {
		IsVisuallyHidden bool `json:"is_visually_hidden_from_conversation"`
	} `json:"metadata"`
}

// parseChatGPT reads one conversation of a ChatGPT export. Its messages form
// a tree (every regeneration is a branch); the conversation shown to the
// user is the path from the root to current_node, which is what we keep.
func parseChatGPT(raw json.RawMessage) (*Conversation, error) {
	var cv chatgptConversation
	if err := json.Unmarshal(raw, &cv); err != nil {
		return nil, smriti.Errorf(smriti.EUNPROCESSABLE, "malformed ChatGPT conversation: %v", jsonProblem(err))
	}
	c := &Conversation{Source: SourceChatGPT, ExternalID: cv.ConversationID, CreatedAt: unixTime(cv.CreateTime)}
	if c.ExternalID == "" {
		c.ExternalID = cv.ID
	}
	if cv.Title != nil {
		c.Title = *cv.Title
	}
	leaf := ""
	if cv.CurrentNode != nil {
		leaf = *cv.CurrentNode
	}
	if _, ok := cv.Mapping[leaf]; !ok {
		leaf = deepestLastChild(cv.Mapping)
	}
	var path []*chatgptNode
	seen := map[string]bool{}
	for id := leaf; id != ""; {
		n, ok := cv.Mapping[id]
		if !ok {
			return nil, smriti.Errorf(smriti.EUNPROCESSABLE, "malformed ChatGPT conversation: node %q is missing from the mapping", textutil.Truncate(id, 64))
		}
		if seen[id] {
			return nil, smriti.Errorf(smriti.EUNPROCESSABLE, "malformed ChatGPT conversation: the mapping has a cycle at %q", textutil.Truncate(id, 64))
		}
		seen[id] = true
		path = append(path, &n)
		if n.Parent == nil {
			break
		}
		id = *n.Parent
	}
	for i := len(path) - 1; i >= 0; i-- {
		m := path[i].Message
		if m == nil || m.Metadata.IsVisuallyHidden {
			continue
		}
		role := m.Author.Role
		if role != smriti.RoleUser && role != smriti.RoleAssistant {
			continue // system prompts and tool calls are not the conversation
		}
		text := chatgptText(m)
		if strings.TrimSpace(text) == "" {
			continue
		}
		c.Turns = append(c.Turns, ConversationTurn{Role: role, Content: text, CreatedAt: unixTime(m.CreateTime)})
	}
	return c, c.Validate()
}

func chatgptText(m *chatgptMessage) string {
	if m.Content.Text != nil {
		return *m.Content.Text
	}
	var parts []string
	for _, p := range m.Content.Parts {
		var s string
		if json.Unmarshal(p, &s) == nil && s != "" {
			parts = append(parts, s)
		}
	}
	return strings.Join(parts, "\n")
}

// deepestLastChild follows the newest child from the root when an export
// has no usable current_node.
func deepestLastChild(m map[string]chatgptNode) string {
	roots := []string{}
	for id, n := range m {
		if n.Parent == nil || *n.Parent == "" {
			roots = append(roots, id)
		}
	}
	if len(roots) == 0 {
		return ""
	}
	sort.Strings(roots)
	id := roots[0]
	for steps := 0; steps <= len(m); steps++ {
		n := m[id]
		if len(n.Children) == 0 {
			return id
		}
		next := n.Children[len(n.Children)-1]
		if _, ok := m[next]; !ok {
			return id
		}
		id = next
	}
	return id
}

type claudeConversation struct {
	UUID         string          `json:"uuid"`
	Name         *string         `json:"name"`
	CreatedAt    *string         `json:"created_at"`
	ChatMessages []claudeMessage `json:"chat_messages"`
}

type claudeMessage struct {
	Sender    string  `json:"sender"`
	Text      *string `json:"text"`
	CreatedAt *string `json:"created_at"`
	Content   []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	} `json:"content"`
}

// parseClaude reads one conversation of a Claude export: a flat, ordered
// chat_messages list whose senders are "human" and "assistant".
func parseClaude(raw json.RawMessage) (*Conversation, error) {
	var cv claudeConversation
	if err := json.Unmarshal(raw, &cv); err != nil {
		return nil, smriti.Errorf(smriti.EUNPROCESSABLE, "malformed Claude conversation: %v", jsonProblem(err))
	}
	c := &Conversation{Source: SourceClaude, ExternalID: cv.UUID}
	if cv.Name != nil {
		c.Title = *cv.Name
	}
	var err error
	if c.CreatedAt, err = isoTime(cv.CreatedAt); err != nil {
		return nil, err
	}
	for i, m := range cv.ChatMessages {
		role := ""
		switch strings.ToLower(m.Sender) {
		case "human", "user":
			role = smriti.RoleUser
		case "assistant":
			role = smriti.RoleAssistant
		default:
			return nil, smriti.Errorf(smriti.EUNPROCESSABLE, "malformed Claude conversation: message %d has sender %q", i, textutil.Truncate(m.Sender, 32))
		}
		text := ""
		if m.Text != nil {
			text = *m.Text
		}
		if strings.TrimSpace(text) == "" {
			var parts []string
			for _, p := range m.Content {
				if p.Type == "text" && p.Text != "" {
					parts = append(parts, p.Text)
				}
			}
			text = strings.Join(parts, "\n")
		}
		if strings.TrimSpace(text) == "" {
			continue
		}
		at, err := isoTime(m.CreatedAt)
		if err != nil {
			return nil, err
		}
		c.Turns = append(c.Turns, ConversationTurn{Role: role, Content: text, CreatedAt: at})
	}
	return c, c.Validate()
}

// transcriptPatterns are compiled on the first import of a markdown
// transcript, not at every start of the binary (about 60 KB).
var transcriptPatterns = sync.OnceValue(func() (p struct{ colonSpeaker, headingSpeaker, titleHeading *regexp.Regexp }) {
	p.colonSpeaker = regexp.MustCompile(`(?i)^\s*(?:\*\*)?(user|human|you|assistant|ai|chatgpt|claude)(?:\*\*)?\s*:(?:\*\*)?\s?(.*)$`)
	p.headingSpeaker = regexp.MustCompile(`(?i)^\s*#{1,6}\s*(user|human|you|assistant|ai|chatgpt|claude)\s*:?\s*$`)
	p.titleHeading = regexp.MustCompile(`^\s*#\s+(.+?)\s*$`)
	return p
})

// parseMarkdownTranscript reads a plain transcript: speakers marked by lines
// starting "User:" / "Assistant:" (also Human, You, AI, ChatGPT, Claude; bold
// allowed) or by "## user" / "## assistant" headings. A "# Title" line before
// the first speaker names the conversation, else the file name does. Text
// before the first speaker is not part of the conversation.
func parseMarkdownTranscript(text, filename string) (*Conversation, error) {
	if !utf8.ValidString(text) {
		return nil, smriti.Errorf(smriti.EUNPROCESSABLE, "the transcript is not valid UTF-8")
	}
	c := &Conversation{Source: SourceMarkdown, Title: strings.TrimSuffix(filename, pathExt(filename))}
	var cur *ConversationTurn
	var body []string
	flush := func() {
		if cur != nil {
			cur.Content = strings.TrimSpace(strings.Join(body, "\n"))
			if cur.Content != "" {
				c.Turns = append(c.Turns, *cur)
			}
		}
		body = body[:0]
	}
	titled := false
	pat := transcriptPatterns()
	for _, line := range strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n") {
		if m := pat.headingSpeaker.FindStringSubmatch(line); m != nil {
			flush()
			cur = &ConversationTurn{Role: speakerRole(m[1])}
			continue
		}
		if m := pat.colonSpeaker.FindStringSubmatch(line); m != nil {
			flush()
			cur = &ConversationTurn{Role: speakerRole(m[1])}
			body = append(body, m[2])
			continue
		}
		if cur == nil {
			if m := pat.titleHeading.FindStringSubmatch(line); m != nil && !titled {
				c.Title, titled = m[1], true
			}
			continue
		}
		body = append(body, line)
	}
	flush()
	if len(c.Turns) == 0 && strings.TrimSpace(text) != "" {
		return nil, smriti.Errorf(smriti.EUNPROCESSABLE, "no speakers found: mark turns with lines starting \"User:\" and \"Assistant:\", or \"## user\" / \"## assistant\" headings")
	}
	return c, c.Validate()
}

func speakerRole(s string) string {
	switch strings.ToLower(s) {
	case "user", "human", "you":
		return smriti.RoleUser
	}
	return smriti.RoleAssistant
}

func pathExt(name string) string {
	if i := strings.LastIndexByte(name, '.'); i > 0 && !strings.ContainsAny(name[i:], "/\\") {
		return name[i:]
	}
	return ""
}

func unixTime(f *float64) *time.Time {
	if f == nil || *f <= 0 || math.IsNaN(*f) || math.IsInf(*f, 0) || *f > 1e11 {
		return nil
	}
	sec, frac := math.Modf(*f)
	t := time.Unix(int64(sec), int64(frac*1e6)*1e3).UTC()
	return &t
}

func isoTime(s *string) (*time.Time, error) {
	if s == nil || *s == "" {
		return nil, nil
	}
	t, err := time.Parse(time.RFC3339Nano, *s)
	if err != nil {
		return nil, smriti.Errorf(smriti.EUNPROCESSABLE, "malformed Claude conversation: %q is not an RFC 3339 time", textutil.Truncate(*s, 40))
	}
	t = t.UTC()
	return &t, nil
}

// jsonProblem says what is wrong with a record, from encoding/json's
// error or the bundle decoder's (newRecordDecoder).
func jsonProblem(err error) string {
	var typ *json.UnmarshalTypeError
	if errors.As(err, &typ) {
		return fmt.Sprintf("%s should be %s, not %s", typ.Field, typ.Type, typ.Value)
	}
	var typ1 *jsonv1.UnmarshalTypeError
	if errors.As(err, &typ1) {
		return fmt.Sprintf("%s should be %s, not %s", typ1.Field, typ1.Type, typ1.Value)
	}
	return err.Error()
}
