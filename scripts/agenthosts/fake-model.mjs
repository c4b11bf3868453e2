// A fake model server for the agent hosts' end-to-end test: it speaks the
// Anthropic Messages API (POST /v1/messages, streamed as SSE) for Claude
// Code and the OpenAI Responses API (POST /v1/responses, streamed) for
// Codex, answers from a small script keyed on words in the last user
// message, and records every request so the test can read what a host sent
// (the compaction prompt above all).
import http from "node:http";

// reply decides the answer to a conversation: text, or a tool call the
// host should run (then the text once the tool's result comes back).
export function reply(lastUser, hasToolResult, isCompaction) {
  if (isCompaction) return { text: "<summary>The user decided that refresh tokens are rotated on every use.</summary>" };
  const mcp = /MCP-CALL (\S+) (\{.*\})/.exec(lastUser);
  if (mcp && !hasToolResult) return { tool: { name: `mcp__smriti__${mcp[1]}`, input: JSON.parse(mcp[2]) } };
  if (mcp) return { text: "Read the state." };
  const m = /WRITE-FILE (\S+)/.exec(lastUser);
  if (m && !hasToolResult) return { tool: { name: "Write", path: m[1], input: { file_path: m[1], content: "package auth\n" } } };
  const d = /DECIDE: ([^\n]+)/.exec(lastUser);
  if (d) return { text: `Decision: ${d[1].trim()}` };
  const e = /ECHO ([A-Z0-9-]+)/.exec(lastUser);
  if (e) return { text: `Noted ${e[1]}.` };
  return { text: "OK." };
}

function textOf(content) {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content.map((b) => (b.type === "text" || b.type === "input_text" ? b.text : "")).join("\n");
}

export function startFakeModel() {
  const requests = [];
  const server = http.createServer((req, res) => {
    let body = "";
    req.on("data", (c) => (body += c));
    req.on("end", () => {
      let j = {};
      try { j = body ? JSON.parse(body) : {}; } catch { /* not JSON */ }
      const rec = { path: req.url, method: req.method, body: j };
      requests.push(rec);
      const path = req.url.split("?")[0];
      if (req.method === "POST" && path.endsWith("/v1/messages")) return anthropic(j, res, rec);
      if (req.method === "POST" && path.endsWith("/v1/messages/count_tokens")) return json(res, { input_tokens: 1000 });
      if (req.method === "POST" && path.endsWith("/responses")) return responses(j, res, rec);
      if (path.endsWith("/models")) return json(res, { data: [], object: "list" });
      json(res, {}, 404);
    });
  });
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve({ server, requests, url: `http://127.0.0.1:${server.address().port}` })));
}

function json(res, v, status = 200) {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify(v));
}

function sse(res) {
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", connection: "keep-alive" });
  return (event, data) => res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
}

let ids = 0;
const nextID = (p) => `${p}_${Date.now().toString(36)}${(ids++).toString(36)}`;

// FULL_CONTEXT_TOKENS is the context a FILL-CONTEXT turn reports using:
// past Claude Code's auto-compaction threshold for the 1M-token window of
// its default model (the window less the output reserve and a buffer,
// 967,000 tokens in 2.1.x), short of its blocking limit (977,000).
export const FULL_CONTEXT_TOKENS = 970_000;

