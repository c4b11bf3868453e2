import { useEffect, useRef, useState } from "react";
import { useLocation, useNavigate, useParams, useSearchParams } from "react-router-dom";
import { api, short, type Draft, type Turn } from "../api";
import { Composer, type ComposerControl } from "../components/Composer";
import { Thread } from "../components/Thread";
import { contextLine } from "../lib/contextLine";
import { useMarkThreadPainted, useThreadPainted } from "../lib/threadPainted";
import { usePageTitle } from "../lib/title";
import { chatShortcut, onCommand } from "../lib/commands";
import { ContextDrawer } from "../components/ContextDrawer";
import { HistoryPanel } from "../components/HistoryPanel";
import { useSpaceEvents } from "../events";
import { useThreadTurns } from "../lib/turnPages";
import { useCheckpoint, useHead, useProviders, useSession, useSpace } from "../lib/queries";
import { ChatHeader } from "./chat/ChatHeader";
import { CheckpointModal } from "./chat/CheckpointModal";
import { ForkModal } from "./chat/ForkModal";
import { useBranching } from "./chat/useBranching";
import { useCheckpointPanel } from "./chat/useCheckpointPanel";
import { useComposer } from "./chat/useComposer";
import { useContextPanel } from "./chat/useContextPanel";
import { useMount } from "./chat/useMount";

export default function ChatPage() {
  const { sessionId = "" } = useParams();
  const [params] = useSearchParams();
  const turn = params.get("turn");
  const at = turn != null && /^\d+$/.test(turn) ? Number(turn) : null;
  // A new session starts with fresh page state (drafts, streams); the mount lives on the session.
  return <Chat key={`${sessionId}@${at ?? ""}`} sessionId={sessionId} at={at} />;
}

/**
 * A session's chat: the thread (turns, paging, where the model's context
 * starts), the composer (send, streaming), the context badge and drawer,
 * the history panel with the mount, and the checkpoint and fork dialogs —
 * each concern a hook or a component under chat/.
 */
function Chat({ sessionId, at }: { sessionId: string; at: number | null }) {
  const nav = useNavigate();
  const loc = useLocation();
  const session = useSession(sessionId);
  const turns = useThreadTurns(sessionId, at);
  // Side reads wait for the thread's first frame (lib/threadPainted).
  const painted = useThreadPainted();
  useMarkThreadPainted(!turns.query.isPending && !!session.data);
  const lastSeq = turns.turns.length ? turns.turns[turns.turns.length - 1].sequence_number : -1;
  const spaceId = session.data?.repo_id ?? null;
  const space = useSpace(spaceId, { enabled: !!spaceId });
  const head = useHead(spaceId, { enabled: !!spaceId });
  const providers = useProviders({ staleTime: 60_000 });
  const forkedFrom = session.data?.forked_from_checkpoint_id;
  const forkSource = useCheckpoint(forkedFrom, { enabled: !!forkedFrom });
  useSpaceEvents(spaceId);
  usePageTitle(session.data ? session.data.title || "Untitled session" : "Chat");

  const composing = useComposer(sessionId, session.data, providers.data);
  const { pending, activeProvider, activeModel } = composing;
  const mounting = useMount(sessionId, session.data, () => composing.setLastCtx(null));
  const { mounted, mount } = mounting;
  const context = useContextPanel({
    sessionId,
    session: session.data,
    lastSeq,
    head: head.data,
    mount,
    forkHash: forkSource.data?.commit_hash,
    lastCtx: composing.lastCtx,
    provider: activeProvider,
    model: activeModel,
    body: composing.body,
    enabled: !!session.data && !pending && painted,
  });
  const checkpoints = useCheckpointPanel({ sessionId, spaceId, mountedCheckpoint: mounting.mountedCheckpoint, mounted: !!mounted, painted });
  const branching = useBranching({
    sessionId,
    spaceId,
    turns: turns.turns,
    contextView: context.contextView,
    forked: !!forkedFrom,
    mounted: !!mounted,
    provider: activeProvider,
    model: activeModel,
    painted,
  });
  const [panel, setPanel] = useState(false);
  const composer = useRef<ComposerControl | null>(null);
  const bg = providers.data?.background_intelligence;

  // "Send again" puts the message in the box, to send as it is or edited:
  // nothing is appended until the user sends it.
  function retry(t: Turn) {
    composer.current?.fill(t.content);
  }

  // Regenerate the newest reply: its question is asked again in this
  // session (turns are never rewritten; both answers stay in the thread).
  function regenerate(t: Turn) {
    const q = [...turns.turns].reverse().find((u) => u.role === "user" && u.sequence_number < t.sequence_number);
    if (q && !pending) composer.current?.send(q.content);
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

  const commands = useRef<(c: string) => boolean>(() => false);
  commands.current = (c: string) => {
    if (c === "create-checkpoint" && spaceId) checkpoints.create();
    else if (c === "fork") branching.forkAt(null);
    else if (c === "new-session") void branching.newSession();
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

  if (session.isError) return <p className="error">Could not load the session: {(session.error as Error).message}</p>;
  if (!session.data) return <p>Loading…</p>;
  const se = session.data;
  const list = turns.turns;
  const line = contextLine(context.contextView);
  const startIndex = line?.startSeq != null ? list.findIndex((t) => t.sequence_number === line.startSeq) : -1;
  const divider = line ? (
    <div className="divider context-start" role="note" data-testid="context-start">
      {line.label}
    </div>
  ) : null;
  const { checkpointBefore, canEdit, editAsBranch, forkAt } = branching;

  return (
    <div className={panel && spaceId ? "chat with-panel" : "chat"}>
      <div className="chat-main">
        <ChatHeader
          session={se}
          space={space.data}
          inSpace={!!spaceId}
          badge={context.badge}
          mounted={!!mount}
          mountError={mounting.mountError}
          panel={panel}
          onPanel={setPanel}
          onCreate={checkpoints.create}
          onNewSession={() => void branching.newSession()}
          onOpenDrawer={() => void context.openDrawer()}
          onFork={() => forkAt(null)}
          onUnmount={() => void mounting.unmount()}
        />
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
          providers={composing.choices}
          provider={activeProvider}
          model={activeModel}
          onProvider={composing.chooseProvider}
          onModel={composing.chooseModel}
          send={composing.send}
          status={context.status}
          draftKey={sessionId}
          control={composer}
        />
      </div>
      {panel && spaceId && (
        <HistoryPanel sessionId={sessionId} spaceId={spaceId} mount={mount} onMount={mounting.mountCheckpoint} onUnmount={mounting.unmount} onClose={() => setPanel(false)} />
      )}
      {context.drawer && <ContextDrawer preview={context.drawer.preview} error={context.drawer.error} onClose={context.closeDrawer} />}
      <CheckpointModal
        panel={checkpoints}
        draftAvailable={!!bg && (bg.configured || bg.using_mock || bg.has_key)}
        onDraft={(): Promise<Draft> => api.draft({ session_id: sessionId })}
      />
      <ForkModal fork={branching.fork} />
    </div>
  );
}
