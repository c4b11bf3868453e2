import { useCallback, useMemo, useRef, useState } from "react";
import { useQueryClient } from "@tanstack/react-query";
import { api, sendStream, type ContextInfo, type ProvidersStatus, type SendBody, type Session } from "../../api";
import type { ProviderChoice } from "../../components/Composer";
import { queryKeys } from "../../lib/queryKeys";

const LABELS: Record<string, string> = { openai: "OpenAI", anthropic: "Anthropic", openrouter: "OpenRouter", generic: "Generic (OpenAI-compatible)" };
/** Keys of the providers endpoint that are not chat providers: "chat" names the chat default, not a provider. */
export const NOT_PROVIDERS = new Set(["background_intelligence", "chat"]);
/** Titles a session has before it is named after its first turns. */
const PLACEHOLDER_TITLES = /^(|new session|first session|untitled|untitled session|↳ fork from .*)$/i;

/**
 * The composer's side of the chat: the provider and model a send uses, the
 * send itself (streamed, its reply shown as it comes), what the last reply
 * was built from, and the session's title after its first reply.
 */
export function useComposer(sessionId: string, session: Session | undefined, providers: ProvidersStatus | undefined) {
  const qc = useQueryClient();
  const [provider, setProvider] = useState<string | null>(null);
  const [model, setModel] = useState<string | null>(null);
  const [pending, setPending] = useState<{ text: string; reply: string } | null>(null);
  const [lastCtx, setLastCtx] = useState<ContextInfo | null>(null);

  const choices: ProviderChoice[] = useMemo(() => {
    const list: ProviderChoice[] = [{ name: "mock", label: "Mock (offline, deterministic)", ready: true, defaultModel: "mock" }];
    for (const [name, st] of Object.entries(providers ?? {})) {
      if (NOT_PROVIDERS.has(name) || !st || typeof st !== "object") continue;
      const s = st as { configured: boolean; default_model: string };
      list.push({ name, label: LABELS[name] ?? name, ready: s.configured, defaultModel: s.default_model });
    }
    return list;
  }, [providers]);
  const activeProvider = provider ?? (session?.active_provider && choices.some((c) => c.name === session.active_provider && c.ready) ? session.active_provider : "mock");
  const activeModel = model ?? (activeProvider === session?.active_provider ? session?.active_model ?? "" : "");

  const body = useCallback(
    (message: string): SendBody => ({
      session_id: sessionId,
      provider: activeProvider,
      model: activeModel || (activeProvider === "mock" ? "mock" : ""),
      message,
      use_mock: activeProvider === "mock",
    }),
    [sessionId, activeProvider, activeModel],
  );

  // After the first reply a session still called "New session" is named
  // after its turns through the title endpoint (best effort: a failure
  // leaves the title as it is).
  const titled = useRef(false);
  function maybeTitle(turnCount: number) {
    const se = qc.getQueryData<{ title: string }>(queryKeys.session(sessionId));
    if (titled.current || turnCount > 4 || !PLACEHOLDER_TITLES.test((se?.title ?? "").trim())) return;
    titled.current = true;
    api.title(sessionId).then(
      (ns) => {
        qc.setQueryData(queryKeys.session(sessionId), ns);
        qc.invalidateQueries({ queryKey: queryKeys.sessions() });
      },
      () => {},
    );
  }

  async function send(text: string, key: string, signal: AbortSignal) {
    setPending({ text, reply: "" });
    let reply = "";
    try {
      const res = await sendStream(
        body(text),
        key,
        {
          onMeta: (m) => setLastCtx(m.context),
          onDelta: (d) => {
            reply += d;
            setPending((p) => (p ? { ...p, reply: p.reply + d } : p));
          },
        },
        signal,
      ).catch((e) => {
        // Stopped: the server stores the question and the reply as far as it
        // got, marked stopped, once it notices the client left.
        if ((e as Error).name === "AbortError") {
          for (const ms of [150, 600, 1500]) setTimeout(() => void qc.invalidateQueries({ queryKey: queryKeys.turns(sessionId) }), ms);
        }
        throw e;
      });
      setLastCtx(res.context);
      await qc.invalidateQueries({ queryKey: queryKeys.turns(sessionId) });
      qc.invalidateQueries({ queryKey: queryKeys.sessions() });
      maybeTitle(res.turn_count);
    } finally {
      setPending(null);
    }
  }

  const chooseProvider = (p: string) => {
    setProvider(p);
    setModel("");
  };

  return { choices, activeProvider, activeModel, chooseProvider, chooseModel: setModel, body, send, pending, lastCtx, setLastCtx };
}
