import { Link } from "react-router-dom";
import * as DropdownMenu from "@radix-ui/react-dropdown-menu";
import { Eye, FileClock, GitFork, History, MoreHorizontal, Plus } from "lucide-react";
import type { Session, Space } from "../../api";

/** The chat's header: the session's title and actions, its space and branch, and the context badge. */
export function ChatHeader(p: {
  session: Session;
  space: Space | undefined;
  inSpace: boolean;
  badge: { text: string; title: string };
  mounted: boolean;
  mountError: string;
  panel: boolean;
  onPanel: (open: boolean) => void;
  onCreate: () => void;
  onNewSession: () => void;
  onOpenDrawer: () => void;
  onFork: () => void;
  onUnmount: () => void;
}) {
  const se = p.session;
  return (
    <header className="chat-header">
      <div className="row spread" style={{ flexWrap: "nowrap" }}>
        <h1>{se.title || "Untitled session"}</h1>
        <div className="row" style={{ flexWrap: "nowrap" }}>
          {p.inSpace && (
            <button className="primary" onClick={p.onCreate}>
              <FileClock size={15} aria-hidden /> Create checkpoint
            </button>
          )}
          {p.inSpace && (
            <button aria-pressed={p.panel} onClick={() => p.onPanel(!p.panel)}>
              <History size={15} aria-hidden /> History
            </button>
          )}
          <DropdownMenu.Root>
            <DropdownMenu.Trigger asChild>
              <button className="icon-btn" aria-label="More actions">
                <MoreHorizontal size={18} aria-hidden />
              </button>
            </DropdownMenu.Trigger>
            <DropdownMenu.Portal>
              <DropdownMenu.Content className="menu" align="end" sideOffset={4}>
                {p.inSpace && (
                  <DropdownMenu.Item className="menu-item" onSelect={p.onNewSession}>
                    <Plus size={15} aria-hidden /> New session
                  </DropdownMenu.Item>
                )}
                <DropdownMenu.Item className="menu-item" onSelect={p.onOpenDrawer}>
                  <Eye size={15} aria-hidden /> What the model sees
                </DropdownMenu.Item>
                {p.inSpace && (
                  <DropdownMenu.Item className="menu-item" onSelect={p.onFork}>
                    <GitFork size={15} aria-hidden /> Fork from the latest checkpoint
                  </DropdownMenu.Item>
                )}
              </DropdownMenu.Content>
            </DropdownMenu.Portal>
          </DropdownMenu.Root>
        </div>
      </div>
      <div className="row small" style={{ marginTop: "0.3rem" }}>
        {p.space && <Link to={`/spaces/${p.space.id}/lineage?session=${se.id}`}>{p.space.name}</Link>}
        {se.branch_name !== "main" && <span className="badge">branch {se.branch_name}</span>}
        <button className="badge accent" title={p.badge.title} onClick={() => p.onPanel(true)} data-testid="context-badge">
          {p.badge.text}
        </button>
        {p.mounted && (
          <button className="small" onClick={p.onUnmount}>
            Unmount
          </button>
        )}
      </div>
      {p.mountError && (
        <p className="error" role="alert">
          {p.mountError}
        </p>
      )}
    </header>
  );
}
