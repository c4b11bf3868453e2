import { afterEach, describe, expect, it, vi } from "vitest";
import { cleanup, render, screen, waitFor } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { ContextPackPanel } from "./ContextPackPanel";

afterEach(() => {
  cleanup();
  vi.unstubAllGlobals();
});

/** Answers the context-pack endpoint with content naming the target, recording each request body. */
function fakePacks() {
  const bodies: unknown[] = [];
  const fetchFn = async (input: RequestInfo | URL, init?: RequestInit) => {
    if (String(input) !== "/api/v2/context/from-commit" || init?.method !== "POST") return new Response('{"detail":"no route"}', { status: 404 });
    const body = JSON.parse(String(init.body)) as { commit_id: string; target: string };
    bodies.push(body);
    const format = body.target === "chatgpt" ? "text" : "markdown";
    return new Response(JSON.stringify({ content: `pack for ${body.target} of ${body.commit_id}`, target_tool: body.target, format }), {
      status: 200,
      headers: { "Content-Type": "application/json" },
    });
  };
  return { bodies, fetchFn };
}

function renderPanel() {
  const qc = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  return render(
    <QueryClientProvider client={qc}>
      <ContextPackPanel checkpointId="c1" />
    </QueryClientProvider>,
  );
}

describe("ContextPackPanel", () => {
  it("renders the pack for the picked target and copies it, announcing Copied", async () => {
    const srv = fakePacks();
    vi.stubGlobal("fetch", vi.fn(srv.fetchFn));
    const writeText = vi.fn<(t: string) => Promise<void>>().mockResolvedValue(undefined);
    const user = userEvent.setup();
    Object.defineProperty(navigator, "clipboard", { value: { writeText }, configurable: true });
    renderPanel();
    const content = (await screen.findByLabelText("Context pack content")) as HTMLTextAreaElement;
    expect(content.value).toBe("pack for generic of c1");
    expect(content.readOnly).toBe(true);
    await user.selectOptions(screen.getByLabelText("Target"), "agents_md");
    await waitFor(() => expect((screen.getByLabelText("Context pack content") as HTMLTextAreaElement).value).toBe("pack for agents_md of c1"));
    expect(srv.bodies).toEqual([
      { commit_id: "c1", target: "generic" },
      { commit_id: "c1", target: "agents_md" },
    ]);
    await user.click(screen.getByRole("button", { name: "Copy" }));
    expect(writeText).toHaveBeenCalledWith("pack for agents_md of c1");
    expect(screen.getByRole("status").textContent).toBe("Copied");
  });

  it("falls back to selecting the text and execCommand without the async clipboard", async () => {
    const srv = fakePacks();
    vi.stubGlobal("fetch", vi.fn(srv.fetchFn));
    const user = userEvent.setup();
    Object.defineProperty(navigator, "clipboard", { value: undefined, configurable: true });
    const exec = vi.fn<(cmd: string) => boolean>().mockReturnValue(true);
    Object.defineProperty(document, "execCommand", { value: exec, configurable: true });
    renderPanel();
    await screen.findByLabelText("Context pack content");
    await user.click(screen.getByRole("button", { name: "Copy" }));
    expect(exec).toHaveBeenCalledWith("copy");
    expect(screen.getByRole("status").textContent).toBe("Copied");
  });

  it("lists every target the API accepts", () => {
    vi.stubGlobal("fetch", vi.fn(fakePacks().fetchFn));
    renderPanel();
    const options = Array.from((screen.getByLabelText("Target") as HTMLSelectElement).options).map((o) => o.value);
    expect(options).toEqual(["generic", "claude", "cursor", "chatgpt", "agents_md"]);
  });
});
