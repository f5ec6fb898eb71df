// A confirmation as the native modal <dialog> (DESIGN.md 3.7): the page behind is inert, Esc and
// `Cancel` say no, the other button names the action. Focus starts on Cancel (a slip of Enter
// must not delete) and returns to where it was when the dialog closes.
import type { ComponentChildren } from 'preact';
import { useEffect, useId, useRef } from 'preact/hooks';

export interface ConfirmDialogProps {
  readonly open: boolean;
  readonly title: string;
  readonly children?: ComponentChildren;
  /** The button that confirms: `Delete`, `Revoke`, `Leave`. */
  readonly action: string;
  readonly danger?: boolean;
  readonly onConfirm: () => void;
  readonly onCancel: () => void;
}

export function ConfirmDialog(props: ConfirmDialogProps) {
  const { open, onCancel } = props;
  const dialog = useRef<HTMLDialogElement>(null);
  const cancel = useRef<HTMLButtonElement>(null);
  const titleId = useId();
  const bodyId = useId();

  useEffect(() => {
    const element = dialog.current;
    if (!element) return;
    if (open && !element.open) {
      const before = document.activeElement as HTMLElement | null;
      element.showModal();
      cancel.current?.focus();
      return () => {
        if (element.open) element.close();
        before?.focus?.();
      };
    }
    return undefined;
  }, [open]);

  return (
    <dialog
      ref={dialog}
      class="dialog"
      aria-labelledby={titleId}
      aria-describedby={props.children ? bodyId : undefined}
      onCancel={(event) => {
        // Esc: close through our own state, so the dialog and the screen agree.
        event.preventDefault();
        onCancel();
      }}
    >
      <h2 id={titleId}>{props.title}</h2>
      {props.children ? <div id={bodyId}>{props.children}</div> : null}
      <div class="dialog-buttons">
        <button type="button" ref={cancel} onClick={onCancel}>
          Cancel
        </button>
        <button
          type="button"
          class={props.danger ? 'danger' : 'primary'}
          onClick={() => props.onConfirm()}
        >
          {props.action}
        </button>
      </div>
    </dialog>
  );
}
