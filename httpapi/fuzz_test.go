package httpapi

import (
	"smriti/wire"
	"testing"

	"smriti"
)

// FuzzDecodeJSON feeds arbitrary bodies to the request decoder and the
// validation behind it: nothing may panic, and every rejection is a 4xx
// domain error.
func FuzzDecodeJSON(f *testing.F) {
	for _, seed := range []string{
		`{"session_id": "00000000-0000-0000-0000-000000000001", "message": "hi"}`,
		`{"repo_id": "x", "session_id": null, "message": "m", "tasks": ["a", {"text": "b", "id": "t1", "intent_hint": "test"}]}`,
		`{"name": "Space", "metadata": {"a": [1, 2, {"b": null}]}}`,
		`{"message": "m", "artifacts": [{"id": "a", "type": "text", "label": "l", "content": "c"}]}`,
		`{"tasks": [{"text": 5}]}`, `[]`, `{`, ``, `{"a":1} {"b":2}`, `{"decisions": "one"}`, "\xff\xfe",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		allowed := map[string]bool{smriti.EINVALID: true, smriti.EUNPROCESSABLE: true}
		var send wire.SendRequest
		if err := wire.DecodeJSON(body, &send); err != nil && !allowed[smriti.ErrorCode(err)] {
			t.Fatalf("send body: error code %q: %v", smriti.ErrorCode(err), err)
		}
		var commit wire.CommitRequest
		err := wire.DecodeJSON(body, &commit)
		if err != nil && !allowed[smriti.ErrorCode(err)] {
			t.Fatalf("commit body: error code %q: %v", smriti.ErrorCode(err), err)
		}
		if err == nil {
			content := commit.Content()
			if err := content.Validate(); err != nil && !allowed[smriti.ErrorCode(err)] {
				t.Fatalf("commit validation: %v", err)
			}
		}
		var space wire.SpaceCreateRequest
		if err := wire.DecodeJSON(body, &space); err != nil && !allowed[smriti.ErrorCode(err)] {
			t.Fatalf("space body: %v", err)
		}
	})
}
