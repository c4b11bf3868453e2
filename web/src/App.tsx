import { Suspense, useCallback, useEffect, useState } from "react";
import { NavLink, Route, Routes, useLocation } from "react-router-dom";
import { Toaster } from "sonner";
import * as Tooltip from "@radix-ui/react-tooltip";
import { BookOpen, Command as CommandIcon, GitBranch, Menu, Moon, Settings as SettingsIcon, Sun } from "lucide-react";
import SearchBox from "./components/SearchBox";
import { SessionNav } from "./components/SessionNav";
import { AccountBox } from "./AuthGate";
import { OfflineBanner } from "./components/OfflineBanner";
import { Palette, ShortcutsSheet } from "./components/Palette";
import { Modal } from "./components/Modal";
import { typingIn } from "./lib/commands";
import { useTheme } from "./lib/theme";
import { lazyPage, type LazyPage } from "./lib/lazyPage";
import { prefetchThread } from "./lib/turnPages";
import { queryClient } from "./lib/queryClient";
import { useSpaces } from "./lib/queries";

// Every page loads on demand, so no chunk holds them all and the first
// paint loads only the page it shows; the page the address names starts
// loading at once, beside the sign-in check (see lazyPage).
const Overview = lazyPage(() => import("./pages/Overview"));
const Chat = lazyPage(() => import("./pages/Chat"));
const Lineage = lazyPage(() => import("./pages/Lineage"));
const CheckpointDetail = lazyPage(() => import("./pages/CheckpointDetail"));
const Settings = lazyPage(() => import("./pages/Settings"));
const Coordination = lazyPage(() => import("./pages/Coordination"));
const Search = lazyPage(() => import("./pages/Search"));
const ComparePage = lazyPage(() => import("./pages/Compare"));
const MergePage = lazyPage(() => import("./pages/Merge"));
const Proposals = lazyPage(() => import("./pages/Proposals"));
const Remotes = lazyPage(() => import("./pages/Remotes"));

// The page for an address, by its first segments, as the routes below name them.
function pageFor(path: string): LazyPage | undefined {
  const [, a, , c] = path.split("/");
  if (a === "") return Overview;
  if (a === "sessions") return Chat;
  if (a === "checkpoints") return CheckpointDetail;
  if (a === "settings") return Settings;
  if (a === "search") return Search;
  if (a !== "spaces") return undefined;
  return ({ lineage: Lineage, compare: ComparePage, merge: MergePage, coordination: Coordination, proposals: Proposals, remotes: Remotes } as Record<string, LazyPage>)[c];
}

if (typeof window !== "undefined") {
  void pageFor(window.location.pathname)?.preload().catch(() => {});
  // A thread's first page too: the chat page asks for nothing before its
  // code and the sign-in check are in, so it would start a round trip late.
  const [, a, id] = window.location.pathname.split("/");
  const turn = new URLSearchParams(window.location.search).get("turn");
  if (a === "sessions" && id) prefetchThread(id, turn != null && /^\d+$/.test(turn) ? Number(turn) : null, queryClient);
}

const isDark = (theme: string) =>
  theme === "dark" || (theme === "system" && typeof matchMedia !== "undefined" && matchMedia("(prefers-color-scheme: dark)").matches);

function Sidebar({ open, onPalette, theme, onTheme }: { open: boolean; onPalette: () => void; theme: string; onTheme: () => void }) {
  const spaces = useSpaces();
  const dark = isDark(theme);
  return (
    <nav className={open ? "sidebar open" : "sidebar"} aria-label="Workspace" id="sidebar">
      <div className="brand-row">
        <NavLink to="/" className="brand" end>
          <span className="brand-mark" aria-hidden>
            S
          </span>
          Smriti
        </NavLink>
        <button type="button" className="icon-btn" onClick={onTheme} aria-label={dark ? "Switch to light theme" : "Switch to dark theme"}>
          {dark ? <Sun size={18} aria-hidden /> : <Moon size={18} aria-hidden />}
        </button>
      </div>
      <button type="button" className="palette-hint" onClick={onPalette} title="Open the command palette">
        <span className="row">
          <CommandIcon size={14} aria-hidden /> Commands
        </span>
        <kbd>Ctrl K</kbd>
      </button>
      <SearchBox />
      <SessionNav />
      <h2 id="nav-spaces">Spaces</h2>
      <ul aria-labelledby="nav-spaces">
        {(spaces.data ?? []).slice(0, 12).map((s) => (
          <li key={s.id}>
            <NavLink to={`/spaces/${s.id}/lineage`}>
              <GitBranch size={14} aria-hidden />
              <span className="t">{s.name}</span>
            </NavLink>
          </li>
        ))}
      </ul>
      <h2>More</h2>
      <ul>
        <li>
          <NavLink to="/settings">
            <SettingsIcon size={14} aria-hidden /> Settings
          </NavLink>
        </li>
        <li>
          <a href="/docs">
            <BookOpen size={14} aria-hidden /> API reference
          </a>
        </li>
      </ul>
      <div className="foot">
        <AccountBox />
      </div>
    </nav>
  );
}

