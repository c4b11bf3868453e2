// Commands the palette and the keyboard send to the page that can carry
// them out (the chat page creates checkpoints and forks), through a window
// event so neither imports the other.
export type PageCommand = "create-checkpoint" | "fork" | "new-session" | "focus-composer" | "stop";
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

/**
 * The chat page's shortcuts, one table for the key handler, the palette's
 * hints and the shortcuts sheet. Each has a modifier (or is Shift+Esc), so
 * it works while typing in the message box.
 */
export const CHAT_SHORTCUTS: { command: PageCommand; keys: string; label: string; match: (e: KeyboardEvent) => boolean }[] = [
  { command: "focus-composer", keys: "Shift + Esc", label: "Focus the message box", match: (e) => e.key === "Escape" && e.shiftKey && !e.ctrlKey && !e.metaKey },
  { command: "new-session", keys: "Ctrl/⌘ + Shift + O", label: "New chat in this space", match: (e) => mod(e) && e.shiftKey && e.key.toLowerCase() === "o" },
  { command: "create-checkpoint", keys: "Ctrl/⌘ + Shift + S", label: "Create a checkpoint", match: (e) => mod(e) && e.shiftKey && e.key.toLowerCase() === "s" },
  { command: "stop", keys: "Esc", label: "Stop the reply while it streams", match: (e) => e.key === "Escape" && !e.shiftKey && !e.ctrlKey && !e.metaKey && !e.altKey },
];

const mod = (e: KeyboardEvent) => (e.ctrlKey || e.metaKey) && !e.altKey;

/** The key hint of a command, for the palette. */
export function keysOf(c: PageCommand): string | undefined {
  return CHAT_SHORTCUTS.find((s) => s.command === c)?.keys;
}

/** The chat command a key event asks for, or null. Esc is "stop" only while a dialog is not open (it closes the dialog then). */
export function chatShortcut(e: KeyboardEvent): PageCommand | null {
  if (e.defaultPrevented) return null;
  const hit = CHAT_SHORTCUTS.find((s) => s.match(e));
  if (!hit) return null;
  if (hit.command === "stop" && typeof document !== "undefined" && document.querySelector("[role=dialog], .drawer, .panel-open")) return null;
  return hit.command;
}
