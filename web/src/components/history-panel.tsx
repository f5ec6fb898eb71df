// The History panel of a record's form (DESIGN.md 3.11): its revisions newest first, each with
// who, when and what changed (field by field, detail rows added, changed and removed), the
// record as it was after that write, and Restore, confirmed in the native <dialog>. A restore
// is a write like Save: through the form's write tracker, with the form's If-Match.
import { useEffect, useState } from 'preact/hooks';
import type { FieldMeta, ResourceMeta } from '../../../src/engine/description/metadata-types.js';
import { exchange, ifMatch } from '../lib/api.js';
import type { Change } from '../lib/change-feed.js';
import { historyPath, restorePath } from '../lib/endpoints.js';
import { formatDate } from '../lib/format.js';
import { knownLabel, labelOf } from '../lib/lookup-labels.js';
import type { RecordBody } from '../lib/record-read.js';
import { usePastPages } from '../lib/use-past-pages.js';
import { Alert } from './alert.js';
import { RestoreDialog, ShowOlder } from './past-pages.js';

export interface Revision {
  readonly seq: number;
  readonly version: number | null;
  readonly action: Change['action'];
  readonly at: string;
  readonly actor: Change['actor'];
  readonly changes: Readonly<Record<string, unknown>>;
  readonly record: RecordBody | null;
}

interface RowChanges {
  readonly created?: readonly unknown[];
  readonly updated?: readonly unknown[];
  readonly deleted?: readonly unknown[];
}

const VERBS: Record<Revision['action'], string> = {
  created: 'Created',
  updated: 'Changed',
  deleted: 'Deleted',
};

const shown = (value: unknown) =>
  value === null || value === undefined || value === ''
    ? '(empty)'
    : typeof value === 'object'
      ? JSON.stringify(value)
      : String(value);

/** A field's value as the form shows it: a choice's label, a referenced record's label. */
function FieldValue({ field, value }: { field: FieldMeta; value: unknown }) {
  const lookup = field.reference?.lookup;
  const id = value === null || value === undefined ? '' : String(value);
  const [label, setLabel] = useState(() => (lookup ? knownLabel(lookup, id) : undefined));
  useEffect(() => {
    if (!lookup || id === '' || label !== undefined) return;
    labelOf(lookup, id).then(
      (found) => setLabel(found ?? id),
      () => setLabel(id),
    );
  }, [lookup, id]);
  if (lookup && id !== '') return <>{label ?? '…'}</>;
  const choice = field.choices?.find((c) => c.value === id);
  return <>{choice ? choice.label : shown(value)}</>;
}

/** What a revision changed, one line per field and per detail relation. */
function ChangeLines({ meta, revision }: { meta: ResourceMeta; revision: Revision }) {
  if (revision.action === 'deleted') return null;
  const fields = (revision.changes.fields ?? {}) as Record<string, unknown>;
  const created = revision.action === 'created';
  // Stamps say nothing the line's time does not; a new record's empty fields are not news.
  const changed = meta.fields.filter(
    (field) =>
      field.name in fields &&
      !['updated_at', 'created_at', meta.key].includes(field.name) &&
      !(created && (fields[field.name] === null || fields[field.name] === '')),
  );
  const rows = meta.details.flatMap((detail) => {
    const changes = revision.changes[detail.name] as RowChanges | undefined;
    if (!changes) return [];
    const parts = [
      changes.created?.length ? `${changes.created.length} added` : '',
      changes.updated?.length ? `${changes.updated.length} changed` : '',
      changes.deleted?.length ? `${changes.deleted.length} removed` : '',
    ].filter(Boolean);
    return [`${detail.label}: ${parts.join(', ')}`];
  });
  return (
    <ul class="revision-changes">
      {changed.map((field) => (
        <li key={field.name}>
          {field.label}: <FieldValue field={field} value={fields[field.name]} />
        </li>
      ))}
      {rows.map((line) => (
        <li key={line}>{line}</li>
      ))}
    </ul>
  );
}

export function HistoryPanel(props: {
  meta: ResourceMeta;
  path: string;
  /** The form's version: the history is read again when it moves (a save, a restore). */
  etag: string | null;
  canRestore: boolean;
  /** Runs a write as the form runs its own (its change is then not "someone else's"). */
  write: <T extends { readonly headers: Headers }>(work: Promise<T>) => Promise<T>;
  onRestored: (answer: { data: RecordBody; headers: Headers }) => void;
}) {
  const { meta, path, etag, canRestore, write, onRestored } = props;
  const pages = usePastPages<Revision>(historyPath(path), 'The history could not be read.', etag);
  const { items: revisions, names, error } = pages;

  const restore = async (revision: Revision) =>
    onRestored(
      await write(exchange<RecordBody>('POST', restorePath(path, revision.seq), {}, ifMatch(etag))),
    );

  return (
    <section class="history" aria-labelledby="history-heading">
      <h2 id="history-heading">History</h2>
      <Alert message={error} />
      {revisions === null ? (
        <p class="muted">Loading…</p>
      ) : (
        <ol class="revisions">
          {revisions.map((revision, index) => (
            <li
              key={revision.seq}
              aria-label={`${VERBS[revision.action]} ${formatDate(revision.at)}`}
            >
              <p>
                <strong>{VERBS[revision.action]}</strong> by {names[revision.seq] ?? '…'},{' '}
                <time dateTime={revision.at}>{formatDate(revision.at)}</time>
              </p>
              <ChangeLines meta={meta} revision={revision} />
              {revision.record ? (
                <details>
                  <summary>The {meta.singular_label.toLowerCase()} after this change</summary>
                  <pre>{JSON.stringify(revision.record, null, 2)}</pre>
                </details>
              ) : null}
              {canRestore && revision.record && index > 0 ? (
                <button type="button" onClick={() => pages.confirm(revision)}>
                  Restore this version
                </button>
              ) : null}
            </li>
          ))}
        </ol>
      )}
      <ShowOlder older={pages.older} />
      <RestoreDialog
        pages={pages}
        title={`Restore this version of the ${meta.singular_label.toLowerCase()}?`}
        restore={restore}
        failure="The version could not be restored."
      >
        The {meta.singular_label.toLowerCase()} will be as it was on{' '}
        {pages.confirming ? formatDate(pages.confirming.at) : ''}
        {meta.details.length > 0
          ? `, its ${meta.details.map((d) => d.label.toLowerCase()).join(' and ')} included`
          : ''}
        . The restore is saved as a new change.
      </RestoreDialog>
    </section>
  );
}
