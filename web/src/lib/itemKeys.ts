import type { DraftChange, ItemView } from "../api";

/**
 * The key the server matches an item's text by, as it serves it (an item's
 * key, a change's before_key and after_key): the browser keeps no copy of
 * the server's normalisation. A text the server has not keyed — one the
 * user typed — is keyed by itself, trimmed and marked so that it equals no
 * served key: in the browser it matches an item only when it is that item's
 * exact text. The server matches the texts of a save again by its own key,
 * so a typed variant of an item (other case or punctuation) still keeps the
 * item's id once saved.
 */
export type KeyOf = (text: string | null | undefined) => string;

type Keyed = Pick<ItemView, "text" | "key"> | Pick<DraftChange, "before" | "before_key" | "after" | "after_key">;

/** The KeyOf of the texts the server keyed in sources (items, changes). */
export function keysOf(...sources: (readonly Keyed[] | null | undefined)[]): KeyOf {
  const keys = new Map<string, string>();
  const put = (text: string | null, key: string | null) => {
    if (text != null && key != null) keys.set(text, key);
  };
  for (const list of sources) {
    for (const x of list ?? []) {
      if ("key" in x) put(x.text, x.key);
      else {
        put(x.before, x.before_key);
        put(x.after, x.after_key);
      }
    }
  }
  return (text) => {
    const t = text ?? "";
    return keys.get(t) ?? keys.get(t.trim()) ?? `\u0001${t.trim()}`;
  };
}
