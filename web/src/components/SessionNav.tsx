import { useMemo, useState } from "react";
import { NavLink, useMatch, useNavigate } from "react-router-dom";
import { useQueryClient } from "@tanstack/react-query";
import { GitBranch, MessageSquare, Plus } from "lucide-react";
import { toast } from "sonner";
import { api, type Session, type Space } from "../api";
import { queryKeys } from "../lib/queryKeys";
import { useSessions, useSpaces } from "../lib/queries";

/** Sessions shown per space before "Show all". */
export const SESSIONS_PER_SPACE = 5;

export interface SpaceGroup {
  space: Space | null;
  sessions: Session[];
}

/** Sessions grouped by space (spaces in the order of their newest session; sessions without a space last). */
export function groupSessions(sessions: Session[], spaces: Space[]): SpaceGroup[] {
  const byId = new Map(spaces.map((s) => [s.id, s]));
  const groups = new Map<string, SpaceGroup>();
  for (const se of sessions) {
    const key = se.repo_id && byId.has(se.repo_id) ? se.repo_id : "";
    let g = groups.get(key);
    if (!g) groups.set(key, (g = { space: key ? byId.get(key)! : null, sessions: [] }));
    g.sessions.push(se);
  }
  const out = [...groups.entries()].filter(([k]) => k !== "").map(([, g]) => g);
  const loose = groups.get("");
  return loose ? [...out, loose] : out;
}

/**
 * The sidebar's sessions: one group per space with a "New chat" button,
 * the newest few of each and a "Show all" that lists every one.
 */
export function SessionNav() {
  const sessions = useSessions();
  const spaces = useSpaces();
  const groups = useMemo(() => groupSessions(sessions.data ?? [], spaces.data ?? []), [sessions.data, spaces.data]);
  const [all, setAll] = useState<Record<string, boolean>>({});
  const qc = useQueryClient();
  const nav = useNavigate();
  const here = useMatch("/sessions/:sessionId")?.params.sessionId;

  async function newChat(space: Space) {
    try {
      const se = await api.createSession(space.id, "New session", "mock", "");
      qc.invalidateQueries({ queryKey: queryKeys.sessions() });
      nav(`/sessions/${se.id}`);
    } catch (e) {
      toast.error(`Could not start a chat: ${(e as Error).message}`);
    }
  }

  return (
    <div className="session-nav" data-testid="session-nav">
      <button
        type="button"
        className="new-chat"
        onClick={() => {
          const cur = (sessions.data ?? []).find((x) => x.id === here)?.repo_id ?? groups.find((g) => g.space)?.space?.id;
          const sp = (spaces.data ?? []).find((x) => x.id === cur);
          if (sp) void newChat(sp);
          else nav("/");
        }}
      >
        <Plus size={15} aria-hidden /> New chat
      </button>
      <h2 id="nav-sessions">Chats</h2>
      {groups.map((g) => {
        const key = g.space?.id ?? "none";
        const name = g.space?.name ?? "Without a space";
        const open = all[key] || g.sessions.some((s, i) => i >= SESSIONS_PER_SPACE && s.id === here);
        const shown = open ? g.sessions : g.sessions.slice(0, SESSIONS_PER_SPACE);
        return (
          <section key={key} className="nav-group" aria-label={`Chats in ${name}`}>
            <div className="nav-group-head">
              <span className="t">{name}</span>
              {g.space && (
                <button type="button" className="icon-btn" aria-label={`New chat in ${name}`} title="New chat" onClick={() => void newChat(g.space!)}>
                  <Plus size={14} aria-hidden />
                </button>
              )}
            </div>
            <ul>
              {shown.map((s) => (
                <li key={s.id}>
                  <NavLink to={`/sessions/${s.id}`} title={s.title}>
                    {s.branch_name !== "main" ? <GitBranch size={14} aria-label={`branch ${s.branch_name}`} /> : <MessageSquare size={14} aria-hidden />}
                    <span className="t">{s.title || "Untitled"}</span>
                  </NavLink>
                </li>
              ))}
            </ul>
            {g.sessions.length > SESSIONS_PER_SPACE && (
              <button type="button" className="link-btn small" aria-expanded={open} onClick={() => setAll((a) => ({ ...a, [key]: !open }))}>
                {open ? "Show fewer" : `Show all ${g.sessions.length}`}
              </button>
            )}
          </section>
        );
      })}
    </div>
  );
}
