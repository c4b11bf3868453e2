import { useEffect, useState, type ComponentType } from "react";

// A page loaded on demand that never suspends.
//
// React.lazy suspends on a component's first render unless its chunk has
// been evaluated, and React reveals a suspended boundary no sooner than
// about 300 ms after it showed the fallback: a page opened by its address
// would wait for that throttle although its chunk came in milliseconds. So
// a page here renders a plain "Loading…" until its chunk is in, then itself
// (no Suspense, no throttle), and can be preloaded: App starts the one the
// address names at once, beside the sign-in check.
export type LazyPage = ComponentType & { preload: () => Promise<unknown> };

export function lazyPage(load: () => Promise<{ default: ComponentType }>): LazyPage {
  let loaded: ComponentType | undefined;
  let failed: unknown;
  let pending: Promise<unknown> | undefined;
  const preload = () =>
    (pending ??= load().then(
      (m) => {
        loaded = m.default;
      },
      (e: unknown) => {
        failed = e ?? new Error("the page could not be loaded");
        throw e;
      },
    ));
  const Page = () => {
    const [, settled] = useState(0);
    useEffect(() => {
      if (loaded || failed) return;
      let live = true;
      const done = () => live && settled((n) => n + 1);
      preload().then(done, done);
      return () => {
        live = false;
      };
    }, []);
    if (failed) throw failed; // as React.lazy does: the nearest error boundary shows it
    if (!loaded) return <p className="muted">Loading…</p>;
    const C = loaded;
    return <C />;
  };
  Page.preload = preload;
  return Page;
}
