package httpapi

import (
	"smriti/coord"
	"smriti/wire"
	"testing"

	"smriti"
)

// FuzzClaimRequest feeds arbitrary bodies to the claim decoder and the
// domain's claim validation: nothing may panic, every rejection is a 4xx
// domain error, and what is accepted has a TTL within the bounds.
func FuzzClaimRequest(f *testing.F) {
	for _, seed := range []string{
		`{"space_id": "00000000-0000-0000-0000-000000000001", "agent": "a", "scope": "s", "ttl_hours": 0.5}`,
		`{"space_id": "x", "scope": "s", "ttl_hours": 1e308, "intent_type": "TEST"}`,
		`{"scope": "  ", "ttl_hours": -1, "task_id": 5}`,
		`{"scope": "s", "ttl_hours": "4"}`, `{"status": "done"}`, `{`, `[]`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		allowed := map[string]bool{smriti.EINVALID: true, smriti.EUNPROCESSABLE: true}
		var req wire.ClaimRequest
		if err := wire.DecodeJSON(body, &req); err != nil {
			if !allowed[smriti.ErrorCode(err)] {
				t.Fatalf("claim body: error code %q: %v", smriti.ErrorCode(err), err)
			}
			return
		}
		in := coord.ClaimCreate{Agent: deref(req.Agent), Scope: deref(req.Scope), TaskID: deref(req.TaskID), Intent: deref(req.IntentType)}
		if req.TTLHours != nil {
			d := coord.ClaimTTLHours(*req.TTLHours)
			in.TTL = &d
		}
		if err := in.Normalize(); err != nil {
			if !allowed[smriti.ErrorCode(err)] {
				t.Fatalf("claim validation: %v", err)
			}
			return
		}
		if *in.TTL < coord.MinClaimTTL || *in.TTL > coord.MaxClaimTTL {
			t.Fatalf("accepted TTL %v", *in.TTL)
		}
		var patch wire.ClaimPatchRequest
		if err := wire.DecodeJSON(body, &patch); err != nil && !allowed[smriti.ErrorCode(err)] {
			t.Fatalf("patch body: %v", err)
		}
	})
}
