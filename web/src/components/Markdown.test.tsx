import { afterEach, describe, expect, it } from "vitest";
import { cleanup, render } from "@testing-library/react";
import { Markdown } from "./Markdown";

afterEach(cleanup);

describe("Markdown", () => {
  it("renders code blocks, lists and emphasis, and never raw HTML", () => {
    const { container } = render(<Markdown text={"## Plan\n- **train** first\n- `cairns`\n\n```sh\nrm -rf /\n```\n<img src=x onerror=alert(1)> <b>bold</b>"} />);
    expect(container.querySelector("h4")?.textContent).toBe("Plan");
    expect([...container.querySelectorAll("li")].map((l) => l.innerHTML)).toEqual(["<strong>train</strong> first", "<code>cairns</code>"]);
    expect(container.querySelector("pre code")?.textContent?.trimEnd()).toBe("rm -rf /");
    expect(container.querySelector("img")).toBeNull();
    expect(container.querySelector("b")).toBeNull();
    expect(container.querySelector("p")?.textContent).toBe("<img src=x onerror=alert(1)> <b>bold</b>");
  });
});
