import { lazy, type ComponentType } from "react";

// A page loaded on demand that does not suspend once its chunk is here.
//
// React.lazy suspends on a component's first render even when its chunk has
// already arrived, and React reveals a suspended boundary no sooner than
// about 300 ms after it showed the fallback. A page opened by its address
// would wait for that throttle although its chunk came long before the
// data. So each page can be preloaded (App starts the one the address names
// while the sign-in check runs), and a loaded page renders directly.
export type LazyPage = ComponentType & { preload: () => Promise<unknown> };

export function lazyPage(load: () => Promise<{ default: ComponentType }>): LazyPage {
  let loaded: ComponentType | undefined;
  let pending: Promise<{ default: ComponentType }> | undefined;
  const preload = () =>
    (pending ??= load().then((m) => {
      loaded = m.default;
      return m;
    }));
  const Suspending = lazy(preload);
  const Page = () => {
    const C = loaded ?? Suspending;
    return <C />;
  };
  Page.preload = preload;
  return Page;
}
