import { useEffect } from "react";

/** Sets the tab title for the page: "What · Smriti". */
export function usePageTitle(what: string | null | undefined) {
  useEffect(() => {
    document.title = what ? `${what} · Smriti` : "Smriti";
  }, [what]);
}
