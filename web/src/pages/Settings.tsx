import { usePageTitle } from "../lib/title";
import type { ProviderStatus } from "../api";
import { useProviders } from "../lib/queries";

const VARS: [string, string][] = [
  ["OPENAI_API_KEY", "OpenAI key (chat and background)"],
  ["ANTHROPIC_API_KEY", "Anthropic key"],
  ["OPENROUTER_API_KEY", "OpenRouter key"],
  ["SMRITI_GENERIC_API_URL / SMRITI_GENERIC_API_KEY / SMRITI_GENERIC_MODEL", "any OpenAI-compatible server"],
  ["SMRITI_DEFAULT_PROVIDER", "the chat provider new sessions use"],
  ["SMRITI_BACKGROUND_PROVIDER / SMRITI_BACKGROUND_MODEL", "the provider that drafts, reviews and extracts"],
  ["SMRITI_DB", "database: a SQLite path or a postgres:// URL"],
  ["SMRITI_ADDR", "listen address (default 127.0.0.1:8000)"],
];

export default function Settings() {
  usePageTitle("Settings");
  const p = useProviders();
  const bg = p.data?.background_intelligence;
  const list = Object.entries(p.data ?? {}).filter(([k, v]) => k !== "background_intelligence" && k !== "chat" && !!v && typeof v === "object" && "configured" in v) as [string, ProviderStatus][];
  return (
    <>
      <h1>Settings</h1>
      <p>Providers are configured on the server, by environment variables or the configuration file; keys never reach this page.</p>
      <h2>Chat providers</h2>
      {p.isError && <p className="error">{(p.error as Error).message}</p>}
      <table>
        <thead>
          <tr>
            <th scope="col">Provider</th>
            <th scope="col">Status</th>
            <th scope="col">Default model</th>
          </tr>
        </thead>
        <tbody>
          <tr>
            <td>mock</td>
            <td>
              <span className="badge ok">always available</span> deterministic offline replies for trying Smriti and for tests
            </td>
            <td>mock</td>
          </tr>
          {list.map(([name, s]) => (
            <tr key={name}>
              <td>{name}</td>
              <td>
                <span className={`badge ${s.configured ? "ok" : "warn"}`}>{s.configured ? "ready" : "not configured"}</span> {s.status_label}
              </td>
              <td className="mono">{s.default_model || "—"}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <h2>Background intelligence</h2>
      {bg && (
        <div className="card" data-testid="background-slot">
          <p>
            <strong>{bg.provider || "none"}</strong> {bg.model && <span className="mono">/ {bg.model}</span>}{" "}
            <span className={`badge ${bg.using_mock ? "warn" : bg.configured ? "ok" : "bad"}`}>{bg.using_mock ? "mock" : bg.configured ? "ready" : "not configured"}</span>
          </p>
          <p>{bg.status_label}</p>
        </div>
      )}
      <h2>Variables to set</h2>
      <table>
        <tbody>
          {VARS.map(([k, v]) => (
            <tr key={k}>
              <th scope="row" className="mono">
                {k}
              </th>
              <td>{v}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </>
  );
}
