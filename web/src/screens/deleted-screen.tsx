// /admin/r/<resource>/deleted: the records deleted and not restored since (DESIGN.md 3.11),
// newest delete first, who deleted each and when, and Restore, confirmed in the native <dialog>:
// the record comes back with its id and detail rows, and its form opens.
import { useEffect, useState } from 'preact/hooks';
import type { ResourceMeta } from '../../../src/engine/description/metadata-types.js';
import { ConfirmDialog } from '../components/confirm-dialog.js';
import { ApiError, exchange, get, query } from '../lib/api.js';
import { actorName, type Change } from '../lib/change-feed.js';
import { setFlash } from '../lib/flash.js';
import { formatDate } from '../lib/format.js';
import type { RecordBody } from '../lib/record-read.js';
import { Link, navigate } from '../lib/router.js';
import { useResource } from '../lib/session.js';
import { useTitle } from '../lib/title.js';
import { NotFound } from './not-found.js';

interface Deleted {
  readonly id: string | number;
  readonly seq: number;
  readonly at: string;
  readonly actor: Change['actor'];
  readonly restore_seq: number | null;
  readonly record: RecordBody | null;
}

interface DeletedPage {
  readonly data: readonly Deleted[];
  readonly meta: { readonly next: number | null; readonly has_more: boolean };
}

export function DeletedScreen({ name }: { name: string }) {
  const meta = useResource(name);
  if (meta === undefined)
    return (
      <p role="status" class="loading">
        Loading…
      </p>
    );
  if (meta === null || !meta.allowed.includes('list')) return <NotFound />;
  return <DeletedRecords meta={meta} />;
}

function titleOf(meta: ResourceMeta, item: Deleted): string {
  const named = meta.title_fields
    .map((f) => item.record?.[f])
    .filter((v) => v !== null && v !== undefined && v !== '');
  return named.length > 0 ? named.join(' · ') : `#${item.id}`;
}

function DeletedRecords({ meta }: { meta: ResourceMeta }) {
  const heading = `Deleted ${meta.label.toLowerCase()}`;
  useTitle(heading);
  const [items, setItems] = useState<readonly Deleted[] | null>(null);
  const [next, setNext] = useState<number | null>(null);
  const [names, setNames] = useState<Record<number, string>>({});
  const [error, setError] = useState<string | null>(null);
  const [confirm, setConfirm] = useState<Deleted | null>(null);
  const canRestore = meta.allowed.includes('update');

  const load = async (before: number | null) => {
    const page = await get<DeletedPage>(`${meta.path}/deleted${query({ limit: 20, before })}`);
    setItems((known) => (before === null ? page.data : [...(known ?? []), ...page.data]));
    setNext(page.meta.has_more ? page.meta.next : null);
    for (const item of page.data) {
      const name = await actorName({
        ...item,
        resource: meta.name,
        action: 'deleted',
        version: null,
        changes: {},
      });
      setNames((known) => ({ ...known, [item.seq]: name }));
    }
  };
  useEffect(() => {
    load(null).catch((e: unknown) =>
      setError(e instanceof ApiError ? e.message : 'The deleted records could not be read.'),
    );
  }, [meta.path]);

  const restore = async (item: Deleted) => {
    setConfirm(null);
    setError(null);
    try {
      await exchange('POST', `${meta.path}/${item.id}/history/${item.restore_seq}/restore`, {});
      setFlash(`${meta.singular_label} restored.`);
      navigate(`/admin/r/${meta.name}/${encodeURIComponent(String(item.id))}`, { force: true });
    } catch (e) {
      setError(e instanceof ApiError ? e.message : 'The record could not be restored.');
    }
  };

  return (
    <section>
      <div class="toolbar">
        <h1 tabIndex={-1}>{heading}</h1>
        <Link href={`/admin/r/${meta.name}`}>Back to {meta.label.toLowerCase()}</Link>
      </div>
      {error ? (
        <p role="alert" class="alert">
          {error}
        </p>
      ) : null}
      {items === null ? (
        <p role="status" class="loading">
          Loading…
        </p>
      ) : items.length === 0 ? (
        <p>Nothing deleted is kept.</p>
      ) : (
        <div class="table-wrap">
          <table>
            <thead>
              <tr>
                <th scope="col">{meta.singular_label}</th>
                <th scope="col">Deleted</th>
                <th scope="col">By</th>
                <th scope="col">
                  <span class="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {items.map((item) => (
                <tr key={item.seq}>
                  <td>{titleOf(meta, item)}</td>
                  <td>
                    <time dateTime={item.at}>{formatDate(item.at)}</time>
                  </td>
                  <td>{names[item.seq] ?? '…'}</td>
                  <td>
                    {canRestore && item.restore_seq !== null ? (
                      <button
                        type="button"
                        aria-label={`Restore ${titleOf(meta, item)}`}
                        onClick={() => setConfirm(item)}
                      >
                        Restore
                      </button>
                    ) : null}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {next !== null ? (
        <button type="button" onClick={() => load(next)}>
          Show older
        </button>
      ) : null}
      <ConfirmDialog
        open={confirm !== null}
        title={`Restore this ${meta.singular_label.toLowerCase()}?`}
        action="Restore"
        onConfirm={() => confirm && restore(confirm)}
        onCancel={() => setConfirm(null)}
      >
        <p>
          {confirm ? titleOf(meta, confirm) : ''} comes back with its id
          {meta.details.length > 0
            ? ` and its ${meta.details.map((d) => d.label.toLowerCase()).join(' and ')}`
            : ''}
          , as it was before it was deleted.
        </p>
      </ConfirmDialog>
    </section>
  );
}
