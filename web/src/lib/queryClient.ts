import { QueryClient } from "@tanstack/react-query";

/** The page's one query cache (main.tsx provides it; App warms it for the address it opens on). */
export const queryClient = new QueryClient({ defaultOptions: { queries: { retry: 1, refetchOnWindowFocus: false, staleTime: 5_000 } } });
