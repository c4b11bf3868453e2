import { useEffect, useRef } from "react";

/**
 * While open, a panel owns one browser history entry, so the phone's back
 * gesture (or the Back button) closes it instead of leaving the page; Esc
 * closes it too, unless a dialog on top of it takes the key first. Closing
 * it otherwise gives the entry back.
 */
export function useBackCloses(open: boolean, close: () => void) {
  const closeRef = useRef(close);
  closeRef.current = close;
  useEffect(() => {
    if (!open) return;
    const marker = { smritiPanel: Math.random() };
    window.history.pushState({ ...(window.history.state ?? {}), ...marker }, "");
    let popped = false;
    // A panel opened on top of this one gives its entry back with a back()
    // of its own: this panel closes only when its own entry is left.
    const onPop = () => {
      if (window.history.state?.smritiPanel === marker.smritiPanel) return;
      popped = true;
      closeRef.current();
    };
    const onKey = (e: KeyboardEvent) => {
      if (e.key !== "Escape" || e.shiftKey || e.defaultPrevented || document.querySelector("[role=dialog]")) return;
      e.preventDefault();
      closeRef.current();
    };
    window.addEventListener("popstate", onPop);
    document.addEventListener("keydown", onKey);
    return () => {
      window.removeEventListener("popstate", onPop);
      document.removeEventListener("keydown", onKey);
      if (!popped && window.history.state?.smritiPanel === marker.smritiPanel) window.history.back();
    };
  }, [open]);
}
