package mcp

import (
	"context"
	"encoding/json"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"smriti"
)

// A save refused with conflicts is an error result: the text lists every
// conflict (a scalar by its field, an item by field and id) and the retry;
// the structured content is the server's answer plus the retry's arguments.
func TestRefusedSaveListsConflictsAndTheRetry(t *testing.T) {
	base, _ := smriti.ParseID("base", "11111111-1111-4111-8111-111111111111")
	head, _ := smriti.ParseID("head", "22222222-2222-4222-8222-222222222222")
	cc := &smriti.CommitConflict{Message: "Branch 'main' moved on.", HeadCheckpointID: head, BaseCheckpointID: base, Conflicts: []smriti.MergeConflict{
		{Field: "summary", Kind: "both_changed", Base: "s0", Ours: "s1", Theirs: "s2"},
		{Field: "tasks", Key: "t-0a1b2c", Kind: "removed_vs_edited", Base: "Ship", Ours: "", Theirs: "Ship it"},
	}}
	ops := &fakeOps{
		SpacesFn: func(context.Context) ([]*smriti.Space, error) { return []*smriti.Space{demo}, nil },
		CommitCheckpointFn: func(context.Context, smriti.CheckpointCommit) (*smriti.Checkpoint, error) {
			return nil, &smriti.Error{Code: smriti.ECONFLICT, Message: cc.Message, Data: cc}
		},
	}
	cs := connect(t, ops)
	res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "smriti_create_checkpoint",
		Arguments: map[string]any{"space": "demo", "content": map[string]any{"message": "m"}}})
	if err != nil {
		t.Fatal(err)
	}
	want := "HTTP 500\nBranch 'main' moved on.\nNothing was saved. 2 conflict(s) (ours = the branch head 22222222-2222-4222-8222-222222222222, theirs = your save):\n" +
		"1. summary (both_changed)\n   base:   s0\n   ours:   s1\n   theirs: s2\n" +
		"2. tasks t-0a1b2c (removed_vs_edited)\n   base:   Ship\n   ours:   \n   theirs: Ship it\n" +
		`Retry: call smriti_create_checkpoint again with the same content, base_checkpoint_id="11111111-1111-4111-8111-111111111111" and resolutions=` +
		`[{"field":"summary","choice":"theirs"},{"field":"tasks","key":"t-0a1b2c","choice":"theirs"}] (choose ours, theirs or base for each).` + "\n"
	if got := res.Content[0].(*sdk.TextContent).Text; !res.IsError || got != want {
		t.Fatalf("error=%v text:\n%s\nwant:\n%s", res.IsError, got, want)
	}
	raw, _ := json.Marshal(res.StructuredContent)
	// (keys sorted: the content crosses the transport as a JSON object)
	wantJSON := `{"base_checkpoint_id":"11111111-1111-4111-8111-111111111111","conflicts":[` +
		`{"base":"s0","field":"summary","key":"","kind":"both_changed","ours":"s1","theirs":"s2"},` +
		`{"base":"Ship","field":"tasks","key":"t-0a1b2c","kind":"removed_vs_edited","ours":"","theirs":"Ship it"}],` +
		`"detail":"Branch 'main' moved on.","head_checkpoint_id":"22222222-2222-4222-8222-222222222222",` +
		`"retry":{"base_checkpoint_id":"11111111-1111-4111-8111-111111111111","resolutions":[{"choice":"theirs","field":"summary"},{"choice":"theirs","field":"tasks","key":"t-0a1b2c"}]}}`
	if string(raw) != wantJSON {
		t.Fatalf("structured content:\n%s\nwant:\n%s", raw, wantJSON)
	}
}
