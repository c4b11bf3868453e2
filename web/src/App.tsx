import { lazy, Suspense } from "react";
import { NavLink, Route, Routes } from "react-router-dom";
import { useQuery } from "@tanstack/react-query";
import { api } from "./api";
import Overview from "./pages/Overview";
import Chat from "./pages/Chat";
import SearchBox from "./components/SearchBox";
import { AccountBox } from "./AuthGate";

// The heavier pages load on demand so the first paint stays small.
const Lineage = lazy(() => import("./pages/Lineage"));
const CheckpointDetail = lazy(() => import("./pages/CheckpointDetail"));
const Settings = lazy(() => import("./pages/Settings"));
const Coordination = lazy(() => import("./pages/Coordination"));
const Search = lazy(() => import("./pages/Search"));

function Sidebar() {
  const sessions = useQuery({ queryKey: ["sessions"], queryFn: api.sessions });
  const spaces = useQuery({ queryKey: ["spaces"], queryFn: api.spaces });
  return (
    <nav className="sidebar" aria-label="Workspace">
      <NavLink to="/" className="brand" end>
        Smriti
      </NavLink>
      <SearchBox />
      <h2 id="nav-sessions">Recent sessions</h2>
      <ul aria-labelledby="nav-sessions">
        {(sessions.data ?? []).slice(0, 12).map((s) => (
          <li key={s.id}>
            <NavLink to={`/sessions/${s.id}`} title={s.title}>
              {s.branch_name !== "main" && <span aria-label={`branch ${s.branch_name}`}>↳ </span>}
              {s.title || "Untitled"}
            </NavLink>
          </li>
        ))}
      </ul>
      <h2 id="nav-spaces">Spaces</h2>
      <ul aria-labelledby="nav-spaces">
        {(spaces.data ?? []).slice(0, 12).map((s) => (
          <li key={s.id}>
            <NavLink to={`/spaces/${s.id}/lineage`}>{s.name}</NavLink>
          </li>
        ))}
      </ul>
      <h2>More</h2>
      <ul>
        <li>
          <NavLink to="/settings">Settings</NavLink>
        </li>
        <li>
          <a href="/docs">API reference</a>
        </li>
      </ul>
      <AccountBox />
    </nav>
  );
}

export default function App() {
  return (
    <div className="shell">
      <a className="skip" href="#main">
        Skip to content
      </a>
      <Sidebar />
      <main id="main" tabIndex={-1}>
        <Suspense fallback={<p>Loading…</p>}>
          <Routes>
            <Route path="/" element={<Overview />} />
            <Route path="/sessions/:sessionId" element={<Chat />} />
            <Route path="/spaces/:spaceId/lineage" element={<Lineage />} />
            <Route path="/spaces/:spaceId/coordination" element={<Coordination />} />
            <Route path="/checkpoints/:id" element={<CheckpointDetail />} />
            <Route path="/settings" element={<Settings />} />
            <Route path="/search" element={<Search />} />
            <Route path="*" element={<h1>Page not found</h1>} />
          </Routes>
        </Suspense>
      </main>
    </div>
  );
}
