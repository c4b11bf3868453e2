import { useEffect, useRef, useState, type FormEvent } from "react";
import { api, ApiError, type LoginResult } from "../api";

/**
 * The sign-in screen of auth mode. A refused sign-in says why in words and
 * shows the server's detail; the server answers a wrong password, an
 * unknown user and a disabled one alike, so the message names all three.
 */
export function SignIn({ onSignedIn, expired }: { onSignedIn: (r: LoginResult) => void | Promise<void>; expired?: boolean }) {
  const [username, setUsername] = useState("");
  const [password, setPassword] = useState("");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<{ message: string; detail: string } | null>(null);
  const userRef = useRef<HTMLInputElement>(null);
  const passRef = useRef<HTMLInputElement>(null);

  useEffect(() => {
    userRef.current?.focus();
  }, []);

  async function submit(e: FormEvent) {
    e.preventDefault();
    if (busy) return;
    const name = username.trim();
    if (!name || !password) {
      setError({ message: "Enter your username and password.", detail: "" });
      (name ? passRef : userRef).current?.focus();
      return;
    }
    setBusy(true);
    setError(null);
    try {
      const r = await api.login(name, password);
      // Busy until the workspace has loaded in its place.
      await onSignedIn(r);
    } catch (err) {
      const detail = (err as Error).message || "";
      const message =
        err instanceof ApiError && err.status === 401
          ? "Sign-in refused: the username or password is wrong, or the account is disabled."
          : err instanceof ApiError && err.status === 429
            ? "Too many attempts; wait a moment and try again."
            : err instanceof ApiError
              ? "Sign-in failed."
              : "The server could not be reached.";
      setError({ message, detail });
      setPassword("");
      passRef.current?.focus();
    } finally {
      setBusy(false);
    }
  }

  return (
    <main id="main" className="signin" tabIndex={-1}>
      <form className="card" onSubmit={submit} aria-labelledby="signin-title" noValidate>
        <h1 id="signin-title">Sign in to Smriti</h1>
        {expired && (
          <p className="muted" role="status">
            Your session has ended. Sign in again to carry on; what you were typing is kept.
          </p>
        )}
        <label htmlFor="signin-username">Username</label>
        <input
          id="signin-username"
          ref={userRef}
          name="username"
          autoComplete="username"
          autoCapitalize="none"
          spellCheck={false}
          value={username}
          onChange={(e) => setUsername(e.target.value)}
          aria-invalid={error ? true : undefined}
          aria-describedby={error ? "signin-error" : undefined}
        />
        <label htmlFor="signin-password">Password</label>
        <input
          id="signin-password"
          ref={passRef}
          name="password"
          type="password"
          autoComplete="current-password"
          value={password}
          onChange={(e) => setPassword(e.target.value)}
          aria-invalid={error ? true : undefined}
          aria-describedby={error ? "signin-error" : undefined}
        />
        <div id="signin-error" role="alert" className="signin-error">
          {error && (
            <>
              <p className="error">{error.message}</p>
              {error.detail && <p className="muted small" data-testid="signin-detail">Server: {error.detail}</p>}
            </>
          )}
        </div>
        <button type="submit" className="primary" disabled={busy}>
          {busy ? "Signing in…" : "Sign in"}
        </button>
      </form>
    </main>
  );
}
