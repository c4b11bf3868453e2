import { afterEach, describe, expect, it, vi } from "vitest";
import { cleanup, render, screen, waitFor } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { QueryClient, QueryClientProvider, useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { AccountBox, AuthGate } from "./AuthGate";
import { api, type Me } from "./api";
import { queryKeys } from "./lib/queryKeys";

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

const alice: Me = { user_id: "u-alice", username: "alice", scope: "admin", via: "session", token_id: null };
const local: Me = { user_id: "u-local", username: "local", scope: "admin", via: "local", token_id: null };

const json = (data: unknown, status = 200) => new Response(JSON.stringify(data), { status, headers: { "Content-Type": "application/json" } });
const unauthorized = () => json({ detail: "missing, invalid, expired or revoked credentials" }, 401);

/**
 * A server in auth mode (or local mode when localMode is set): one user
 * alice / "correct horse", a session flag the cookie stands for, and a
 * record of every request.
 */
function fakeServer(opts: { localMode?: boolean; signedIn?: boolean } = {}) {
  const srv = { session: !!opts.signedIn, calls: [] as { method: string; path: string; body: unknown }[] };
  const fetchFn = async (input: RequestInfo | URL, init?: RequestInit) => {
    const path = String(input);
    const method = init?.method ?? "GET";
    const body = init?.body ? JSON.parse(String(init.body)) : undefined;
    srv.calls.push({ method, path, body });
    if (path === "/api/v4/auth/login" && method === "POST") {
      const b = body as { username: string; password: string };
      if (b.username === "alice" && b.password === "correct horse") {
        srv.session = true;
        return json({ user: { id: alice.user_id, username: "alice", disabled: false, created_at: "2026-01-01T00:00:00Z" }, expires_at: "2026-01-02T00:00:00Z" });
      }
      return unauthorized();
    }
    if (path === "/api/v4/auth/logout" && method === "POST") {
      srv.session = false;
      return new Response(null, { status: 204 });
    }
    if (!opts.localMode && !srv.session) return unauthorized();
    if (path === "/api/v4/auth/me") return json(opts.localMode ? local : alice);
    if (path === "/api/v2/repos") return json([{ id: "r1", name: "Trip", description: "", project_root: null, created_at: "", updated_at: "" }]);
    return json({ detail: "not found" }, 404);
  };
  vi.stubGlobal("fetch", vi.fn(fetchFn));
  return srv;
}

/** A small workspace: one query, a draft box that must survive a re-sign-in, and the account box. */
function Workspace() {
  const spaces = useQuery({ queryKey: queryKeys.spaces(), queryFn: api.spaces });
  const [draft, setDraft] = useState("");
  return (
    <main>
      <h1>Workspace</h1>
      {spaces.isError && <p>{(spaces.error as Error).message}</p>}
      <ul aria-label="Spaces">
        {(spaces.data ?? []).map((s) => (
          <li key={s.id}>{s.name}</li>
        ))}
      </ul>
      <label htmlFor="draft">Draft</label>
      <textarea id="draft" value={draft} onChange={(e) => setDraft(e.target.value)} />
      <button type="button" onClick={() => spaces.refetch()}>
        Reload spaces
      </button>
      <AccountBox />
    </main>
  );
}

function setup() {
  const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  render(
    <QueryClientProvider client={client}>
      <AuthGate>
        <Workspace />
      </AuthGate>
    </QueryClientProvider>,
  );
}

describe("AuthGate", () => {
  it("loads the workspace at once in local mode, with no sign-in screen and no sign-out control", async () => {
    const srv = fakeServer({ localMode: true });
    setup();
    expect(await screen.findByText("Trip")).toBeTruthy();
    expect(screen.queryByRole("heading", { name: "Sign in to Smriti" })).toBeNull();
    expect(screen.queryByRole("button", { name: "Sign out" })).toBeNull();
    expect(screen.queryByTestId("account")).toBeNull();
    expect(srv.calls.filter((c) => c.path.startsWith("/api/v4/auth/")).map((c) => c.path)).toEqual(["/api/v4/auth/me"]);
  });

  it("shows the sign-in screen in auth mode, refuses a wrong password with the server's detail, then signs in", async () => {
    const srv = fakeServer();
    setup();
    await screen.findByRole("heading", { name: "Sign in to Smriti" });
    expect(screen.queryByRole("heading", { name: "Workspace" })).toBeNull();
    const user = screen.getByLabelText("Username");
    // Focus moves in an effect after the form paints: wait for that state,
    // not for the paint (a busy machine paints late).
    await waitFor(() => expect(document.activeElement).toBe(user));
    await userEvent.type(user, "alice");
    await userEvent.type(screen.getByLabelText("Password"), "wrong password{Enter}");
    const alert = await screen.findByText("Sign-in refused: the username or password is wrong, or the account is disabled.");
    expect(alert.closest("[role=alert]")).toBeTruthy();
    expect(screen.getByTestId("signin-detail").textContent).toBe("Server: missing, invalid, expired or revoked credentials");
    expect((screen.getByLabelText("Password") as HTMLInputElement).value).toBe("");
    await waitFor(() => expect(document.activeElement).toBe(screen.getByLabelText("Password")));
    expect(screen.getByLabelText("Username").getAttribute("aria-describedby")).toBe("signin-error");

    await userEvent.type(screen.getByLabelText("Password"), "correct horse{Enter}");
    expect(await screen.findByText("Trip")).toBeTruthy();
    expect(screen.getByTestId("account").textContent).toContain("Signed in as alice");
    expect(srv.calls.filter((c) => c.path === "/api/v4/auth/login").map((c) => c.body)).toEqual([
      { username: "alice", password: "wrong password" },
      { username: "alice", password: "correct horse" },
    ]);
  });

  it("asks for both fields before calling the server", async () => {
    const srv = fakeServer();
    setup();
    await screen.findByRole("heading", { name: "Sign in to Smriti" });
    await userEvent.click(screen.getByRole("button", { name: "Sign in" }));
    expect((await screen.findByRole("alert")).textContent).toBe("Enter your username and password.");
    expect(srv.calls.some((c) => c.path === "/api/v4/auth/login")).toBe(false);
  });

  it("returns to the sign-in screen on a later 401 and keeps what was typed", async () => {
    const srv = fakeServer({ signedIn: true });
    setup();
    await screen.findByText("Trip");
    await userEvent.type(screen.getByLabelText("Draft"), "half a thought");
    srv.session = false; // the session expires on the server
    await userEvent.click(screen.getByRole("button", { name: "Reload spaces" }));
    await screen.findByRole("heading", { name: "Sign in to Smriti" });
    expect(screen.getByRole("status").textContent).toContain("Your session has ended");
    expect(screen.queryByRole("heading", { name: "Workspace" })).toBeNull(); // hidden, not gone
    await userEvent.type(screen.getByLabelText("Username"), "alice");
    await userEvent.type(screen.getByLabelText("Password"), "correct horse{Enter}");
    await waitFor(() => expect(screen.queryByRole("heading", { name: "Sign in to Smriti" })).toBeNull());
    expect((screen.getByLabelText("Draft") as HTMLTextAreaElement).value).toBe("half a thought");
    expect(screen.getByText("Trip")).toBeTruthy();
  });

  it("signs out through the API and shows the sign-in screen", async () => {
    const srv = fakeServer({ signedIn: true });
    setup();
    await screen.findByText("Trip");
    await userEvent.click(screen.getByRole("button", { name: "Sign out" }));
    await screen.findByRole("heading", { name: "Sign in to Smriti" });
    expect(srv.calls.filter((c) => c.method === "POST").map((c) => c.path)).toEqual(["/api/v4/auth/logout"]);
    expect(srv.session).toBe(false);
    expect(screen.queryByText("Trip")).toBeNull();
  });

  it("stays on the sign-in screen with the server's detail when the sign-in succeeds but the server then fails", async () => {
    const srv = fakeServer();
    const inner = vi.mocked(fetch).getMockImplementation()!;
    vi.stubGlobal(
      "fetch",
      vi.fn(async (input: RequestInfo | URL, init?: RequestInit) =>
        srv.session && String(input) === "/api/v4/auth/me" ? json({ detail: "database is locked" }, 503) : inner(input, init),
      ),
    );
    setup();
    await screen.findByRole("heading", { name: "Sign in to Smriti" });
    await userEvent.type(screen.getByLabelText("Username"), "alice");
    await userEvent.type(screen.getByLabelText("Password"), "correct horse{Enter}");
    expect(await screen.findByText("Sign-in failed.")).toBeTruthy();
    expect(screen.getByTestId("signin-detail").textContent).toBe("Server: database is locked");
    expect(screen.queryByRole("heading", { name: "Workspace" })).toBeNull();
    expect((screen.getByRole("button", { name: "Sign in" }) as HTMLButtonElement).disabled).toBe(false);
  });

  it("offers a retry when the server cannot be reached", async () => {
    let down = true;
    const srv = fakeServer({ localMode: true });
    const inner = vi.mocked(fetch).getMockImplementation()!;
    vi.stubGlobal(
      "fetch",
      vi.fn(async (input: RequestInfo | URL, init?: RequestInit) => {
        if (down) throw new TypeError("Failed to fetch");
        return inner(input, init);
      }),
    );
    setup();
    expect((await screen.findByRole("alert")).textContent).toBe("The Smriti server cannot be reached (is `smriti serve` running?).");
    down = false;
    await userEvent.click(screen.getByRole("button", { name: "Try again" }));
    expect(await screen.findByText("Trip")).toBeTruthy();
    expect(srv.calls.map((c) => c.path)).toContain("/api/v4/auth/me");
  });
});
