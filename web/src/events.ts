import { useEffect } from "react";
import { useQueryClient } from "@tanstack/react-query";
import { api } from "./api";
import { useAuth } from "./AuthGate";
import { queryKeys } from "./lib/queryKeys";

export interface SpaceEvent {
  position: number;
  space_id: string;
  kind: string;
  subject_id: string;
  branch_name: string;
}

/**
 * Subscribes to a space's live events and refreshes the queries they
 * affect. EventSource reconnects on its own and sends Last-Event-ID, so no
 * event is lost across a reconnect. A stream the server refused (its
 * session ended) is closed for good, so the hook then asks who is signed
 * in, which brings back the sign-in screen on a 401, and opens a new stream
 * after each sign-in.
 */
export function useSpaceEvents(spaceId: string | null | undefined, onEvent?: (e: SpaceEvent) => void) {
  const qc = useQueryClient();
  const signIns = useAuth()?.signIns ?? 0;
  useEffect(() => {
    if (!spaceId || typeof EventSource === "undefined") return;
    const es = new EventSource(`/api/v5/spaces/${spaceId}/events`);
    const handle = (msg: MessageEvent) => {
      const ev = JSON.parse(msg.data) as SpaceEvent;
      switch (ev.kind) {
        case "checkpoint.created":
          qc.invalidateQueries({ queryKey: queryKeys.tree(spaceId) });
          qc.invalidateQueries({ queryKey: queryKeys.checkpoints(spaceId) });
          qc.invalidateQueries({ queryKey: queryKeys.head(spaceId) });
          qc.invalidateQueries({ queryKey: queryKeys.nextBase(spaceId) });
          qc.invalidateQueries({ queryKey: queryKeys.reachable() });
          break;
        case "session.created":
        case "session.updated":
        case "disposition.changed":
          qc.invalidateQueries({ queryKey: queryKeys.sessions() });
          qc.invalidateQueries({ queryKey: queryKeys.tree(spaceId) });
          qc.invalidateQueries({ queryKey: queryKeys.session(ev.subject_id) });
          // A send from another tab, the CLI or an agent: the thread refetches its turns.
          qc.invalidateQueries({ queryKey: queryKeys.turns(ev.subject_id) });
          break;
        default:
          qc.invalidateQueries({ queryKey: queryKeys.state(spaceId) });
      }
      onEvent?.(ev);
    };
    for (const k of ["checkpoint.created", "session.created", "session.updated", "disposition.changed", "claim.changed"]) {
      es.addEventListener(k, handle as EventListener);
    }
    es.onerror = () => {
      if (es.readyState === EventSource.CLOSED) api.me().catch(() => {});
    };
    return () => es.close();
  }, [spaceId, qc, onEvent, signIns]);
}
