package main

import (
	"bufio"
	"encoding/json"
	"io"
	"net/http"
	"os/exec"
	"sort"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"smriti/mcp"
	"smriti/tokenizer"
)

// TestMCPToolListTokens measures what tools/list costs an agent in tokens
// (o200k, the project's tokenizer for OpenAI models): the default (core)
// toolset is within the budget the issue tracks (3,000); the figure for
// every tool (?tools=all) is logged.
func TestMCPToolListTokens(t *testing.T) {
	base := startAPI(t)
	for _, tc := range []struct {
		name    string
		session *sdk.ClientSession
		tools   []string
	}{{"core", mcpOver(t, base), mcp.CoreTools()}, {"all", mcpOverAll(t, base), wantTools}} {
		list := listTools(t, tc.session)
		raw, err := json.Marshal(list.Tools)
		if err != nil {
			t.Fatal(err)
		}
		n, err := tokenizer.Count("o200k_base", string(raw))
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, tool := range list.Tools {
			names = append(names, tool.Name)
			if testing.Verbose() {
				one, _ := json.Marshal(tool)
				k, _ := tokenizer.Count("o200k_base", string(one))
				t.Logf("%s %4d %s", tc.name, k, tool.Name)
			}
		}
		t.Logf("tools/list (%s): %d tools, %d bytes, %d o200k tokens", tc.name, len(list.Tools), len(raw), n)
		sort.Strings(names)
		want := append([]string(nil), tc.tools...)
		sort.Strings(want)
		if strings.Join(names, ",") != strings.Join(want, ",") {
			t.Fatalf("%s tools = %v\nwant %v", tc.name, names, want)
		}
		if tc.name == "core" && n > toolListBudget {
			t.Fatalf("tools/list costs %d o200k tokens, over the budget of %d", n, toolListBudget)
		}
	}
}

// toolListBudget is the most o200k tokens tools/list may cost.
const toolListBudget = 3000

// A line that is not JSON gets a JSON-RPC parse error and the server goes
// on answering the next request.
func TestMCPStdioBadLineIsParseError(t *testing.T) {
	bin := buildBinary(t)
	base := startAPI(t)
	cmd := exec.Command(bin, "mcp")
	cmd.Env = append(cmd.Environ(), "SMRITI_API_URL="+base)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	io.WriteString(stdin, "this is not json\n")
	io.WriteString(stdin, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`+"\n")
	sc := bufio.NewScanner(stdout)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	var lines []string
	for len(lines) < 2 && sc.Scan() {
		lines = append(lines, sc.Text())
	}
	stdin.Close()
	if len(lines) != 2 {
		t.Fatalf("answers: %q", lines)
	}
	if lines[0] != `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error: the line is not JSON"}}` {
		t.Fatalf("first answer = %s", lines[0])
	}
	if !strings.Contains(lines[1], `"id":1`) || !strings.Contains(lines[1], `"serverInfo"`) {
		t.Fatalf("initialize answer = %s", lines[1])
	}
}

// A toolset other than core or all is refused, at /mcp and by `smriti mcp`.
func TestMCPUnknownToolsetRefused(t *testing.T) {
	base := startAPI(t)
	res, err := http.Post(base+"/mcp?tools=most", "application/json", strings.NewReader(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != http.StatusBadRequest || string(body) != "unknown toolset \"most\": use core or all\n" {
		t.Fatalf("/mcp?tools=most: %d %q", res.StatusCode, body)
	}
	out, err := exec.Command(buildBinary(t), "mcp", "--tools", "most", "--api-url", base).CombinedOutput()
	if err == nil || string(out) != "error: unknown toolset \"most\": use core or all\n" {
		t.Fatalf("smriti mcp --tools most: %v %q", err, out)
	}
}
