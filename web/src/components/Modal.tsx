import type { ReactNode } from "react";
import * as Dialog from "@radix-ui/react-dialog";
import { X } from "lucide-react";

/**
 * A dialog (Radix): traps focus, closes on Escape and on a click outside,
 * returns focus to what opened it, and opens with the focus on its first
 * field (not on the close button), so typing goes where the user expects.
 * Ctrl/⌘+Enter submits its form.
 */
export function Modal({ title, onClose, children, wide }: { title: string; onClose: () => void; children: ReactNode; wide?: boolean }) {
  return (
    <Dialog.Root open onOpenChange={(open) => !open && onClose()}>
      <Dialog.Portal>
        <Dialog.Overlay className="modal-back" />
        <Dialog.Content
          className={wide ? "modal wide" : "modal"}
          aria-describedby={undefined}
          onKeyDown={(e) => {
            // Ctrl/⌘+Enter saves the dialog's form from any of its fields.
            if (e.key === "Enter" && (e.ctrlKey || e.metaKey) && !e.nativeEvent.isComposing) {
              const form = (e.target as HTMLElement).closest("form") ?? (e.currentTarget as HTMLElement).querySelector("form");
              if (form) {
                e.preventDefault();
                form.requestSubmit();
              }
            }
          }}
          onOpenAutoFocus={(e) => {
            const root = e.currentTarget as HTMLElement;
            const first =
              root.querySelector<HTMLElement>("[data-autofocus]") ??
              root.querySelector<HTMLElement>("input:not([type=hidden]):not([disabled]), textarea:not([disabled]), select:not([disabled])") ??
              root.querySelector<HTMLElement>(".modal-body button:not([disabled]), .modal-body a[href]");
            if (first) {
              e.preventDefault();
              first.focus();
            }
          }}
        >
          <div className="modal-head">
            <Dialog.Title className="modal-title">{title}</Dialog.Title>
            <Dialog.Close className="icon-btn" aria-label="Close dialog">
              <X size={18} aria-hidden />
            </Dialog.Close>
          </div>
          <div className="modal-body">{children}</div>
        </Dialog.Content>
      </Dialog.Portal>
    </Dialog.Root>
  );
}