// Claude Code: the compaction request asks for a summary of the
// conversation in its last user message.
function anthropic(j, res, rec) {
  const msgs = j.messages || [];
  const last = msgs[msgs.length - 1] || {};
  const lastText = textOf(last.content);
  const hasToolResult = Array.isArray(last.content) && last.content.some((b) => b.type === "tool_result");
  const isCompaction = /summary of the conversation|summarize the conversation|detailed summary/i.test(lastText);
  rec.kind = isCompaction ? "compaction" : "turn";
  rec.lastUser = lastText;
  const lastUser = [...msgs].reverse().map((m) => (m.role === "user" ? textOf(m.content) : "")).find((t) => /[A-Z]{4,}/.test(t)) || lastText;
  const r = reply(lastUser, hasToolResult, isCompaction);
  const id = nextID("msg");
  const model = j.model || "claude-test";
  const usage = { input_tokens: 100, output_tokens: 10, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };
  // A turn asked to FILL-CONTEXT reports a conversation that all but fills
  // the model's context window: Claude Code compacts before its next request.
  if (/FILL-CONTEXT/.test(textOf([...msgs].reverse().find((m) => m.role === "user")?.content))) usage.cache_read_input_tokens = FULL_CONTEXT_TOKENS;
  if (!j.stream) {
    const content = r.tool ? [{ type: "tool_use", id: nextID("toolu"), name: r.tool.name, input: r.tool.input }] : [{ type: "text", text: r.text }];
    return json(res, { id, type: "message", role: "assistant", model, content, stop_reason: r.tool ? "tool_use" : "end_turn", stop_sequence: null, usage });
  }
  const send = sse(res);
  send("message_start", { type: "message_start", message: { id, type: "message", role: "assistant", model, content: [], stop_reason: null, stop_sequence: null, usage } });
  if (r.tool) {
    send("content_block_start", { type: "content_block_start", index: 0, content_block: { type: "tool_use", id: nextID("toolu"), name: r.tool.name, input: {} } });
    send("content_block_delta", { type: "content_block_delta", index: 0, delta: { type: "input_json_delta", partial_json: JSON.stringify(r.tool.input) } });
  } else {
    send("content_block_start", { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } });
    send("content_block_delta", { type: "content_block_delta", index: 0, delta: { type: "text_delta", text: r.text } });
  }
  send("content_block_stop", { type: "content_block_stop", index: 0 });
  send("message_delta", { type: "message_delta", delta: { stop_reason: r.tool ? "tool_use" : "end_turn", stop_sequence: null }, usage: { output_tokens: 10 } });
  send("message_stop", { type: "message_stop" });
  res.end();
}

// Codex: the Responses API, streamed as typed events.
function responses(j, res, rec) {
  const input = Array.isArray(j.input) ? j.input : [];
  const users = input.filter((i) => i.type === "message" && i.role === "user").map((i) => textOf(i.content));
  const lastUser = [...users].reverse().find((t) => /[A-Z]{4,}/.test(t) && !t.startsWith("<")) || users[users.length - 1] || "";
  const lastItem = input[input.length - 1] || {};
  const hasToolResult = lastItem.type === "function_call_output" || lastItem.type === "custom_tool_call_output";
  // Codex compacts with a prompt of its own as the last user message.
  const isCompaction = /CONTEXT CHECKPOINT COMPACTION/.test(textOf(lastItem.content || "") + String(j.instructions || ""));
  rec.kind = isCompaction ? "compaction" : "turn";
  rec.lastUser = lastUser;
  const r = reply(lastUser, hasToolResult, isCompaction);
  const send = sse(res);
  const id = nextID("resp");
  const base = { id, object: "response", created_at: Math.floor(Date.now() / 1000), model: j.model || "gpt-test", status: "in_progress", output: [] };
  send("response.created", { type: "response.created", response: base });
  let item;
  if (r.tool) {
    const args = JSON.stringify({ command: ["bash", "-lc", `mkdir -p $(dirname ${r.tool.path}) && printf 'package auth\\n' > ${r.tool.path}`] });
    item = { type: "function_call", id: nextID("fc"), call_id: nextID("call"), name: "shell", arguments: args, status: "completed" };
    send("response.output_item.added", { type: "response.output_item.added", output_index: 0, item: { ...item, arguments: "" } });
    send("response.function_call_arguments.delta", { type: "response.function_call_arguments.delta", output_index: 0, item_id: item.id, delta: args });
  } else {
    item = { type: "message", id: nextID("msg"), role: "assistant", status: "completed", content: [{ type: "output_text", text: r.text, annotations: [] }] };
    send("response.output_item.added", { type: "response.output_item.added", output_index: 0, item: { ...item, content: [], status: "in_progress" } });
    send("response.content_part.added", { type: "response.content_part.added", output_index: 0, item_id: item.id, content_index: 0, part: { type: "output_text", text: "", annotations: [] } });
    send("response.output_text.delta", { type: "response.output_text.delta", output_index: 0, item_id: item.id, content_index: 0, delta: r.text });
    send("response.output_text.done", { type: "response.output_text.done", output_index: 0, item_id: item.id, content_index: 0, text: r.text });
  }
  send("response.output_item.done", { type: "response.output_item.done", output_index: 0, item });
  send("response.completed", { type: "response.completed", response: { ...base, status: "completed", output: [item],
    usage: { input_tokens: 100, input_tokens_details: { cached_tokens: 0 }, output_tokens: 10, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 110 } } });
  res.end();
}
