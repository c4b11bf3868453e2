package smriti

import (
	"strings"
)

// Author is who a checkpoint is attributed to: AuthorType is one of
// AuthorUser, AuthorLLM, AuthorAgent, AuthorSystem; AuthorAgent names the
// model or agent (nil for a person).
type Author struct {
	Type  string
	Agent *string
}

// CommitAuthor attributes a checkpoint a caller writes:
//
//   - content that came from a draft or an extract — the caller says
//     author_type "llm", or names the source turns it was drafted from —
//     is "llm", with backgroundModel (the model that drafts) as the agent
//     unless the caller names one;
//   - otherwise a caller that names an agent (author_agent) wrote it as
//     "agent" (or as the author_type it states);
//   - otherwise a person typed it: "user", no agent.
//
// The session's chat provider is never the author: it did not write the
// checkpoint. EUNPROCESSABLE for an unknown author_type or an over-long
// author_agent.
func CommitAuthor(authorType string, authorAgent *string, drafted bool, backgroundModel string) (Author, error) {
	typ := strings.ToLower(strings.TrimSpace(authorType))
	switch typ {
	case "", AuthorUser, AuthorLLM, AuthorAgent, AuthorSystem:
	default:
		return Author{}, Errorf(EUNPROCESSABLE, "author_type must be one of: agent, llm, system, user")
	}
	var agent *string
	if authorAgent != nil {
		if a := strings.TrimSpace(*authorAgent); a != "" {
			if len([]rune(a)) > maxAuthorAgentChars {
				return Author{}, Errorf(EUNPROCESSABLE, "author_agent must be at most %d characters", maxAuthorAgentChars)
			}
			agent = &a
		}
	}
	if typ == "" && drafted {
		typ = AuthorLLM
	}
	switch {
	case typ == AuthorLLM:
		if agent == nil && backgroundModel != "" {
			m := backgroundModel
			agent = &m
		}
	case typ == "" && agent != nil:
		typ = AuthorAgent
	case typ == "":
		typ = AuthorUser
	}
	return Author{Type: typ, Agent: agent}, nil
}
