import { afterEach, describe, expect, it, vi } from "vitest";
import { act, cleanup, render, screen } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { Composer, type ProviderChoice } from "./Composer";

const providers: ProviderChoice[] = [
  { name: "mock", label: "Mock (offline, deterministic)", ready: true, defaultModel: "mock" },
  { name: "openai", label: "OpenAI", ready: false, defaultModel: "gpt-4o-mini" },
];

function setup(send: (text: string, key: string, signal: AbortSignal) => Promise<void>, draftKey?: string) {
  const ui = render(<Composer providers={providers} provider="mock" model="" onProvider={() => {}} onModel={() => {}} send={send} status="ctx: FRESH" draftKey={draftKey} />);
  return Object.assign(screen.getByRole("textbox", { name: "Message" }) as HTMLTextAreaElement, { unmount: ui.unmount });
}

/** A send the test settles: resolve() or reject(e). */
function deferred() {
  let resolve!: () => void;
  let reject!: (e: Error) => void;
  const p = new Promise<void>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { p, resolve, reject };
}

afterEach(() => {
  cleanup();
  sessionStorage.clear();
});

describe("Composer", () => {
  it("sends on Enter, keeps Shift+Enter as a new line, and clears after success", async () => {
    const send = vi.fn().mockResolvedValue(undefined);
    const box = setup(send);
    await userEvent.type(box, "first line{Shift>}{Enter}{/Shift}second");
    expect(box.value).toBe("first line\nsecond");
    expect(send).not.toHaveBeenCalled();
    await userEvent.type(box, "{Enter}");
    expect(send).toHaveBeenCalledTimes(1);
    expect(send.mock.calls[0][0]).toBe("first line\nsecond");
    expect(box.value).toBe("");
  });

  it("keeps the text after a failure and retries with the same Idempotency-Key", async () => {
    const send = vi.fn().mockRejectedValueOnce(new Error("Provider error: timeout")).mockResolvedValueOnce(undefined);
    const box = setup(send);
    await userEvent.type(box, "book the train{Enter}");
    expect(await screen.findByRole("alert")).toHaveProperty("textContent", "Provider error: timeout");
    expect(box.value).toBe("book the train");
    await userEvent.click(screen.getByRole("button", { name: "Retry" }));
    expect(send).toHaveBeenCalledTimes(2);
    expect(send.mock.calls[1][1]).toBe(send.mock.calls[0][1]);
    expect(box.value).toBe("");
  });

  it("uses a new key for a new message", async () => {
    const send = vi.fn().mockResolvedValue(undefined);
    const box = setup(send);
    await userEvent.type(box, "one{Enter}");
    await userEvent.type(box, "two{Enter}");
    expect(send.mock.calls[0][1]).not.toBe(send.mock.calls[1][1]);
  });

  it("empties the box on send, takes new text while the reply streams, and keeps it when the reply ends", async () => {
    const d = deferred();
    const send = vi.fn(() => d.p);
    const box = setup(send);
    await userEvent.type(box, "first question{Enter}");
    expect(box.value).toBe("");
    expect(box.disabled).toBe(false);
    await userEvent.type(box, "next question");
    await act(async () => d.resolve());
    expect(box.value).toBe("next question");
    expect(send).toHaveBeenCalledTimes(1);
  });

  it("after a failure keeps what was typed meanwhile, and Retry sends the failed text with its key", async () => {
    const d = deferred();
    const send = vi.fn().mockReturnValueOnce(d.p).mockResolvedValueOnce(undefined);
    const box = setup(send);
    await userEvent.type(box, "book the train{Enter}");
    await userEvent.type(box, "and a hotel");
    await act(async () => d.reject(new Error("Provider error: timeout")));
    expect(box.value).toBe("and a hotel");
    await userEvent.click(screen.getByRole("button", { name: "Retry" }));
    expect(send.mock.calls.map((c) => c[0])).toEqual(["book the train", "book the train"]);
    expect(send.mock.calls[1][1]).toBe(send.mock.calls[0][1]);
    expect(box.value).toBe("and a hotel");
  });

  it("keeps a session's unsent text across leaving and coming back, apart from other sessions', and forgets it once sent", async () => {
    let box = setup(vi.fn().mockResolvedValue(undefined), "s1");
    await userEvent.type(box, "half a thought");
    box.unmount();
    box = setup(vi.fn(), "s2");
    expect(box.value).toBe("");
    box.unmount();
    const send = vi.fn().mockResolvedValue(undefined);
    box = setup(send, "s1");
    expect(box.value).toBe("half a thought");
    await userEvent.type(box, "{Enter}");
    expect(send.mock.calls[0][0]).toBe("half a thought");
    box.unmount();
    box = setup(vi.fn(), "s1");
    expect(box.value).toBe("");
    expect(sessionStorage.getItem("smriti.draft.s1")).toBeNull();
  });

  it("takes the focus when it opens for a session", () => {
    const box = setup(vi.fn(), "s1");
    expect(document.activeElement).toBe(box);
  });

  it("stops a streaming reply without putting the question back: the server keeps it in the thread", async () => {
    const send = vi.fn(
      (_t: string, _k: string, signal: AbortSignal) =>
        new Promise<void>((_, reject) => signal.addEventListener("abort", () => reject(Object.assign(new Error("aborted"), { name: "AbortError" })))),
    );
    const box = setup(send);
    await userEvent.type(box, "a long answer please{Enter}");
    await userEvent.click(screen.getByRole("button", { name: "Stop" }));
    await screen.findByRole("button", { name: "Send" });
    expect(screen.queryByRole("alert")).toBeNull();
    expect(box.value).toBe("");
  });

  it("labels the mock and marks unconfigured providers", () => {
    setup(vi.fn());
    expect(screen.getByText("MOCK — offline test replies")).toBeTruthy();
    const openai = screen.getByRole("option", { name: "OpenAI (not configured)" }) as HTMLOptionElement;
    expect(openai.disabled).toBe(true);
    expect(screen.getByTestId("context-status").textContent).toBe("ctx: FRESH");
  });
});
