import { afterEach, describe, expect, it, vi } from "vitest";
import { cleanup, render, screen } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { Composer, type ProviderChoice } from "./Composer";

const providers: ProviderChoice[] = [
  { name: "mock", label: "Mock (offline, deterministic)", ready: true, defaultModel: "mock" },
  { name: "openai", label: "OpenAI", ready: false, defaultModel: "gpt-4o-mini" },
];

function setup(send: (text: string, key: string, signal: AbortSignal) => Promise<void>) {
  render(<Composer providers={providers} provider="mock" model="" onProvider={() => {}} onModel={() => {}} send={send} status="ctx: FRESH" />);
  return screen.getByRole("textbox", { name: "Message" }) as HTMLTextAreaElement;
}

afterEach(cleanup);

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

  it("stops a streaming reply and keeps the text", async () => {
    const send = vi.fn(
      (_t: string, _k: string, signal: AbortSignal) =>
        new Promise<void>((_, reject) => signal.addEventListener("abort", () => reject(Object.assign(new Error("aborted"), { name: "AbortError" })))),
    );
    const box = setup(send);
    await userEvent.type(box, "a long answer please{Enter}");
    await userEvent.click(screen.getByRole("button", { name: "Stop" }));
    expect((await screen.findByRole("alert")).textContent).toBe("Stopped. Your message is still here; send it again to retry.");
    expect(box.value).toBe("a long answer please");
  });

  it("labels the mock and marks unconfigured providers", () => {
    setup(vi.fn());
    expect(screen.getByText("MOCK — offline test replies")).toBeTruthy();
    const openai = screen.getByRole("option", { name: "OpenAI (not configured)" }) as HTMLOptionElement;
    expect(openai.disabled).toBe(true);
    expect(screen.getByTestId("context-status").textContent).toBe("ctx: FRESH");
  });
});
