// Delete asks first: what goes with the record (its detail rows), and that it cannot be undone.
import type { ResourceMeta } from '../../../src/engine/description/metadata-types.js';
import { ConfirmDialog } from './confirm-dialog.js';

export function DeleteRecordDialog(props: {
  readonly open: boolean;
  readonly meta: ResourceMeta;
  /** The form's heading, naming the record. */
  readonly heading: string;
  readonly onConfirm: () => void;
  readonly onCancel: () => void;
}) {
  const { open, meta, heading, onConfirm, onCancel } = props;
  return (
    <ConfirmDialog
      open={open}
      title={`Delete this ${meta.singular_label.toLowerCase()}?`}
      action="Delete"
      danger
      onConfirm={onConfirm}
      onCancel={onCancel}
    >
      <p>
        {heading} will be deleted
        {meta.details.length > 0
          ? `, with its ${meta.details.map((d) => d.label.toLowerCase()).join(' and ')}`
          : ''}
        . This cannot be undone.
      </p>
    </ConfirmDialog>
  );
}
