import { useCallback, useMemo, useState } from "react";
import { Link, useNavigate, useParams } from "react-router-dom";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { api, sendStream, short, type Checkpoint, type ContextInfo, type ContextPreview, type SendBody } from "../api";
import { Markdown } from "../components/Markdown";
import { Composer, type ProviderChoice } from "../components/Composer";
import { ContextDrawer } from "../components/ContextDrawer";
import { HistoryPanel, type Mount } from "../components/HistoryPanel";
import { CheckpointForm, type CheckpointFields } from "../components/CheckpointForm";
import { Modal } from "../components/Modal";
import { useSpaceEvents } from "../events";

const LABELS: Record<string, string> = { openai: "OpenAI", anthropic: "Anthropic", openrouter: "OpenRouter", generic: "Generic (OpenAI-compatible)" };

export default function ChatPage() {
  const { sessionId = "" } = useParams();
  // A new session starts with fresh page state (drafts, streams); the mount lives on the session.
  return <Chat key={sessionId} sessionId={sessionId} />;
}

function Chat({ sessionId }: { sessionId: string }) {
  const qc = useQueryClient();
  const nav = useNavigate();
  const session = useQuery({ queryKey: ["session", sessionId], queryFn: () => api.session(sessionId) });
  const turns = useQuery({ queryKey: ["turns", sessionId], queryFn: () => api.turns(sessionId) });
  const spaceId = session.data?.repo_id ?? null;
  const space = useQuery({ queryKey: ["space", spaceId], queryFn: () => api.space(spaceId!), enabled: !!spaceId });
  const head = useQuery({ queryKey: ["head", spaceId], queryFn: () => api.head(spaceId!), enabled: !!spaceId });
  const providers = useQuery({ queryKey: ["providers"], queryFn: api.providers, staleTime: 60_000 });
  const forkedFrom = session.data?.forked_from_checkpoint_id;
  const forkSource = useQuery({ queryKey: ["checkpoint", forkedFrom], queryFn: () => api.checkpoint(forkedFrom!), enabled: !!forkedFrom });
  const mounted = session.data?.mount ?? null;
  const mountedCheckpoint = useQuery({
    queryKey: ["checkpoint", mounted?.checkpoint_id],
    queryFn: () => api.checkpoint(mounted!.checkpoint_id),
    enabled: !!mounted,
  });
  const mount: Mount | null = mounted
    ? { id: mounted.checkpoint_id, hash: mountedCheckpoint.data?.commit_hash ?? "", baseSeq: mounted.history_base_seq }
    : null;
  useSpaceEvents(spaceId);

  const [provider, setProvider] = useState<string | null>(null);
  const [model, setModel] = useState<string | null>(null);
  const [mountError, setMountError] = useState("");
  const [pending, setPending] = useState<{ text: string; reply: string } | null>(null);
  const [lastCtx, setLastCtx] = useState<ContextInfo | null>(null);
  const [drawer, setDrawer] = useState<{ preview?: ContextPreview; error?: string } | null>(null);
  const [panel, setPanel] = useState(false);
  const [creating, setCreating] = useState(false);
  const [saved, setSaved] = useState<{ cp: Checkpoint; review?: { issues: { type: string; description: string }[]; suggestions: string[] }; reviewError?: string } | null>(null);

  const choices: ProviderChoice[] = useMemo(() => {
    const list: ProviderChoice[] = [{ name: "mock", label: "Mock (offline, deterministic)", ready: true, defaultModel: "mock" }];
    for (const [name, st] of Object.entries(providers.data ?? {})) {
      if (name === "background_intelligence" || name === "chat" || !st || typeof st !== "object") continue;
      const s = st as { configured: boolean; default_model: string };
      list.push({ name, label: LABELS[name] ?? name, ready: s.configured, defaultModel: s.default_model });
    }
    return list;
  }, [providers.data]);
  const activeProvider = provider ?? (session.data?.active_provider && choices.some((c) => c.name === session.data!.active_provider && c.ready) ? session.data.active_provider : "mock");
  const activeModel = model ?? (activeProvider === session.data?.active_provider ? session.data?.active_model ?? "" : "");
  const bg = providers.data?.background_intelligence;

  const badge = mount
    ? { text: `MOUNTED · ${short(mount.hash)}`, title: "Only this checkpoint and the turns after the mount reach the model" }
    : forkedFrom
      ? { text: `FORKED · ${short(forkSource.data?.commit_hash)}`, title: "This branch starts from the checkpoint it was forked from" }
      : head.data?.commit_hash && session.data?.branch_name === "main"
        ? { text: `HEAD · ${short(head.data.commit_hash)}`, title: "The latest checkpoint on main is included with every message" }
        : { text: "FRESH", title: "No checkpoint: context starts from this conversation alone" };

  const status = lastCtx
    ? `ctx: ${lastCtx.mode.toUpperCase()}${lastCtx.commit_hashes.length ? " · " + lastCtx.commit_hashes.map(short).join(", ") : ""}` +
      (lastCtx.from_seq != null ? ` · turns #${lastCtx.from_seq}–#${lastCtx.to_seq}` : " · no earlier turns") +
      (lastCtx.dropped_turns ? ` · ${lastCtx.dropped_turns} dropped` : "")
    : `ctx: ${badge.text}`;

  const body = useCallback(
    (message: string): SendBody => ({
      session_id: sessionId,
      provider: activeProvider,
      model: activeModel || (activeProvider === "mock" ? "mock" : ""),
      message,
      use_mock: activeProvider === "mock",
    }),
    [sessionId, activeProvider, activeModel],
  );

  async function send(text: string, key: string, signal: AbortSignal) {
    setPending({ text, reply: "" });
    try {
      const res = await sendStream(
        body(text),
        key,
        {
          onMeta: (m) => setLastCtx(m.context),
          onDelta: (d) => setPending((p) => (p ? { ...p, reply: p.reply + d } : p)),
        },
        signal,
      );
      setLastCtx(res.context);
      await qc.invalidateQueries({ queryKey: ["turns", sessionId] });
      qc.invalidateQueries({ queryKey: ["sessions"] });
    } finally {
      setPending(null);
    }
  }

  async function openDrawer() {
    setDrawer({});
    try {
      setDrawer({ preview: await api.context(body("(your next message)")) });
    } catch (e) {
      setDrawer({ error: (e as Error).message });
    }
  }

  async function saveCheckpoint(f: CheckpointFields) {
    const cp = await api.commit({ repo_id: spaceId!, session_id: sessionId, ...f });
    qc.invalidateQueries({ queryKey: ["reachable", sessionId] });
    qc.invalidateQueries({ queryKey: ["head", spaceId] });
    setCreating(false);
    setSaved({ cp });
  }

  async function review() {
    if (!saved) return;
    try {
      const r = await api.review(saved.cp.id);
      setSaved({ ...saved, review: r });
    } catch (e) {
      setSaved({ ...saved, reviewError: (e as Error).message });
    }
  }

  // The server keeps the mount on the session: a reload shows it again and
  // every later send and draft uses it without naming it.
  async function mountCheckpoint(c: Checkpoint) {
    setMountError("");
    try {
      qc.setQueryData(["checkpoint", c.id], c);
      qc.setQueryData(["session", sessionId], await api.mount(sessionId, c.id));
      setLastCtx(null);
    } catch (e) {
      setMountError((e as Error).message);
    }
  }

  async function unmount() {
    setMountError("");
    try {
      qc.setQueryData(["session", sessionId], await api.unmount(sessionId));
      setLastCtx(null);
    } catch (e) {
      setMountError((e as Error).message);
    }
  }

  if (session.isError) return <p className="error">Could not load the session: {(session.error as Error).message}</p>;
  if (!session.data) return <p>Loading…</p>;
  const se = session.data;
  const list = turns.data ?? [];

  return (
    <div className={panel && spaceId ? "chat with-panel" : "chat"}>
      <div>
        <header>
          <div className="row spread">
            <h1 style={{ margin: "0 0 0.3rem" }}>{se.title || "Untitled session"}</h1>
            <div className="row">
              {spaceId && (
                <button className="primary" onClick={() => setCreating(true)}>
                  Create checkpoint
                </button>
              )}
              {spaceId && (
                <button
                  onClick={async () => {
                    const ns = await api.createSession(spaceId, "New session", activeProvider, activeModel);
                    qc.invalidateQueries({ queryKey: ["sessions"] });
                    nav(`/sessions/${ns.id}`);
                  }}
                >
                  New session
                </button>
              )}
              <button onClick={openDrawer}>What the model sees</button>
              {spaceId && (
                <button aria-pressed={panel} onClick={() => setPanel((p) => !p)}>
                  History
                </button>
              )}
            </div>
          </div>
          <div className="row small">
            {space.data && <Link to={`/spaces/${space.data.id}/lineage?session=${se.id}`}>{space.data.name}</Link>}
            {se.branch_name !== "main" && <span className="badge">branch {se.branch_name}</span>}
            <button className="badge" title={badge.title} onClick={() => setPanel(true)} data-testid="context-badge">
              {badge.text}
            </button>
            {mount && (
              <button className="small" onClick={unmount}>
                Unmount
              </button>
            )}
          </div>
          {mountError && (
            <p className="error" role="alert">
              {mountError}
            </p>
          )}
        </header>
        <section className="thread" aria-label="Conversation" aria-live="polite">
          {list.length === 0 && !pending && (
            <p className="muted">
              {forkedFrom
                ? `Forked from ${short(forkSource.data?.commit_hash)}: start typing to explore this branch.`
                : head.data?.commit_hash
                  ? `Continuing from the latest checkpoint: ${head.data.summary ?? ""}`
                  : "Start a new conversation."}
            </p>
          )}
          {list.map((t, i) => {
            const dim = mount != null && t.sequence_number <= mount.baseSeq;
            const divider = mount != null && dim && (i === list.length - 1 || list[i + 1].sequence_number > mount.baseSeq);
            return (
              <div key={t.id} style={{ display: "contents" }}>
                <article className={`msg ${t.role}${dim ? " dim" : ""}`} aria-label={`${t.role} message ${t.sequence_number}`} data-testid={`turn-${t.role}`}>
                  {t.role === "assistant" ? <Markdown text={t.content} /> : t.content}
                  {t.role === "assistant" && (
                    <div className="muted small">
                      {t.provider}/{t.model}
                    </div>
                  )}
                </article>
                {divider && (
                  <div className="divider" role="note">
                    Mounted {short(mount!.hash)}: the conversation above is excluded; the model sees only the checkpoint and the messages below.
                  </div>
                )}
              </div>
            );
          })}
          {pending && (
            <>
              <article className="msg user">{pending.text}</article>
              <article className="msg assistant" aria-busy="true" data-testid="streaming-reply">
                <Markdown text={pending.reply || "…"} />
              </article>
            </>
          )}
        </section>
        <Composer
          providers={choices}
          provider={activeProvider}
          model={activeModel}
          onProvider={(p) => {
            setProvider(p);
            setModel("");
          }}
          onModel={setModel}
          send={send}
          status={status}
        />
      </div>
      {panel && spaceId && (
        <HistoryPanel sessionId={sessionId} spaceId={spaceId} mount={mount} onMount={mountCheckpoint} onUnmount={unmount} />
      )}
      {drawer && <ContextDrawer preview={drawer.preview} error={drawer.error} onClose={() => setDrawer(null)} />}
      {creating && (
        <Modal title="Create checkpoint" onClose={() => setCreating(false)}>
          <CheckpointForm
            draftAvailable={!!bg && (bg.configured || bg.using_mock || bg.has_key)}
            onDraft={() => api.draft({ session_id: sessionId })}
            onSubmit={saveCheckpoint}
          />
        </Modal>
      )}
      {saved && (
        <Modal title="Checkpoint saved" onClose={() => setSaved(null)}>
          <p>
            <span className="mono">{short(saved.cp.commit_hash)}</span> on <span className="badge">{saved.cp.branch_name}</span>: {saved.cp.message}
          </p>
          <div className="row">
            <button onClick={review}>Review it</button>
            <Link to={`/checkpoints/${saved.cp.id}`}>Open details</Link>
          </div>
          {saved.reviewError && <p className="error">{saved.reviewError}</p>}
          {saved.review && (
            <div data-testid="review">
              <h3>Issues</h3>
              {saved.review.issues.length === 0 ? (
                <p>None found.</p>
              ) : (
                <ul>
                  {saved.review.issues.map((i, k) => (
                    <li key={k}>
                      <span className="badge">{i.type}</span> {i.description}
                    </li>
                  ))}
                </ul>
              )}
              <h3>Suggestions</h3>
              {saved.review.suggestions.length === 0 ? <p>None.</p> : <ul>{saved.review.suggestions.map((s, k) => <li key={k}>{s}</li>)}</ul>}
            </div>
          )}
        </Modal>
      )}
    </div>
  );
}
