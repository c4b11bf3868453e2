import { useMemo, useState } from "react";
import { Command } from "cmdk";
import { useMatch, useNavigate } from "react-router-dom";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { FileClock, GitBranch, GitFork, Keyboard, LayoutDashboard, MessageSquare, Moon, Plus, Search, Settings, Sun, Users } from "lucide-react";
import { api, short, type Session } from "../api";
import { CHAT_SHORTCUTS, keysOf, sendCommand } from "../lib/commands";
import { queryKeys } from "../lib/queryKeys";
import { useSession, useSessions, useSpaces } from "../lib/queries";

/** A key hint beside a palette item. */
function Hint({ keys }: { keys?: string }) {
  return keys ? <kbd className="palette-kbd">{keys}</kbd> : null;
}

const SEARCH_ITEM = "full-text-search";

/**
 * Every typed word must occur in the item's text; items whose words start
 * with the typed ones rank higher. "Search for …" always matches, last.
 */
export function paletteFilter(value: string, search: string): number {
  if (value === SEARCH_ITEM) return 0.01;
  const v = value.toLowerCase();
  const words = search.toLowerCase().split(/\s+/).filter(Boolean);
  if (!words.length) return 1;
  let score = 1;
  for (const w of words) {
    const i = v.indexOf(w);
    if (i < 0) return 0;
    if (i === 0 || v[i - 1] === " ") score += 1;
  }
  return score / (1 + words.length);
}

/**
 * The Ctrl/⌘+K palette: go to a space, session or checkpoint, start a
 * session, create a checkpoint, fork, search, switch theme. What it can do
 * depends on the page: on a chat page it acts on that session's space.
 */
