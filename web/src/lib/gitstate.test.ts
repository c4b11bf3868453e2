import { describe, expect, it } from "vitest";
import table from "../../../testdata/gitstate.json";
import { gitLine, gitStateOf, INVALID_GIT_STATE, restoreCommand, type GitState } from "./gitstate";

// The specification GitState in the Go domain is tested against too: one table, two implementations.
interface Case {
  name: string;
  git: unknown;
  valid: boolean;
  line?: string;
  restore?: string;
  field?: string;
}
const spec = table as { cases: Case[] };

describe("git state (testdata/gitstate.json)", () => {
  it("has cases", () => expect(spec.cases.length).toBeGreaterThan(20));
  for (const c of spec.cases) {
    it(c.name, () => {
      const g = gitStateOf({ git: c.git });
      if (!c.valid) {
        expect(g).toBe("invalid");
        // The same values handed over as a GitState never become a command either.
        if (c.git && typeof c.git === "object") {
          const m = c.git as Record<string, unknown>;
          const s = (v: unknown) => (typeof v === "string" ? v : "");
          const direct: GitState = { commit: s(m.commit), branch: s(m.branch), dirty: m.dirty === true, diff_sha256: s(m.diff_sha256) };
          if (gitLine(direct) !== INVALID_GIT_STATE) return; // invalid only for its JSON types
          expect(restoreCommand(direct)).toBe("");
        }
        return;
      }
      expect(g).not.toBe("invalid");
      expect(g).not.toBeNull();
      const state = g as GitState;
      expect(restoreCommand(state)).toBe(c.restore);
      expect(gitLine(state)).toBe(c.line);
    });
  }
});
