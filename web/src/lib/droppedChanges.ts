import type { ShownChange } from "./diff";

/**
 * What the user dropped from a draft, remembered per base checkpoint (in
 * localStorage), so the next draft on the same base does not propose it
 * again — unless turns newer than those it came from repeat it.
 */
interface Dropped {
  key: string;
  /** The newest turn the dropped change came from (-1 when unknown). */
  toSeq: number;
}

const PREFIX = "smriti.dropped.";

/** A change's identity: its op, kind, item and the server's keys of its texts. */
export const changeKey = (c: ShownChange) => `${c.op}|${c.kind ?? ""}|${c.id ?? ""}|${c.before_key ?? ""}|${c.after_key ?? ""}`;

function read(base: string): Dropped[] {
  try {
    const v = JSON.parse(localStorage.getItem(PREFIX + base) ?? "[]");
    return Array.isArray(v) ? v : [];
  } catch {
    return [];
  }
}

function write(base: string, list: Dropped[]) {
  try {
    if (list.length) localStorage.setItem(PREFIX + base, JSON.stringify(list.slice(-200)));
    else localStorage.removeItem(PREFIX + base);
  } catch {
    // Storage refused: the memory lasts as long as the form.
  }
}

export const droppedChanges = {
  /** Remembers that c was dropped from a draft on base. */
  add(base: string, c: ShownChange) {
    const key = changeKey(c);
    write(base, [...read(base).filter((d) => d.key !== key), { key, toSeq: c.source?.to_seq ?? -1 }]);
  },
  /** Forgets it (the user brought it back). */
  remove(base: string, c: ShownChange) {
    const key = changeKey(c);
    write(base, read(base).filter((d) => d.key !== key));
  },
  /** The indexes of changes the user dropped before on base and no newer turn repeats. */
  stillDropped(base: string, changes: ShownChange[]): Set<number> {
    const memory = new Map(read(base).map((d) => [d.key, d.toSeq]));
    const out = new Set<number>();
    changes.forEach((c, i) => {
      const was = memory.get(changeKey(c));
      if (was !== undefined && (c.source?.to_seq ?? -1) <= was) out.add(i);
    });
    return out;
  },
};
