import { useState } from "react";
import { useNavigate } from "react-router-dom";

/** The sidebar search field: Enter opens the search page for the typed words. */
export default function SearchBox() {
  const nav = useNavigate();
  const [q, setQ] = useState("");
  return (
    <form
      role="search"
      className="sidebar-search"
      onSubmit={(e) => {
        e.preventDefault();
        const text = q.trim();
        if (text) nav(`/search?${new URLSearchParams({ q: text }).toString()}`);
      }}
    >
      <label htmlFor="sidebar-search">Search</label>
      <input id="sidebar-search" type="search" value={q} onChange={(e) => setQ(e.target.value)} placeholder="checkpoints, turns, notes" />
    </form>
  );
}
