import { useCallback, useEffect, useMemo, useRef, useState } from "react";
import { Link, useLocation, useNavigate, useParams, useSearchParams } from "react-router-dom";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import * as DropdownMenu from "@radix-ui/react-dropdown-menu";
import { toast } from "sonner";
import { Eye, FileClock, GitFork, History, MoreHorizontal, Plus } from "lucide-react";
import { api, sendStream, short, type Checkpoint, type ContextInfo, type ContextPreview, type Draft, type SendBody, type Turn } from "../api";
import { Composer, type ComposerControl, type ProviderChoice } from "../components/Composer";
import { Thread } from "../components/Thread";
import { contextLine } from "../lib/contextLine";
import { useMarkThreadPainted, useThreadPainted } from "../lib/threadPainted";
import { usePageTitle } from "../lib/title";
import { chatShortcut, onCommand } from "../lib/commands";
import { ContextDrawer } from "../components/ContextDrawer";
import { HistoryPanel, type MountedOn } from "../components/HistoryPanel";
import { CheckpointForm, type CheckpointFields } from "../components/CheckpointForm";
import { SavedForLater } from "../components/SavedForLater";
import { proposalsApi, type Proposal } from "../lib/proposals";
import { RebasedNotice } from "../components/ConflictDialog";
import { Modal } from "../components/Modal";
import { useSpaceEvents } from "../events";
import { useThreadTurns } from "../lib/turnPages";
import { queryKeys } from "../lib/queryKeys";
import { useProviders, useSession, useSpace } from "../lib/queries";

const LABELS: Record<string, string> = { openai: "OpenAI", anthropic: "Anthropic", openrouter: "OpenRouter", generic: "Generic (OpenAI-compatible)" };
/** Keys of the providers endpoint that are not chat providers: "chat" names the chat default, not a provider. */
export const NOT_PROVIDERS = new Set(["background_intelligence", "chat"]);
/** Titles a session has before it is named after its first turns. */
const PLACEHOLDER_TITLES = /^(|new session|first session|untitled|untitled session|↳ fork from .*)$/i;

export default function ChatPage() {
  const { sessionId = "" } = useParams();
  const [params] = useSearchParams();
  const turn = params.get("turn");
  const at = turn != null && /^\d+$/.test(turn) ? Number(turn) : null;
  // A new session starts with fresh page state (drafts, streams); the mount lives on the session.
  return <Chat key={`${sessionId}@${at ?? ""}`} sessionId={sessionId} at={at} />;
}

