// The ends of the History panel and the deleted records (lib/use-past-pages.ts): Show older, and
// the dialog that confirms a restore.
import type { ComponentChildren } from 'preact';
import type { Past, PastPages } from '../lib/use-past-pages.js';
import { ConfirmDialog } from './confirm-dialog.js';

export function ShowOlder({ older }: { readonly older: (() => void) | null }) {
  return older ? (
    <button type="button" onClick={older}>
      Show older
    </button>
  ) : null;
}

/** Confirms the restore of `pages.confirming`, then runs `restore` on it. */
export function RestoreDialog<T extends Past>(props: {
  readonly pages: PastPages<T>;
  readonly title: string;
  readonly restore: (item: T) => Promise<void>;
  /** The error shown when the restore fails with no message of the service's. */
  readonly failure: string;
  /** What the restore will do. */
  readonly children: ComponentChildren;
}) {
  const { pages, restore, failure } = props;
  return (
    <ConfirmDialog
      open={pages.confirming !== null}
      title={props.title}
      action="Restore"
      onConfirm={() => pages.restore(restore, failure)}
      onCancel={() => pages.confirm(null)}
    >
      <p>{props.children}</p>
    </ConfirmDialog>
  );
}
