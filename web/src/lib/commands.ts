// Commands the palette sends to the page that can carry them out (the chat
// page creates checkpoints and forks), through a window event so neither
// imports the other.
export type PageCommand = "create-checkpoint" | "fork" | "new-session";
const EVENT = "smriti:command";

export function sendCommand(c: PageCommand) {
  window.dispatchEvent(new CustomEvent<PageCommand>(EVENT, { detail: c }));
}

export function onCommand(fn: (c: PageCommand) => void): () => void {
  const h = (e: Event) => fn((e as CustomEvent<PageCommand>).detail);
  window.addEventListener(EVENT, h);
  return () => window.removeEventListener(EVENT, h);
}

/** True when the key event comes from a place the user types text into. */
export function typingIn(t: EventTarget | null): boolean {
  const el = t as HTMLElement | null;
  if (!el || !el.tagName) return false;
  return el.isContentEditable || el.tagName === "INPUT" || el.tagName === "TEXTAREA" || el.tagName === "SELECT";
}
