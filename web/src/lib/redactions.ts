import type { Redaction } from "../api";

/** A turn's redactions as the server recorded them; malformed entries are skipped. */
export function redactionsOf(metadata: Record<string, unknown> | undefined | null): Redaction[] {
  const raw = metadata?.redactions;
  if (!Array.isArray(raw)) return [];
  const out: Redaction[] = [];
  for (const r of raw) {
    if (!r || typeof r !== "object") continue;
    const o = r as Record<string, unknown>;
    if (typeof o.rule !== "string" || !o.rule) continue;
    out.push({ field: typeof o.field === "string" ? o.field : "", rule: o.rule });
  }
  return out;
}

/** What was redacted, in words: "1 secret redacted: github-pat", "3 secrets redacted: github-pat, aws-access-token". */
export function redactionNote(rs: Redaction[]): string {
  if (rs.length === 0) return "";
  const rules = [...new Set(rs.map((r) => r.rule))];
  return `${rs.length} ${rs.length === 1 ? "secret" : "secrets"} redacted: ${rules.join(", ")}`;
}