function Chat({ sessionId, at }: { sessionId: string; at: number | null }) {
  const qc = useQueryClient();
  const nav = useNavigate();
  const session = useSession(sessionId);
  const turns = useThreadTurns(sessionId, at);
  // Side reads wait for the thread's first frame (lib/threadPainted).
  const painted = useThreadPainted();
  useMarkThreadPainted(!turns.query.isPending && !!session.data);
  const lastSeq = useRef(-1);
  lastSeq.current = turns.turns.length ? turns.turns[turns.turns.length - 1].sequence_number : -1;
  const spaceId = session.data?.repo_id ?? null;
  const space = useSpace(spaceId, { enabled: !!spaceId });
  const head = useQuery({ queryKey: queryKeys.head(spaceId), queryFn: () => api.head(spaceId!), enabled: !!spaceId });
  const providers = useProviders({ staleTime: 60_000 });
  const forkedFrom = session.data?.forked_from_checkpoint_id;
  const forkSource = useQuery({ queryKey: queryKeys.checkpoint(forkedFrom), queryFn: () => api.checkpoint(forkedFrom!), enabled: !!forkedFrom });
  const mounted = session.data?.mount ?? null;
  const mountedCheckpoint = useQuery({
    queryKey: queryKeys.checkpoint(mounted?.checkpoint_id),
    queryFn: () => api.checkpoint(mounted!.checkpoint_id),
    enabled: !!mounted,
  });
  const mount: MountedOn | null = mounted
    ? { id: mounted.checkpoint_id, hash: mountedCheckpoint.data?.commit_hash ?? "", baseSeq: mounted.history_base_seq }
    : null;
  useSpaceEvents(spaceId);

  const [provider, setProvider] = useState<string | null>(null);
  const [model, setModel] = useState<string | null>(null);
  const [mountError, setMountError] = useState("");
  const [pending, setPending] = useState<{ text: string; reply: string } | null>(null);
  const composer = useRef<ComposerControl | null>(null);
  const loc = useLocation();
  const [lastCtx, setLastCtx] = useState<ContextInfo | null>(null);
  const [drawer, setDrawer] = useState<{ preview?: ContextPreview; error?: string } | null>(null);
  const [panel, setPanel] = useState(false);
  const [creating, setCreating] = useState(false);
  const [later, setLater] = useState<Proposal | null>(null);
  const [saved, setSaved] = useState<{ cp: Checkpoint; review?: { issues: { type: string; description: string }[]; suggestions: string[] }; reviewError?: string } | null>(null);
  const [forking, setForking] = useState<Checkpoint | null>(null);
  const [branch, setBranch] = useState("");
  const [forkError, setForkError] = useState("");
  const reachable = useQuery({ queryKey: queryKeys.reachable(sessionId), queryFn: () => api.reachable(sessionId), enabled: !!spaceId && painted });
  usePageTitle(session.data ? session.data.title || "Untitled session" : "Chat");
  // The checkpoint the form opens on: the mount, else what the server says
  // the next checkpoint of this session builds on (its branch's newest, or
  // the fork point before a fork's first).
  const nextBase = useQuery({ queryKey: queryKeys.nextBase(spaceId, sessionId), queryFn: () => api.nextBase(spaceId!, sessionId), enabled: !!spaceId && !mounted && painted });
  const nextBaseId = nextBase.data?.base_checkpoint_id ?? null;
  const nextBaseCheckpoint = useQuery({ queryKey: queryKeys.checkpoint(nextBaseId), queryFn: () => api.checkpoint(nextBaseId!), enabled: !!nextBaseId && !mounted });
  const baseCheckpoint: Checkpoint | null = mounted ? (mountedCheckpoint.data ?? null) : (nextBaseCheckpoint.data ?? null);

  // The form edits items by id: it needs the base's items view.
  const baseItems = useQuery({ queryKey: queryKeys.checkpointItems(baseCheckpoint?.id), queryFn: () => api.checkpointItems(baseCheckpoint!.id), enabled: !!baseCheckpoint });
  // Until its items view comes the form fills from the content and takes the ids when they arrive.
  const formBase = baseItems.data?.id === baseCheckpoint?.id ? (baseItems.data ?? null) : baseCheckpoint;
  const rebasedFrom = saved?.cp.rebased_from ?? null;
  const savedOnto = saved?.cp.parent_commit_id ?? null;
  const rebasedBase = useQuery({ queryKey: queryKeys.checkpoint(rebasedFrom), queryFn: () => api.checkpoint(rebasedFrom!), enabled: !!rebasedFrom });
  const rebasedHead = useQuery({ queryKey: queryKeys.checkpoint(savedOnto), queryFn: () => api.checkpoint(savedOnto!), enabled: !!rebasedFrom && !!savedOnto });
  const cpLabel = (id: string | null, c: Checkpoint | undefined) => (c ? `${short(c.commit_hash)} “${c.message}”` : (id ?? "").slice(0, 8));

  const choices: ProviderChoice[] = useMemo(() => {
    const list: ProviderChoice[] = [{ name: "mock", label: "Mock (offline, deterministic)", ready: true, defaultModel: "mock" }];
    for (const [name, st] of Object.entries(providers.data ?? {})) {
      if (NOT_PROVIDERS.has(name) || !st || typeof st !== "object") continue;
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

  // Where the model's context starts in this thread (the server decides):
  // asked again whenever the thread, the mount or the head moves.
  const contextView = useQuery({
    queryKey: queryKeys.contextView(sessionId, lastSeq.current, mounted?.checkpoint_id ?? null, head.data?.commit_id ?? null, activeProvider, activeModel),
    queryFn: () => api.context(body("(your next message)")),
    enabled: !!session.data && !pending && painted,
    placeholderData: (prev) => prev,
  });

  async function send(text: string, key: string, signal: AbortSignal) {
    setPending({ text, reply: "" });
    let reply = "";
    try {
      const res = await sendStream(
        body(text),
        key,
        {
          onMeta: (m) => setLastCtx(m.context),
          onDelta: (d) => {
            reply += d;
            setPending((p) => (p ? { ...p, reply: p.reply + d } : p));
          },
        },
        signal,
      ).catch((e) => {
        // Stopped: the server stores the question and the reply as far as it
        // got, marked stopped, once it notices the client left.
        if ((e as Error).name === "AbortError") {
          for (const ms of [150, 600, 1500]) setTimeout(() => void qc.invalidateQueries({ queryKey: queryKeys.turns(sessionId) }), ms);
        }
        throw e;
      });
      setLastCtx(res.context);
      await qc.invalidateQueries({ queryKey: queryKeys.turns(sessionId) });
      qc.invalidateQueries({ queryKey: queryKeys.sessions() });
      maybeTitle(res.turn_count);
    } finally {
      setPending(null);
    }
  }

  // After the first reply a session still called "New session" is named
  // after its turns through the title endpoint (best effort: a failure
  // leaves the title as it is).
  const titled = useRef(false);
  function maybeTitle(turnCount: number) {
    const se = qc.getQueryData<{ title: string }>(queryKeys.session(sessionId));
    if (titled.current || turnCount > 4 || !PLACEHOLDER_TITLES.test((se?.title ?? "").trim())) return;
    titled.current = true;
    api.title(sessionId).then(
      (ns) => {
        qc.setQueryData(queryKeys.session(sessionId), ns);
        qc.invalidateQueries({ queryKey: queryKeys.sessions() });
      },
      () => {},
    );
  }

  // "Send again" puts the message in the box, to send as it is or edited:
  // nothing is appended until the user sends it.
  function retry(t: Turn) {
    composer.current?.fill(t.content);
  }

  // Regenerate the newest reply: its question is asked again in this
  // session (turns are never rewritten; both answers stay in the thread).
  function regenerate(t: Turn) {
    const q = [...list].reverse().find((u) => u.role === "user" && u.sequence_number < t.sequence_number);
    if (q && !pending) composer.current?.send(q.content);
  }

  // The newest checkpoint this session can reach that was saved before a
  // message: the state a fork or an edit from that message starts from.
  // A turn the context includes comes after the context's base checkpoint
  // (the server says where the context starts: an exact order, not a time);
  // for an older turn, a checkpoint saved in an earlier second than it.
  const checkpointBefore = (t: Turn | null): Checkpoint | null => {
    const cps = (reachable.data ?? []).slice().sort((a, b) => b.created_at.localeCompare(a.created_at));
    if (!t) return cps[0] ?? null;
    const pv = contextView.data;
    const anchor = pv?.checkpoints[pv.checkpoints.length - 1];
    if (anchor && t.sequence_number >= (pv?.allowed_from_seq ?? Infinity)) return cps.find((c) => c.id === anchor.id) ?? null;
    return cps.find((c) => c.created_at < t.created_at) ?? null;
  };
  const firstUserSeq = turns.turns.find((t) => t.role === "user")?.sequence_number;
  // An edit branches from the state before the message: a fork of the
  // checkpoint before it, or for the first message, a new session.
  const canEdit = (t: Turn) => !!spaceId && (checkpointBefore(t) != null || (t.sequence_number === firstUserSeq && !forkedFrom && !mounted));
  async function editAsBranch(t: Turn, text: string) {
    if (!spaceId) return;
    try {
      const at = checkpointBefore(t);
      const id = at
        ? (await api.fork(spaceId, at.id, "")).session_id
        : (await api.createSession(spaceId, "New session", activeProvider, activeModel)).id;
      qc.invalidateQueries({ queryKey: queryKeys.sessions() });
      nav(`/sessions/${id}`, { state: { send: text } });
    } catch (e) {
      toast.error(`Could not branch: ${(e as Error).message}`);
    }
  }
  // A session opened to send a message (an edit as a branch) sends it once.
  const autoSent = useRef(false);
  useEffect(() => {
    const text = (loc.state as { send?: string } | null)?.send;
    // Once the thread has loaded, so the reply's refetch is not raced by the first read.
    if (!text || autoSent.current || !session.data || !turns.query.isSuccess || !composer.current) return;
    autoSent.current = true;
    nav(loc.pathname + loc.search, { replace: true, state: null });
    composer.current.send(text);
  });

  // Fork from a message: the newest checkpoint this session can reach that
  // was saved before the message; without one there is nothing to fork from.
  function forkAt(t: Turn | null) {
    const at = checkpointBefore(t);
    if (!at) {
      toast.info(t ? "No checkpoint was saved before this message: create one to fork from here." : "This session has no checkpoint to fork from yet.");
      return;
    }
    setBranch("");
    setForkError("");
    setForking(at);
  }

  async function doFork() {
    if (!forking || !spaceId) return;
    setForkError("");
    try {
      const f = await api.fork(spaceId, forking.id, branch.trim());
      qc.invalidateQueries({ queryKey: queryKeys.sessions() });
      setForking(null);
      nav(`/sessions/${f.session_id}`);
    } catch (e) {
      setForkError((e as Error).message);
    }
  }

  async function newSession() {
    if (!spaceId) return;
    const ns = await api.createSession(spaceId, "New session", activeProvider, activeModel);
    qc.invalidateQueries({ queryKey: queryKeys.sessions() });
    nav(`/sessions/${ns.id}`);
  }

  const commands = useRef<(c: string) => boolean>(() => false);
  commands.current = (c: string) => {
    if (c === "create-checkpoint" && spaceId) setCreating(true);
    else if (c === "fork") forkAt(null);
    else if (c === "new-session") void newSession();
    else if (c === "focus-composer") composer.current?.focus();
    else if (c === "stop") return composer.current?.stop() ?? false;
    return true;
  };
  useEffect(() => onCommand((c) => void commands.current(c)), []);
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      const c = chatShortcut(e);
      if (c && commands.current(c) !== false) e.preventDefault();
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, []);

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
    qc.invalidateQueries({ queryKey: queryKeys.reachable(sessionId) });
    qc.invalidateQueries({ queryKey: queryKeys.head(spaceId) });
    qc.invalidateQueries({ queryKey: queryKeys.nextBase(spaceId) });
    qc.invalidateQueries({ queryKey: queryKeys.checkpoints(spaceId) });
    setSaved({ cp });
    toast.success(`Checkpoint ${short(cp.commit_hash)} saved on ${cp.branch_name}`);
  }

  // "Save for later": the draft waits on the server as a proposal (source web).
  async function saveForLater({ resolutions: _, ...f }: CheckpointFields) {
    const p = await proposalsApi.save(spaceId!, { ...f, session_id: sessionId, source: "web" });
    qc.invalidateQueries({ queryKey: queryKeys.proposals(spaceId) });
    setCreating(false);
    setLater(p);
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
      qc.setQueryData(queryKeys.checkpoint(c.id), c);
      qc.setQueryData(queryKeys.session(sessionId), await api.mount(sessionId, c.id));
      setLastCtx(null);
    } catch (e) {
      setMountError((e as Error).message);
    }
  }

  async function unmount() {
    setMountError("");
    try {
      qc.setQueryData(queryKeys.session(sessionId), await api.unmount(sessionId));
      setLastCtx(null);
    } catch (e) {
      setMountError((e as Error).message);
    }
  }

  if (session.isError) return <p className="error">Could not load the session: {(session.error as Error).message}</p>;
  if (!session.data) return <p>Loading…</p>;
  const se = session.data;
  const list = turns.turns;
  const line = contextLine(contextView.data);
  const startIndex = line?.startSeq != null ? list.findIndex((t) => t.sequence_number === line.startSeq) : -1;
  const divider = line ? (
    <div className="divider context-start" role="note" data-testid="context-start">
      {line.label}
    </div>
  ) : null;

  return (
    <div className={panel && spaceId ? "chat with-panel" : "chat"}>
      <div className="chat-main">
        <header className="chat-header">
          <div className="row spread" style={{ flexWrap: "nowrap" }}>
            <h1>{se.title || "Untitled session"}</h1>
            <div className="row" style={{ flexWrap: "nowrap" }}>
              {spaceId && (
                <button className="primary" onClick={() => setCreating(true)}>
                  <FileClock size={15} aria-hidden /> Create checkpoint
                </button>
              )}
              {spaceId && (
                <button aria-pressed={panel} onClick={() => setPanel((p) => !p)}>
                  <History size={15} aria-hidden /> History
                </button>
              )}
              <DropdownMenu.Root>
                <DropdownMenu.Trigger asChild>
                  <button className="icon-btn" aria-label="More actions">
                    <MoreHorizontal size={18} aria-hidden />
                  </button>
                </DropdownMenu.Trigger>
                <DropdownMenu.Portal>
                  <DropdownMenu.Content className="menu" align="end" sideOffset={4}>
                    {spaceId && (
                      <DropdownMenu.Item className="menu-item" onSelect={() => void newSession()}>
                        <Plus size={15} aria-hidden /> New session
                      </DropdownMenu.Item>
                    )}
                    <DropdownMenu.Item className="menu-item" onSelect={openDrawer}>
                      <Eye size={15} aria-hidden /> What the model sees
                    </DropdownMenu.Item>
                    {spaceId && (
                      <DropdownMenu.Item className="menu-item" onSelect={() => forkAt(null)}>
                        <GitFork size={15} aria-hidden /> Fork from the latest checkpoint
                      </DropdownMenu.Item>
                    )}
                  </DropdownMenu.Content>
                </DropdownMenu.Portal>
              </DropdownMenu.Root>
            </div>
          </div>
          <div className="row small" style={{ marginTop: "0.3rem" }}>
            {space.data && <Link to={`/spaces/${space.data.id}/lineage?session=${se.id}`}>{space.data.name}</Link>}
            {se.branch_name !== "main" && <span className="badge">branch {se.branch_name}</span>}
            <button className="badge accent" title={badge.title} onClick={() => setPanel(true)} data-testid="context-badge">
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
        <Thread
          // Mounted again once the first page is in, so that it opens at the
          // newest message in its first render (see Thread's initialOffset).
          key={turns.query.isPending ? "loading" : "loaded"}
          turns={list}
          hasOlder={turns.hasOlder}
          loadingOlder={turns.loadingOlder}
          onReachTop={() => void turns.loadOlder()}
          focusSeq={at}
          pending={pending}
          outside={line ? (t) => line.outside(t.sequence_number) : undefined}
          actions={{
            onRetry: retry,
            onRegenerate: pending ? undefined : regenerate,
            onEdit: spaceId ? editAsBranch : undefined,
            canEdit,
            onFork: spaceId ? forkAt : undefined,
            canFork: (t) => checkpointBefore(t) != null,
          }}
          dividerBefore={(_, i) => (i === startIndex ? divider : null)}
          dividerAfter={(_, i) => (line && line.startSeq == null && i === list.length - 1 ? divider : null)}
          empty={
            <div className="empty-thread">
              <p>
                {forkedFrom
                  ? `Forked from ${short(forkSource.data?.commit_hash)}: start typing to explore this branch.`
                  : head.data?.commit_hash
                    ? `Continuing from the latest checkpoint: ${head.data.summary ?? ""}`
                    : "Start a new conversation."}
              </p>
            </div>
          }
        />
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
          draftKey={sessionId}
          control={composer}
        />
      </div>
      {panel && spaceId && (
        <HistoryPanel sessionId={sessionId} spaceId={spaceId} mount={mount} onMount={mountCheckpoint} onUnmount={unmount} onClose={() => setPanel(false)} />
      )}
      {drawer && <ContextDrawer preview={drawer.preview} error={drawer.error} onClose={() => setDrawer(null)} />}
      {later && (
        <Modal title="Saved for later" onClose={() => setLater(null)}>
          <SavedForLater proposal={later} />
        </Modal>
      )}
      {(creating || saved) && (
        <Modal
          title={saved ? "Checkpoint saved" : "Create checkpoint"}
          wide={!saved}
          onClose={() => {
            setCreating(false);
            setSaved(null);
          }}
        >
          {saved ? (
            <>
              <p>
                <span className="mono">{short(saved.cp.commit_hash)}</span> on <span className="badge">{saved.cp.branch_name}</span>: {saved.cp.message}
              </p>
              {rebasedFrom && <RebasedNotice head={cpLabel(savedOnto, rebasedHead.data)} base={cpLabel(rebasedFrom, rebasedBase.data)} />}
              <div className="row">
                <button onClick={review} data-autofocus>
                  Review it
                </button>
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
            </>
          ) : (
            <CheckpointForm
              base={formBase}
              draftAvailable={!!bg && (bg.configured || bg.using_mock || bg.has_key)}
              onDraft={(): Promise<Draft> => api.draft({ session_id: sessionId })}
              onSubmit={saveCheckpoint}
              onSaveForLater={saveForLater}
            />
          )}
        </Modal>
      )}
      {forking && (
        <Modal title={`Fork from ${short(forking.commit_hash)}`} onClose={() => setForking(null)}>
          <form
            onSubmit={(e) => {
              e.preventDefault();
              void doFork();
            }}
          >
            <p className="muted small">
              A new branch starts from “{forking.message}”; the messages after it stay on this branch.
            </p>
            <label htmlFor="chat-fork-branch">Branch name (empty for a generated one)</label>
            <input id="chat-fork-branch" value={branch} onChange={(e) => setBranch(e.target.value)} style={{ width: "100%" }} />
            {forkError && (
              <p className="error" role="alert">
                {forkError}
              </p>
            )}
            <div className="row" style={{ marginTop: "0.8rem" }}>
              <button className="primary" type="submit">
                Create branch
              </button>
              <button type="button" onClick={() => setForking(null)}>
                Cancel
              </button>
            </div>
          </form>
        </Modal>
      )}
    </div>
  );
}
