package main

import (
	"context"
	"encoding/json"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"smriti/tokenizer"
)

// TestMCPToolListTokens measures what tools/list costs an agent in tokens
// (o200k, the project's tokenizer for OpenAI models): the figure the issue
// tracks (budget 3,000).
func TestMCPToolListTokens(t *testing.T) {
	base := startAPI(t)
	client := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, nil)
	session, err := client.Connect(context.Background(), &sdk.StreamableClientTransport{Endpoint: base + "/mcp"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer session.Close()
	list, err := session.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := json.Marshal(list.Tools)
	if err != nil {
		t.Fatal(err)
	}
	n, err := tokenizer.Count("o200k_base", string(raw))
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("tools/list: %d tools, %d bytes, %d o200k tokens", len(list.Tools), len(raw), n)
	if len(list.Tools) != len(wantTools) {
		t.Fatalf("%d tools, want %d", len(list.Tools), len(wantTools))
	}
}
