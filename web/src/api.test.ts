import { afterEach, describe, expect, it, vi } from "vitest";
import { api, ApiError, onUnauthorized, sendStream } from "./api";

afterEach(() => vi.unstubAllGlobals());

const denied = () => new Response(JSON.stringify({ detail: "missing, invalid, expired or revoked credentials" }), { status: 401, headers: { "Content-Type": "application/json" } });

describe("onUnauthorized", () => {
  it("fires on a 401 from JSON, markdown and streaming requests, never for the sign-in itself", async () => {
    vi.stubGlobal("fetch", vi.fn(async () => denied()));
    const seen = vi.fn();
    const off = onUnauthorized(seen);
    await expect(api.spaces()).rejects.toMatchObject({ status: 401, message: "missing, invalid, expired or revoked credentials" });
    await expect(api.brief("r1")).rejects.toBeInstanceOf(ApiError);
    await expect(sendStream({ session_id: "s1", provider: "mock", model: "mock", message: "hi", use_mock: true }, "k1", { onDelta: () => {} })).rejects.toMatchObject({ status: 401 });
    expect(seen).toHaveBeenCalledTimes(3);
    await expect(api.login("alice", "wrong")).rejects.toMatchObject({ status: 401 });
    expect(seen).toHaveBeenCalledTimes(3);
    off();
    await expect(api.spaces()).rejects.toMatchObject({ status: 401 });
    expect(seen).toHaveBeenCalledTimes(3);
  });

  it("does not fire on other errors", async () => {
    vi.stubGlobal("fetch", vi.fn(async () => new Response(JSON.stringify({ detail: "no such space" }), { status: 404 })));
    const seen = vi.fn();
    const off = onUnauthorized(seen);
    await expect(api.space("r1")).rejects.toMatchObject({ status: 404, message: "no such space" });
    expect(seen).not.toHaveBeenCalled();
    off();
  });

  it("signs in and out with the wire forms the server expects", async () => {
    const calls: { path: string; init?: RequestInit }[] = [];
    vi.stubGlobal(
      "fetch",
      vi.fn(async (input: RequestInfo | URL, init?: RequestInit) => {
        calls.push({ path: String(input), init });
        if (String(input).endsWith("/logout")) return new Response(null, { status: 204 });
        return new Response(JSON.stringify({ user: { id: "u1", username: "alice", disabled: false, created_at: "" }, expires_at: "" }), { status: 200 });
      }),
    );
    expect((await api.login("alice", "correct horse")).user.username).toBe("alice");
    expect(await api.logout()).toBeUndefined();
    expect(calls.map((c) => [c.init?.method, c.path, c.init?.body, c.init?.credentials])).toEqual([
      ["POST", "/api/v4/auth/login", JSON.stringify({ username: "alice", password: "correct horse" }), "same-origin"],
      ["POST", "/api/v4/auth/logout", undefined, "same-origin"],
    ]);
  });
});