export default function App() {
  const [theme, setTheme] = useTheme();
  const [palette, setPalette] = useState(false);
  const [shortcuts, setShortcuts] = useState(false);
  const [drawer, setDrawer] = useState(false);
  const loc = useLocation();
  useEffect(() => setDrawer(false), [loc.pathname, loc.search]);
  const toggleTheme = useCallback(() => setTheme(isDark(theme) ? "light" : "dark"), [theme, setTheme]);

  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if ((e.ctrlKey || e.metaKey) && e.key.toLowerCase() === "k") {
        e.preventDefault();
        setPalette((p) => !p);
        return;
      }
      // On a phone the navigation is a drawer: Esc closes it.
      if (e.key === "Escape" && document.querySelector(".sidebar.open")) {
        setDrawer(false);
        return;
      }
      if (e.ctrlKey || e.metaKey || e.altKey || typingIn(e.target)) return;
      if (document.querySelector("[role=dialog]")) return;
      if (e.key === "/") {
        e.preventDefault();
        setDrawer(true);
        document.getElementById("sidebar-search")?.focus();
      } else if (e.key === "?") {
        e.preventDefault();
        setShortcuts(true);
      }
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, []);

  return (
    <Tooltip.Provider delayDuration={300}>
      <div className="shell">
        <a className="skip" href="#main">
          Skip to content
        </a>
        <div className="topbar">
          <button type="button" className="icon-btn" aria-label="Open navigation" aria-expanded={drawer} aria-controls="sidebar" onClick={() => setDrawer(true)}>
            <Menu size={20} aria-hidden />
          </button>
          <NavLink to="/" className="brand" end>
            Smriti
          </NavLink>
          <span style={{ flex: 1 }} />
          <button type="button" className="icon-btn" aria-label="Open the command palette" onClick={() => setPalette(true)}>
            <CommandIcon size={18} aria-hidden />
          </button>
        </div>
        <div className={drawer ? "drawer-back open" : "drawer-back"} onClick={() => setDrawer(false)} aria-hidden />
        <Sidebar open={drawer} onPalette={() => setPalette(true)} theme={theme} onTheme={toggleTheme} />
        <main id="main" tabIndex={0}>
          <OfflineBanner />
          <Suspense fallback={<p className="muted">Loading…</p>}>
            <Routes>
              <Route path="/" element={<Overview />} />
              <Route path="/sessions/:sessionId" element={<Chat />} />
              <Route path="/spaces/:spaceId/lineage" element={<Lineage />} />
              <Route path="/spaces/:spaceId/compare/:range" element={<ComparePage />} />
              <Route path="/spaces/:spaceId/merge" element={<MergePage />} />
              <Route path="/spaces/:spaceId/coordination" element={<Coordination />} />
              <Route path="/spaces/:spaceId/proposals" element={<Proposals />} />
              <Route path="/spaces/:spaceId/remotes" element={<Remotes />} />
              <Route path="/checkpoints/:id" element={<CheckpointDetail />} />
              <Route path="/settings" element={<Settings />} />
              <Route path="/search" element={<Search />} />
              <Route path="*" element={<h1>Page not found</h1>} />
            </Routes>
          </Suspense>
        </main>
      </div>
      <Palette open={palette} onOpenChange={setPalette} onShortcuts={() => setShortcuts(true)} onTheme={toggleTheme} dark={isDark(theme)} />
      {shortcuts && (
        <Modal title="Keyboard shortcuts" onClose={() => setShortcuts(false)}>
          <ShortcutsSheet />
        </Modal>
      )}
      <Toaster richColors closeButton position="bottom-right" theme={isDark(theme) ? "dark" : "light"} />
    </Tooltip.Provider>
  );
}
