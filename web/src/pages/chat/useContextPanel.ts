import { useState } from "react";
import { useQuery } from "@tanstack/react-query";
import { api, short, type ContextInfo, type ContextPreview, type Head, type SendBody, type Session } from "../../api";
import type { MountedOn } from "../../components/HistoryPanel";
import { queryKeys } from "../../lib/queryKeys";

/**
 * What the model is given, as the chat shows it: the badge (the context
 * mode the next send starts in), the status line (what the last reply was
 * built from), where the model's context starts in the thread (the server
 * decides: asked again whenever the thread, the mount or the head moves),
 * and the drawer with the whole preview.
 */
export function useContextPanel(o: {
  sessionId: string;
  session: Session | undefined;
  lastSeq: number;
  head: Head | undefined;
  mount: MountedOn | null;
  forkHash: string | undefined;
  lastCtx: ContextInfo | null;
  provider: string;
  model: string;
  body: (message: string) => SendBody;
  enabled: boolean;
}) {
  const { session, head, mount, lastCtx } = o;
  const [drawer, setDrawer] = useState<{ preview?: ContextPreview; error?: string } | null>(null);

  const badge = mount
    ? { text: `MOUNTED · ${short(mount.hash)}`, title: "Only this checkpoint and the turns after the mount reach the model" }
    : session?.forked_from_checkpoint_id
      ? { text: `FORKED · ${short(o.forkHash)}`, title: "This branch starts from the checkpoint it was forked from" }
      : head?.commit_hash && session?.branch_name === "main"
        ? { text: `HEAD · ${short(head.commit_hash)}`, title: "The latest checkpoint on main is included with every message" }
        : { text: "FRESH", title: "No checkpoint: context starts from this conversation alone" };

  const status = lastCtx
    ? `ctx: ${lastCtx.mode.toUpperCase()}${lastCtx.commit_hashes.length ? " · " + lastCtx.commit_hashes.map(short).join(", ") : ""}` +
      (lastCtx.from_seq != null ? ` · turns #${lastCtx.from_seq}–#${lastCtx.to_seq}` : " · no earlier turns") +
      (lastCtx.dropped_turns ? ` · ${lastCtx.dropped_turns} dropped` : "")
    : `ctx: ${badge.text}`;

  const contextView = useQuery({
    queryKey: queryKeys.contextView(o.sessionId, o.lastSeq, session?.mount?.checkpoint_id ?? null, head?.commit_id ?? null, o.provider, o.model),
    queryFn: () => api.context(o.body("(your next message)")),
    enabled: o.enabled,
    placeholderData: (prev) => prev,
  });

  async function openDrawer() {
    setDrawer({});
    try {
      setDrawer({ preview: await api.context(o.body("(your next message)")) });
    } catch (e) {
      setDrawer({ error: (e as Error).message });
    }
  }

  return { badge, status, contextView: contextView.data, drawer, openDrawer, closeDrawer: () => setDrawer(null) };
}