export function Palette({
  open,
  onOpenChange,
  onShortcuts,
  onTheme,
  dark,
}: {
  open: boolean;
  onOpenChange: (o: boolean) => void;
  onShortcuts: () => void;
  onTheme: () => void;
  dark: boolean;
}) {
  const nav = useNavigate();
  const qc = useQueryClient();
  const [q, setQ] = useState("");
  const onSession = useMatch("/sessions/:sessionId");
  const onSpace = useMatch("/spaces/:spaceId/*");
  const sessionId = onSession?.params.sessionId;
  const sessions = useSessions({ enabled: open });
  const spaces = useSpaces({ enabled: open });
  const current = useSession(sessionId, { enabled: open && !!sessionId });
  const spaceId = onSpace?.params.spaceId ?? current.data?.repo_id ?? null;
  const checkpoints = useQuery({ queryKey: queryKeys.checkpoints(spaceId), queryFn: () => api.checkpoints(spaceId!), enabled: open && !!spaceId });
  const spaceName = useMemo(() => new Map((spaces.data ?? []).map((s) => [s.id, s.name])), [spaces.data]);

  const go = (to: string) => {
    onOpenChange(false);
    setQ("");
    nav(to);
  };
  const run = (fn: () => void) => {
    onOpenChange(false);
    setQ("");
    fn();
  };
  async function newSession() {
    const target = spaceId ?? (sessions.data ?? []).find((s: Session) => s.repo_id)?.repo_id;
    if (!target) return go("/");
    const se = await api.createSession(target, "New session", "mock", "");
    qc.invalidateQueries({ queryKey: queryKeys.sessions() });
    go(`/sessions/${se.id}`);
  }

  return (
    <Command.Dialog
      open={open}
      onOpenChange={onOpenChange}
      label="Command palette"
      filter={paletteFilter}
      overlayClassName="palette-back"
      contentClassName="palette"
    >
      <Command.Input value={q} onValueChange={setQ} placeholder="Type a command, a space, a session or a checkpoint…" aria-label="Command" />
      <Command.List>
        <Command.Empty>Nothing matches.</Command.Empty>
        <Command.Group heading="Actions">
          <Command.Item value="new session" onSelect={() => run(() => void newSession())}>
            <Plus size={16} aria-hidden /> New session <Hint keys={sessionId ? keysOf("new-session") : undefined} />
          </Command.Item>
          {sessionId && (
            <>
              <Command.Item value="create checkpoint" onSelect={() => run(() => sendCommand("create-checkpoint"))}>
                <FileClock size={16} aria-hidden /> Create checkpoint <Hint keys={keysOf("create-checkpoint")} />
              </Command.Item>
              <Command.Item value="focus the message box composer" onSelect={() => run(() => sendCommand("focus-composer"))}>
                <MessageSquare size={16} aria-hidden /> Focus the message box <Hint keys={keysOf("focus-composer")} />
              </Command.Item>
              <Command.Item value="fork from a checkpoint" onSelect={() => run(() => sendCommand("fork"))}>
                <GitFork size={16} aria-hidden /> Fork from a checkpoint…
              </Command.Item>
            </>
          )}
          <Command.Item value="toggle theme dark light" onSelect={() => run(onTheme)}>
            {dark ? <Sun size={16} aria-hidden /> : <Moon size={16} aria-hidden />} Switch to {dark ? "light" : "dark"} theme
          </Command.Item>
          <Command.Item value="keyboard shortcuts help" onSelect={() => run(onShortcuts)}>
            <Keyboard size={16} aria-hidden /> Keyboard shortcuts <Hint keys="?" />
          </Command.Item>
        </Command.Group>
        <Command.Group heading="Go to">
          <Command.Item value="go overview home" onSelect={() => go("/")}>
            <LayoutDashboard size={16} aria-hidden /> Overview
          </Command.Item>
          <Command.Item value="go settings providers" onSelect={() => go("/settings")}>
            <Settings size={16} aria-hidden /> Settings
          </Command.Item>
          {(spaces.data ?? []).map((s) => (
            <Command.Item key={`l-${s.id}`} value={`space lineage ${s.name} ${s.id}`} onSelect={() => go(`/spaces/${s.id}/lineage`)}>
              <GitBranch size={16} aria-hidden /> {s.name} — lineage
            </Command.Item>
          ))}
          {(spaces.data ?? []).map((s) => (
            <Command.Item key={`c-${s.id}`} value={`space coordination ${s.name} ${s.id}`} onSelect={() => go(`/spaces/${s.id}/coordination`)}>
              <Users size={16} aria-hidden /> {s.name} — coordination
            </Command.Item>
          ))}
        </Command.Group>
        <Command.Group heading="Sessions">
          {(sessions.data ?? []).slice(0, 40).map((s) => (
            <Command.Item key={s.id} value={`session ${s.title} ${s.branch_name} ${s.id}`} onSelect={() => go(`/sessions/${s.id}`)}>
              <MessageSquare size={16} aria-hidden /> {s.title || "Untitled"}
              <span className="muted small">
                {s.repo_id ? spaceName.get(s.repo_id) : ""}
                {s.branch_name !== "main" ? ` · ${s.branch_name}` : ""}
              </span>
            </Command.Item>
          ))}
        </Command.Group>
        {spaceId && (checkpoints.data ?? []).length > 0 && (
          <Command.Group heading="Checkpoints">
            {(checkpoints.data ?? []).slice(0, 60).map((c) => (
              <Command.Item key={c.id} value={`checkpoint ${short(c.commit_hash)} ${c.message} ${c.branch_name}`} onSelect={() => go(`/checkpoints/${c.id}`)}>
                <FileClock size={16} aria-hidden /> <span className="mono">{short(c.commit_hash)}</span> {c.message}
                <span className="muted small">{c.branch_name}</span>
              </Command.Item>
            ))}
          </Command.Group>
        )}
        {q.trim() && (
          <Command.Group heading="Search">
            <Command.Item value={SEARCH_ITEM} onSelect={() => go(`/search?${new URLSearchParams({ q: q.trim() })}`)}>
              <Search size={16} aria-hidden /> Search for “{q.trim()}”
            </Command.Item>
          </Command.Group>
        )}
      </Command.List>
    </Command.Dialog>
  );
}

export function ShortcutsSheet() {
  const rows: [string, string][] = [
    ["Ctrl/⌘ + K", "Open the command palette"],
    ["/", "Focus search"],
    ["?", "Show these shortcuts"],
    ["Esc", "Close a dialog, menu or the palette"],
    ["Enter", "Send the message"],
    ["Shift + Enter", "New line in the message"],
    ["Ctrl/⌘ + Enter", "Save the open form (checkpoint, fork)"],
    ["↑ ↓ Home End", "Move between messages in the thread"],
    ["← →", "Move through a message's actions"],
    ...CHAT_SHORTCUTS.map((s): [string, string] => [s.keys, s.label]),
  ];
  return (
    <dl className="shortcuts" data-testid="shortcuts">
      {rows.map(([k, v]) => (
        <div key={k}>
          <dt>
            <kbd>{k}</kbd>
          </dt>
          <dd>{v}</dd>
        </div>
      ))}
    </dl>
  );
}
