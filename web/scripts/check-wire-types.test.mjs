// @vitest-environment node
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { ALIASES, KEY_FACTORY, checkFile, checkWorkspace, schemasOf } from "./check-wire-types.mjs";

const web = fileURLToPath(new URL("..", import.meta.url));
const schemas = schemasOf(readFileSync(`${web}/src/api.gen.ts`, "utf8"));
const rules = (file, text) => checkFile(file, text, schemas).map((f) => `${f.line}:${f.rule}`);

describe("check-wire-types", () => {
  it("reads the schemas of the generated file with their required properties", () => {
    const review = schemas.get("ReviewOut");
    expect([...review.props].sort()).toEqual(["checkpoint_id", "issues", "suggestions"]);
    expect([...review.required].sort()).toEqual(["checkpoint_id", "issues", "suggestions"]);
  });

  it("fails a type named after a schema, with or without its wire suffix", () => {
    expect(rules("src/pages/X.tsx", "export interface Turn { id: string }\ntype ReviewOut = string;\n")).toEqual(["1:wire-name", "2:wire-name"]);
  });

  it("fails an object type that copies a schema's fields under another name, inline ones too", () => {
    const src = [
      "interface Verdict { checkpoint_id: string; issues: unknown[]; suggestions: string[] }",
      'const r = request<{ checkpoint_id: string; issues: unknown[]; suggestions: string[] }>("POST", "/x");',
    ].join("\n");
    expect(rules("src/lib/x.ts", src)).toEqual(["1:wire-shape", "2:wire-shape"]);
  });

  it("passes a UI shape, and a copy missing a field the schema requires", () => {
    const src = [
      "export interface Row { text: string; itemId?: string; dirty: boolean }",
      "type Part = { checkpoint_id: string; suggestions: string[] };",
      "type Lists = Pick<Checkpoint, \"decisions\" | \"tasks\">;",
    ].join("\n");
    expect(rules("src/lib/x.ts", src)).toEqual([]);
  });

  it("holds the alias module to aliases of generated schemas", () => {
    expect(rules(ALIASES, 'export type Turn = S["TurnOut"];\nexport type Pair = Omit<S["Repo"], "id">;\n')).toEqual([]);
    expect(rules(ALIASES, "export interface Extra { a: string }\nexport type Odd = { b: number };\n")).toEqual(["1:wire-alias", "2:wire-alias"]);
  });

  it("fails a query key written as a literal outside the factory, in a query, an invalidation or a cache call", () => {
    const src = [
      'useQuery({ queryKey: ["tree", space], queryFn });',
      'qc.invalidateQueries({ queryKey: ["sessions"] });',
      'qc.setQueryData<Session>(["session", id], s);',
      "useQuery({ queryKey: queryKeys.tree(space), queryFn });",
      "qc.getQueryData(queryKeys.session(id));",
    ].join("\n");
    expect(rules("src/pages/X.tsx", src)).toEqual(["1:query-key", "2:query-key", "3:query-key"]);
    expect(rules(KEY_FACTORY, 'export const k = { tree: (s: string) => ["tree", s] as const };\nqc.getQueryData(["tree", s]);\n')).toEqual([]);
  });

  it("finds nothing in the workspace as it stands", () => {
    expect(checkWorkspace(web)).toEqual([]);
  });
});
