// The queries several pages share, one hook per resource: the key comes from
// the factory and the fetch from the API client, so two pages that show the
// same resource read (and refresh) the same cache entry.

import { useQuery } from "@tanstack/react-query";
import { api, type ID } from "../api";
import { queryKeys } from "./queryKeys";

type Opts = { enabled?: boolean; staleTime?: number };

export const useSpaces = (o: Opts = {}) => useQuery({ queryKey: queryKeys.spaces(), queryFn: api.spaces, ...o });

export const useSessions = (o: Opts = {}) => useQuery({ queryKey: queryKeys.sessions(), queryFn: api.sessions, ...o });

export const useProviders = (o: Opts = {}) => useQuery({ queryKey: queryKeys.providers(), queryFn: api.providers, ...o });

/** The caller disables it while the id is unknown. */
export const useSpace = (space: ID | null | undefined, o: Opts = {}) => useQuery({ queryKey: queryKeys.space(space), queryFn: () => api.space(space!), ...o });

/** The caller disables it while the id is unknown. */
export const useSession = (session: ID | null | undefined, o: Opts = {}) =>
  useQuery({ queryKey: queryKeys.session(session), queryFn: () => api.session(session!), ...o });

export const useTree = (space: ID, o: Opts = {}) => useQuery({ queryKey: queryKeys.tree(space), queryFn: () => api.tree(space), ...o });

/** The newest checkpoint on a space's main branch; the caller disables it while the id is unknown. */
export const useHead = (space: ID | null | undefined, o: Opts = {}) => useQuery({ queryKey: queryKeys.head(space), queryFn: () => api.head(space!), ...o });

/** The caller disables it while the id is unknown. */
export const useCheckpoint = (id: ID | null | undefined, o: Opts = {}) => useQuery({ queryKey: queryKeys.checkpoint(id), queryFn: () => api.checkpoint(id!), ...o });
