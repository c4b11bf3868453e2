import { useEffect, useState } from "react";
import { useQueryClient } from "@tanstack/react-query";
import { onReachability, ping } from "../api";

/**
 * Shown while the server cannot be reached: it asks /health every few
 * seconds (and on "Retry now"), and when the server answers again it
 * hides and refreshes every query.
 */
export function OfflineBanner() {
  const qc = useQueryClient();
  const [down, setDown] = useState(false);
  const [tries, setTries] = useState(0);
  useEffect(() => onReachability((up) => setDown(!up)), []);
  useEffect(() => {
    const off = () => setDown(true);
    window.addEventListener("offline", off);
    return () => window.removeEventListener("offline", off);
  }, []);
  useEffect(() => {
    if (!down) return;
    const t = setTimeout(async () => {
      if (await ping()) {
        setDown(false);
        qc.invalidateQueries();
      } else setTries((n) => n + 1);
    }, 3000);
    return () => clearTimeout(t);
  }, [down, tries, qc]);
  if (!down) return null;
  return (
    <div className="offline" role="status" data-testid="offline-banner">
      <span>The Smriti server cannot be reached. Retrying every few seconds…</span>
      <button
        type="button"
        onClick={async () => {
          if (await ping()) {
            setDown(false);
            qc.invalidateQueries();
          }
        }}
      >
        Retry now
      </button>
    </div>
  );
}
