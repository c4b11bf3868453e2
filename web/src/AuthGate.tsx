import { createContext, Fragment, useCallback, useContext, useEffect, useState, type ReactNode } from "react";
import { useQueryClient } from "@tanstack/react-query";
import { api, ApiError, onUnauthorized, type Me } from "./api";
import { SignIn } from "./components/SignIn";

/**
 * What the gate knows: still asking the server, who is signed in, or that
 * nobody is (auth mode without a session). "expired" is a session that
 * ended while the workspace was open: the workspace stays mounted, hidden,
 * so what was typed survives the new sign-in.
 */
export type AuthState =
  | { kind: "checking" }
  | { kind: "failed"; message: string }
  | { kind: "signed-out" }
  | { kind: "signed-in"; me: Me }
  | { kind: "expired"; me: Me };

interface AuthContextValue {
  me: Me;
  /** Counts the sign-ins of this page, so long-lived streams can reopen after one. */
  signIns: number;
  signOut: () => Promise<void>;
}

const AuthContext = createContext<AuthContextValue | null>(null);

/** Who is signed in and how to sign out; null outside the gate. */
export const useAuth = () => useContext(AuthContext);

let early: Promise<Me> | null = null;

/**
 * Asks who is signed in at once (main.tsx, as the page loads), so the
 * answer travels beside the page's own code instead of after the first
 * render; the gate's first check takes it.
 */
export function askWhoEarly() {
  early = api.me();
  early.catch(() => {});
}

/**
 * Asks GET /api/v4/auth/me once: in local mode it names the local user and
 * the workspace loads as it always has; in auth mode without a session it
 * answers 401 and the sign-in screen shows. Any later 401 from the API
 * brings the sign-in screen back.
 */
export function AuthGate({ children }: { children: ReactNode }) {
  const qc = useQueryClient();
  const [state, setState] = useState<AuthState>({ kind: "checking" });
  const [signIns, setSignIns] = useState(0);

  const check = useCallback(() => {
    setState({ kind: "checking" });
    const ask = early ?? api.me();
    early = null;
    ask.then(
      (me) => setState({ kind: "signed-in", me }),
      (e: unknown) => {
        if (e instanceof ApiError && e.status === 401) setState({ kind: "signed-out" });
        else setState({ kind: "failed", message: (e as Error).message || "The server could not be reached." });
      },
    );
  }, []);

  useEffect(check, [check]);

  useEffect(
    () =>
      onUnauthorized(() =>
        setState((s) => (s.kind === "signed-in" && s.me.via !== "local" ? { kind: "expired", me: s.me } : s)),
      ),
    [],
  );

  const signOut = useCallback(async () => {
    await api.logout();
    qc.clear();
    setState({ kind: "signed-out" });
  }, [qc]);

  const signedIn = useCallback(
    async (previous: Me | null) => {
      const me = await api.me();
      if (previous && previous.user_id === me.user_id) {
        // The same person again: refetch what failed, keep the page as it was.
        await qc.invalidateQueries();
      } else {
        qc.clear();
      }
      setSignIns((n) => n + 1);
      setState({ kind: "signed-in", me });
    },
    [qc],
  );

  switch (state.kind) {
    case "checking":
      return (
        <main className="signin" aria-busy="true">
          <p>Loading…</p>
        </main>
      );
    case "failed":
      return (
        <main className="signin">
          <div className="card">
            <h1>Smriti is not reachable</h1>
            <p className="error" role="alert">
              {state.message}
            </p>
            <button type="button" onClick={check}>
              Try again
            </button>
          </div>
        </main>
      );
    case "signed-out":
      return <SignIn onSignedIn={() => signedIn(null)} />;
  }
  const me = state.me;
  const expired = state.kind === "expired";
  return (
    <AuthContext.Provider value={{ me, signOut, signIns }}>
      {expired && <SignIn expired onSignedIn={() => signedIn(me)} />}
      <div hidden={expired}>
        {/* A different user remounts the workspace with nothing of the last one's. */}
        <Fragment key={me.user_id}>{children}</Fragment>
      </div>
    </AuthContext.Provider>
  );
}

/** "Signed in as …" and Sign out, for a browser session only (nothing in local mode). */
export function AccountBox() {
  const auth = useAuth();
  const [error, setError] = useState("");
  if (!auth || auth.me.via === "local") return null;
  return (
    <div className="account small" data-testid="account">
      <span className="muted">
        Signed in as <strong>{auth.me.username}</strong>
      </span>
      {auth.me.via === "session" && (
        <button
          type="button"
          onClick={() => {
            setError("");
            auth.signOut().catch((e: Error) => setError(e.message || "Sign out failed"));
          }}
        >
          Sign out
        </button>
      )}
      {error && (
        <span className="error" role="alert">
          {error}
        </span>
      )}
    </div>
  );
}
