import { useState } from "react";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import { api, short, type Checkpoint } from "../../api";
import type { CheckpointFields } from "../../components/CheckpointForm";
import { useCheckpoint } from "../../lib/queries";
import { queryKeys } from "../../lib/queryKeys";
import { proposalsApi, type Proposal } from "../../lib/proposals";
import { toast } from "sonner";

export type Saved = { cp: Checkpoint; review?: { issues: { type: string; description: string }[]; suggestions: string[] }; reviewError?: string };

/**
 * Creating a checkpoint from the chat: the checkpoint the form opens on,
 * saving it (or keeping it as a proposal for later), and the saved
 * checkpoint's review.
 */
export function useCheckpointPanel(o: { sessionId: string; spaceId: string | null; mountedCheckpoint: Checkpoint | null; mounted: boolean; painted: boolean }) {
  const { sessionId, spaceId, mounted } = o;
  const qc = useQueryClient();
  const [creating, setCreating] = useState(false);
  const [later, setLater] = useState<Proposal | null>(null);
  const [saved, setSaved] = useState<Saved | null>(null);
  // The checkpoint the form opens on: the mount, else what the server says
  // the next checkpoint of this session builds on (its branch's newest, or
  // the fork point before a fork's first).
  const nextBase = useQuery({ queryKey: queryKeys.nextBase(spaceId, sessionId), queryFn: () => api.nextBase(spaceId!, sessionId), enabled: !!spaceId && !mounted && o.painted });
  const nextBaseId = nextBase.data?.base_checkpoint_id ?? null;
  const nextBaseCheckpoint = useCheckpoint(nextBaseId, { enabled: !!nextBaseId && !mounted });
  const baseCheckpoint: Checkpoint | null = mounted ? o.mountedCheckpoint : (nextBaseCheckpoint.data ?? null);

  // The form edits items by id: it needs the base's items view.
  const baseItems = useQuery({ queryKey: queryKeys.checkpointItems(baseCheckpoint?.id), queryFn: () => api.checkpointItems(baseCheckpoint!.id), enabled: !!baseCheckpoint });
  // Until its items view comes the form fills from the content and takes the ids when they arrive.
  const formBase = baseItems.data?.id === baseCheckpoint?.id ? (baseItems.data ?? null) : baseCheckpoint;
  const rebasedFrom = saved?.cp.rebased_from ?? null;
  const savedOnto = saved?.cp.parent_commit_id ?? null;
  const rebasedBase = useCheckpoint(rebasedFrom, { enabled: !!rebasedFrom });
  const rebasedHead = useCheckpoint(savedOnto, { enabled: !!rebasedFrom && !!savedOnto });
  const cpLabel = (id: string | null, c: Checkpoint | undefined) => (c ? `${short(c.commit_hash)} “${c.message}”` : (id ?? "").slice(0, 8));
  const rebased = rebasedFrom ? { head: cpLabel(savedOnto, rebasedHead.data), base: cpLabel(rebasedFrom, rebasedBase.data) } : null;

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

  const close = () => {
    setCreating(false);
    setSaved(null);
  };

  return { creating, create: () => setCreating(true), saved, rebased, later, closeLater: () => setLater(null), close, formBase, saveCheckpoint, saveForLater, review };
}
