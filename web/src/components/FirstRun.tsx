import { useState } from "react";
import { useNavigate } from "react-router-dom";
import { useQueryClient } from "@tanstack/react-query";
import { Sparkles } from "lucide-react";
import { api } from "../api";

function Code({ label, text }: { label: string; text: string }) {
  return (
    <div>
      <div className="row spread">
        <strong className="small">{label}</strong>
        <button type="button" className="small" onClick={() => navigator.clipboard?.writeText(text).catch(() => {})} aria-label={`Copy: ${label}`}>
          Copy
        </button>
      </div>
      <pre className="md" style={{ background: "var(--code)", padding: "0.6rem", borderRadius: 8, overflowX: "auto", fontSize: "0.8rem" }}>
        <code>{text}</code>
      </pre>
    </div>
  );
}

/**
 * Shown while the workspace has no space: a sample space to look around
 * in, and how to connect a coding agent (smriti init, MCP for Claude Code
 * and Codex).
 */
export function FirstRun() {
  const nav = useNavigate();
  const qc = useQueryClient();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState("");
  const url = typeof location !== "undefined" ? location.origin : "http://localhost:8000";

  async function sample() {
    setBusy(true);
    setError("");
    try {
      const sp = await api.createSpace("Sample: a weekend in Kyoto", "A sample space to look around in");
      const se = await api.createSession(sp.id, "Planning the weekend", "mock", "mock");
      await api.commit({
        repo_id: sp.id,
        session_id: se.id,
        message: "First plan for Kyoto",
        summary: "Two days in Kyoto in April, by train from Tokyo.",
        objective: "Plan a relaxed weekend in Kyoto",
        decisions: ["Take the Shinkansen from Tokyo", "Stay near Gion"],
        assumptions: ["Cherry blossoms peak in early April"],
        tasks: [{ text: "Book the ryokan", status: "open" }, { text: "Reserve a tea ceremony", status: "open" }],
        open_questions: ["Day trip to Nara or Arashiyama?"],
        entities: ["Kyoto", "Gion", "Shinkansen"],
        artifacts: [],
      });
      qc.invalidateQueries();
      nav(`/sessions/${se.id}`);
    } catch (e) {
      setError((e as Error).message);
    } finally {
      setBusy(false);
    }
  }

  return (
    <section className="card" aria-labelledby="first-run-title" data-testid="first-run">
      <h2 id="first-run-title" style={{ marginTop: 0 }}>
        Welcome to Smriti
      </h2>
      <p>
        Smriti keeps the state of a line of work — decisions, assumptions, tasks, open questions — as checkpoints you can branch, compare and merge, for
        you and for your coding agents.
      </p>
      <div className="row">
        <button type="button" className="primary" onClick={sample} disabled={busy}>
          <Sparkles size={15} aria-hidden /> {busy ? "Creating…" : "Open a sample space"}
        </button>
        <span className="muted small">or create your own below.</span>
      </div>
      {error && (
        <p className="error" role="alert">
          {error}
        </p>
      )}
      <h3>Connect a coding agent</h3>
      <div className="grid2">
        <Code label="In your project directory" text={"smriti init my-project"} />
        <Code label="Claude Code (.mcp.json)" text={JSON.stringify({ mcpServers: { smriti: { command: "smriti", args: ["mcp"], env: { SMRITI_API_URL: url } } } }, null, 2)} />
        <Code label="Codex (~/.codex/config.toml)" text={`[mcp_servers.smriti]\ncommand = "smriti"\nargs = ["mcp"]\nenv = { SMRITI_API_URL = "${url}" }`} />
      </div>
    </section>
  );
}
