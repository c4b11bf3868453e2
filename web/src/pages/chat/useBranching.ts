import { useState } from "react";
import { useNavigate } from "react-router-dom";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { toast } from "sonner";
import { api, type Checkpoint, type ContextPreview, type Turn } from "../../api";
import { queryKeys } from "../../lib/queryKeys";

/**
 * Branching from the thread: forking from a message (or the latest
 * checkpoint), editing a message as a new branch, and a new session of
 * the space.
 */
export function useBranching(o: {
  sessionId: string;
  spaceId: string | null;
  turns: Turn[];
  contextView: ContextPreview | undefined;
  forked: boolean;
  mounted: boolean;
  provider: string;
  model: string;
  painted: boolean;
}) {
  const { spaceId } = o;
  const qc = useQueryClient();
  const nav = useNavigate();
  const [forking, setForking] = useState<Checkpoint | null>(null);
  const [branch, setBranch] = useState("");
  const [forkError, setForkError] = useState("");
  const reachable = useQuery({ queryKey: queryKeys.reachable(o.sessionId), queryFn: () => api.reachable(o.sessionId), enabled: !!spaceId && o.painted });

  // The newest checkpoint this session can reach that was saved before a
  // message: the state a fork or an edit from that message starts from.
  // A turn the context includes comes after the context's base checkpoint
  // (the server says where the context starts: an exact order, not a time);
  // for an older turn, a checkpoint saved in an earlier second than it.
  const checkpointBefore = (t: Turn | null): Checkpoint | null => {
    const cps = (reachable.data ?? []).slice().sort((a, b) => b.created_at.localeCompare(a.created_at));
    if (!t) return cps[0] ?? null;
    const pv = o.contextView;
    const anchor = pv?.checkpoints[pv.checkpoints.length - 1];
    if (anchor && t.sequence_number >= (pv?.allowed_from_seq ?? Infinity)) return cps.find((c) => c.id === anchor.id) ?? null;
    return cps.find((c) => c.created_at < t.created_at) ?? null;
  };
  const firstUserSeq = o.turns.find((t) => t.role === "user")?.sequence_number;
  // An edit branches from the state before the message: a fork of the
  // checkpoint before it, or for the first message, a new session.
  const canEdit = (t: Turn) => !!spaceId && (checkpointBefore(t) != null || (t.sequence_number === firstUserSeq && !o.forked && !o.mounted));
  async function editAsBranch(t: Turn, text: string) {
    if (!spaceId) return;
    try {
      const at = checkpointBefore(t);
      const id = at ? (await api.fork(spaceId, at.id, "")).session_id : (await api.createSession(spaceId, "New session", o.provider, o.model)).id;
      qc.invalidateQueries({ queryKey: queryKeys.sessions() });
      nav(`/sessions/${id}`, { state: { send: text } });
    } catch (e) {
      toast.error(`Could not branch: ${(e as Error).message}`);
    }
  }

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
    const ns = await api.createSession(spaceId, "New session", o.provider, o.model);
    qc.invalidateQueries({ queryKey: queryKeys.sessions() });
    nav(`/sessions/${ns.id}`);
  }

  return {
    checkpointBefore,
    canEdit,
    editAsBranch,
    forkAt,
    newSession,
    fork: { forking, branch, setBranch, error: forkError, submit: doFork, cancel: () => setForking(null) },
  };
}
