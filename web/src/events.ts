import { useEffect } from "react";
import { useQueryClient } from "@tanstack/react-query";

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
 * event is lost across a reconnect.
 */
export function useSpaceEvents(spaceId: string | null | undefined, onEvent?: (e: SpaceEvent) => void) {
  const qc = useQueryClient();
  useEffect(() => {
    if (!spaceId || typeof EventSource === "undefined") return;
    const es = new EventSource(`/api/v5/spaces/${spaceId}/events`);
    const handle = (msg: MessageEvent) => {
      const ev = JSON.parse(msg.data) as SpaceEvent;
      switch (ev.kind) {
        case "checkpoint.created":
          qc.invalidateQueries({ queryKey: ["tree", spaceId] });
          qc.invalidateQueries({ queryKey: ["checkpoints", spaceId] });
          qc.invalidateQueries({ queryKey: ["head", spaceId] });
          qc.invalidateQueries({ queryKey: ["reachable"] });
          break;
        case "session.created":
        case "session.updated":
        case "disposition.changed":
          qc.invalidateQueries({ queryKey: ["sessions"] });
          qc.invalidateQueries({ queryKey: ["tree", spaceId] });
          qc.invalidateQueries({ queryKey: ["session", ev.subject_id] });
          break;
        default:
          qc.invalidateQueries({ queryKey: ["state", spaceId] });
      }
      onEvent?.(ev);
    };
    for (const k of ["checkpoint.created", "session.created", "session.updated", "disposition.changed", "claim.changed"]) {
      es.addEventListener(k, handle as EventListener);
    }
    return () => es.close();
  }, [spaceId, qc, onEvent]);
}
