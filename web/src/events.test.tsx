import { afterEach, describe, expect, it, vi } from "vitest";
import { cleanup, render, screen, waitFor } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { AuthGate } from "./AuthGate";
import { useSpaceEvents } from "./events";

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

/** Enough of EventSource to see what the hook opens and closes. */
class FakeEventSource {
  static CLOSED = 2;
  static opened: FakeEventSource[] = [];
  readyState = 0;
  closed = false;
  onerror: (() => void) | null = null;
  constructor(public url: string) {
    FakeEventSource.opened.push(this);
  }
  addEventListener() {}
  close() {
    this.closed = true;
    this.readyState = 2;
  }
}

function Watcher() {
  useSpaceEvents("r1");
  return <h1>Watching</h1>;
}

describe("useSpaceEvents under auth", () => {
  it("asks who is signed in when the server closes the stream, and reopens it after the new sign-in", async () => {
    let session = true;
    const paths: string[] = [];
    vi.stubGlobal("EventSource", FakeEventSource);
    vi.stubGlobal(
      "fetch",
      vi.fn(async (input: RequestInfo | URL) => {
        const path = String(input);
        paths.push(path);
        if (path === "/api/v4/auth/login") {
          session = true;
          return new Response(JSON.stringify({ user: { id: "u1", username: "alice", disabled: false, created_at: "" }, expires_at: "" }), { status: 200 });
        }
        if (!session) return new Response(JSON.stringify({ detail: "missing, invalid, expired or revoked credentials" }), { status: 401 });
        return new Response(JSON.stringify({ user_id: "u1", username: "alice", scope: "admin", via: "session", token_id: null }), { status: 200 });
      }),
    );
    render(
      <QueryClientProvider client={new QueryClient()}>
        <AuthGate>
          <Watcher />
        </AuthGate>
      </QueryClientProvider>,
    );
    await screen.findByRole("heading", { name: "Watching" });
    await waitFor(() => expect(FakeEventSource.opened.length).toBeGreaterThan(0));
    const first = FakeEventSource.opened[FakeEventSource.opened.length - 1];
    expect(first.url).toBe("/api/v5/spaces/r1/events");

    session = false;
    first.onerror?.(); // a reconnect still in progress: nothing to do
    expect(paths.filter((p) => p === "/api/v4/auth/me").length).toBe(1);
    first.readyState = FakeEventSource.CLOSED; // the server refused the reconnect
    first.onerror?.();
    await screen.findByRole("heading", { name: "Sign in to Smriti" });
    expect(paths.filter((p) => p === "/api/v4/auth/me").length).toBe(2);

    const before = FakeEventSource.opened.length;
    await userEvent.type(screen.getByLabelText("Username"), "alice");
    await userEvent.type(screen.getByLabelText("Password"), "correct horse{Enter}");
    await waitFor(() => expect(screen.queryByRole("heading", { name: "Sign in to Smriti" })).toBeNull());
    expect(first.closed).toBe(true);
    expect(FakeEventSource.opened.length).toBe(before + 1);
    expect(FakeEventSource.opened[before].closed).toBe(false);
  });
});
