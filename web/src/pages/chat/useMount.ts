import { useState } from "react";
import { useQueryClient } from "@tanstack/react-query";
import { api, type Checkpoint, type Session } from "../../api";
import type { MountedOn } from "../../components/HistoryPanel";
import { useCheckpoint } from "../../lib/queries";
import { queryKeys } from "../../lib/queryKeys";

/**
 * The session's mount. The server keeps it on the session: a reload shows
 * it again and every later send and draft uses it without naming it.
 * onChange runs after the mount changed (what the last reply was built
 * from no longer says what the next one will be).
 */
export function useMount(sessionId: string, session: Session | undefined, onChange: () => void) {
  const qc = useQueryClient();
  const mounted = session?.mount ?? null;
  const mountedCheckpoint = useCheckpoint(mounted?.checkpoint_id, { enabled: !!mounted });
  const [mountError, setMountError] = useState("");
  const mount: MountedOn | null = mounted
    ? { id: mounted.checkpoint_id, hash: mountedCheckpoint.data?.commit_hash ?? "", baseSeq: mounted.history_base_seq }
    : null;

  async function mountCheckpoint(c: Checkpoint) {
    setMountError("");
    try {
      qc.setQueryData(queryKeys.checkpoint(c.id), c);
      qc.setQueryData(queryKeys.session(sessionId), await api.mount(sessionId, c.id));
      onChange();
    } catch (e) {
      setMountError((e as Error).message);
    }
  }

  async function unmount() {
    setMountError("");
    try {
      qc.setQueryData(queryKeys.session(sessionId), await api.unmount(sessionId));
      onChange();
    } catch (e) {
      setMountError((e as Error).message);
    }
  }

  return { mounted, mountedCheckpoint: mountedCheckpoint.data ?? null, mount, mountError, mountCheckpoint, unmount };
}
