// The History panel of a record's form (DESIGN.md 3.11): its revisions newest first, each with
// who, when and what changed (field by field, detail rows added, changed and removed), the
// record as it was after that write, and Restore, confirmed in the native <dialog>. A restore
// is a write like Save: through the form's write tracker, with the form's If-Match.
import { useEffect, useState } from 'preact/hooks';
import type { ResourceMeta } from '../../../src/engine/description/metadata-types.js';
import { ApiError, exchange, get, ifMatch, query } from '../lib/api.js';
import { actorName, type Change } from '../lib/change-feed.js';
import { formatDate } from '../lib/format.js';
import type { RecordBody } from '../lib/record-read.js';
import { ConfirmDialog } from './confirm-dialog.js';

export interface Revision {
  readonly seq: number;
  readonly version: number | null;
  readonly action: Change['action'];
  readonly at: string;
  readonly actor: Change['actor'];
  readonly changes: Readonly<Record<string, unknown>>;
  readonly record: RecordBody | null;
}

interface HistoryPage {
  readonly data: readonly Revision[];
  readonly meta: { readonly next: number | null; readonly has_more: boolean };
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

/** What a revision changed, one line per field and per detail relation. */
function changeLines(meta: ResourceMeta, revision: Revision): string[] {
  if (revision.action === 'deleted') return [];
  const lines: string[] = [];
  const fields = (revision.changes.fields ?? {}) as Record<string, unknown>;
  const created = revision.action === 'created';
  for (const field of meta.fields) {
    const value = fields[field.name];
    // Stamps say nothing the line's time does not; a new record's empty fields are not news.
    if (!(field.name in fields) || ['updated_at', 'created_at', meta.key].includes(field.name))
      continue;
    if (created && (value === null || value === '')) continue;
    lines.push(`${field.label}: ${shown(value)}`);
  }
  for (const detail of meta.details) {
    const rows = revision.changes[detail.name] as RowChanges | undefined;
    if (!rows) continue;
    const parts = [
      rows.created?.length ? `${rows.created.length} added` : '',
      rows.updated?.length ? `${rows.updated.length} changed` : '',
      rows.deleted?.length ? `${rows.deleted.length} removed` : '',
    ].filter(Boolean);
    lines.push(`${detail.label}: ${parts.join(', ')}`);
  }
  return lines;
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
  const [revisions, setRevisions] = useState<readonly Revision[] | null>(null);
  const [next, setNext] = useState<number | null>(null);
  const [names, setNames] = useState<Record<number, string>>({});
  const [error, setError] = useState<string | null>(null);
  const [confirm, setConfirm] = useState<Revision | null>(null);

  const load = async (before: number | null) => {
    const page = await get<HistoryPage>(`${path}/history${query({ limit: 20, before })}`);
    setRevisions((known) => (before === null ? page.data : [...(known ?? []), ...page.data]));
    setNext(page.meta.has_more ? page.meta.next : null);
    for (const revision of page.data) {
      const name = await actorName({ ...revision, resource: meta.name, id: '' });
      setNames((known) => ({ ...known, [revision.seq]: name }));
    }
  };
  useEffect(() => {
    load(null).catch((e: unknown) =>
      setError(e instanceof ApiError ? e.message : 'The history could not be read.'),
    );
  }, [path, etag]);

  const restore = async (revision: Revision) => {
    setConfirm(null);
    setError(null);
    try {
      const answer = await write(
        exchange<RecordBody>('POST', `${path}/history/${revision.seq}/restore`, {}, ifMatch(etag)),
      );
      onRestored(answer);
    } catch (e) {
      setError(e instanceof ApiError ? e.message : 'The version could not be restored.');
    }
  };

  return (
    <section class="history" aria-labelledby="history-heading">
      <h2 id="history-heading">History</h2>
      {error ? (
        <p role="alert" class="alert">
          {error}
        </p>
      ) : null}
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
              <ul class="revision-changes">
                {changeLines(meta, revision).map((line) => (
                  <li key={line}>{line}</li>
                ))}
              </ul>
              {revision.record ? (
                <details>
                  <summary>The {meta.singular_label.toLowerCase()} after this change</summary>
                  <pre>{JSON.stringify(revision.record, null, 2)}</pre>
                </details>
              ) : null}
              {canRestore && revision.record && index > 0 ? (
                <button type="button" onClick={() => setConfirm(revision)}>
                  Restore this version
                </button>
              ) : null}
            </li>
          ))}
        </ol>
      )}
      {next !== null ? (
        <button type="button" onClick={() => load(next)}>
          Show older
        </button>
      ) : null}
      <ConfirmDialog
        open={confirm !== null}
        title={`Restore this version of the ${meta.singular_label.toLowerCase()}?`}
        action="Restore"
        onConfirm={() => confirm && restore(confirm)}
        onCancel={() => setConfirm(null)}
      >
        <p>
          The {meta.singular_label.toLowerCase()} will be as it was on{' '}
          {confirm ? formatDate(confirm.at) : ''}
          {meta.details.length > 0
            ? `, its ${meta.details.map((d) => d.label.toLowerCase()).join(' and ')} included`
            : ''}
          . The restore is saved as a new change.
        </p>
      </ConfirmDialog>
    </section>
  );
}
