// /admin/r/<resource>/new and /admin/r/<resource>/<id>: the master-detail form of any resource,
// from its metadata alone (issue 18 item 4). Detail rows are staged with client keys and sent in
// one payload; a 422 lands on the field, row and cell it names, with the summary on top and
// nothing typed lost; leaving with unsaved changes (compared as payloads) asks first; Ctrl/Cmd+S
// saves; Delete asks in a dialog. The History panel lists the record's revisions and restores one
// (DESIGN.md 3.11).
import { useEffect, useId, useLayoutEffect, useRef, useState } from 'preact/hooks';
import type { ResourceMeta } from '../../../src/engine/description/metadata-types.js';
import { ChangedElsewhere } from '../components/changed-elsewhere.js';
import { DeleteRecordDialog } from '../components/delete-record-dialog.js';
import { DeliveriesPanel } from '../components/deliveries-panel.js';
import { DetailRows } from '../components/detail-rows.js';
import { HistoryPanel } from '../components/history-panel.js';
import { MasterField, RecordFacts } from '../components/master-fields.js';
import { RelatedRecords } from '../components/related-records.js';
import { ApiError, exchange, ifMatch, post } from '../lib/api.js';
import { setFlash, takeFlash } from '../lib/flash.js';
import {
  type FormState,
  payloadOf,
  type StagedRow,
  samePayload,
  stateOf,
} from '../lib/form-values.js';
import { headingOf } from '../lib/record-heading.js';
import {
  type ReadRecord,
  type RecordBody,
  readOf,
  readRecord,
  recordPath,
} from '../lib/record-read.js';
import { navigate, useLeaveGuard } from '../lib/router.js';
import { useApp } from '../lib/session.js';
import { useTitle } from '../lib/title.js';
import { useChangedElsewhere } from '../lib/use-changed-elsewhere.js';
import { useSaveShortcut } from '../lib/use-save-shortcut.js';
import { ResourceScreen } from './resource-screen.js';

type Errors = Readonly<Record<string, readonly string[]>>;

export function FormScreen({ name, id }: { name: string; id: string | null }) {
  return (
    <ResourceScreen name={name} action={id === null ? 'create' : 'show'}>
      {(meta) => <ResourceForm meta={meta} id={id} />}
    </ResourceScreen>
  );
}

function ResourceForm({ meta, id }: { meta: ResourceMeta; id: string | null }) {
  const { resources } = useApp();
  const isNew = id === null;
  const [record, setRecord] = useState<RecordBody | null>(null);
  /** The ETag of the version the form was loaded from or last saved: every save's If-Match. */
  const [etag, setEtag] = useState<string | null>(null);
  const [loadError, setLoadError] = useState<string | null>(null);
  const [form, setForm] = useState<FormState | null>(() => (isNew ? stateOf(meta, null) : null));
  const [baseline, setBaseline] = useState<FormState | null>(form);
  const [errors, setErrors] = useState<Errors>({});
  const [summary, setSummary] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(() => takeFlash());
  const [saving, setSaving] = useState(false);
  const [confirmDelete, setConfirmDelete] = useState(false);
  const [focusRow, setFocusRow] = useState<number | null>(null);
  const summaryRef = useRef<HTMLDivElement>(null);
  const formId = useId();
  const heading = headingOf(meta, record, id);
  useTitle(heading);

  const path = recordPath(meta, id);
  /** A version read or saved becomes the form's: `state` in the inputs, the version as base. */
  const adopt = (read: ReadRecord, state: FormState) => {
    setRecord(read.record);
    setEtag(read.etag);
    setForm(state);
    setBaseline(stateOf(meta, read.record, state));
  };
  const elsewhere = useChangedElsewhere(
    meta,
    id,
    form && baseline ? { form, baseline, etag } : null,
    adopt,
  );

  useEffect(() => {
    if (isNew) return;
    readRecord(path).then(
      (read) => {
        adopt(read, stateOf(meta, read.record));
        elsewhere.watch(read.seq);
      },
      (error: unknown) =>
        setLoadError(error instanceof ApiError ? error.message : 'The record could not be read.'),
    );
  }, [meta.path, id]);

  const canSave = meta.allowed.includes(isNew ? 'create' : 'update');
  const dirty =
    form !== null &&
    baseline !== null &&
    !samePayload(payloadOf(meta, form, isNew), payloadOf(meta, baseline, isNew));
  useLeaveGuard(dirty);

  const save = async () => {
    if (!form || saving || !canSave) return;
    setSaving(true);
    setNotice(null);
    const payload = payloadOf(meta, form, isNew);
    try {
      if (isNew) {
        const saved = await post<RecordBody>(meta.path, payload);
        // What a create answers beyond the record's fields is answered this once (a webhook's
        // signing secret): said with the confirmation, never read again.
        const once = Object.entries(saved).filter(
          ([name, value]) => typeof value === 'string' && !meta.fields.some((f) => f.name === name),
        );
        setFlash(
          [
            `${meta.singular_label} created.`,
            ...once.map(([name, value]) => `Its ${name}, shown this once: ${String(value)}`),
          ].join(' '),
        );
        navigate(`/admin/r/${meta.name}/${encodeURIComponent(String(saved[meta.key]))}`, {
          replace: true,
          force: true,
        });
        return;
      }
      const saved = readOf(
        await elsewhere.write(exchange<RecordBody>('PUT', path, payload, ifMatch(etag))),
      );
      setErrors({});
      setSummary(null);
      adopt(saved, stateOf(meta, saved.record, form));
      setNotice(`${meta.singular_label} saved.`);
    } catch (error) {
      // An ended session not renewed: the app has sent the person to sign in.
      if (error instanceof ApiError && error.status === 401) return;
      // Someone else saved it since it was read: say so, and let the person choose.
      if (error instanceof ApiError && error.status === 412) {
        setErrors({});
        setSummary(null);
        await elsewhere.learn('save').catch(() => setSummary(error.message));
        return;
      }
      // Nothing typed is touched: the form keeps its state, the errors go where they belong.
      setErrors(error instanceof ApiError ? error.errors : {});
      setSummary(error instanceof ApiError ? error.message : 'The service could not be reached.');
      requestAnimationFrame(() => summaryRef.current?.focus());
    } finally {
      setSaving(false);
    }
  };

  useSaveShortcut(save);

  // A row just added: its first input takes the focus (before the next key press is handled).
  useLayoutEffect(() => {
    if (focusRow === null) return;
    document
      .querySelector<HTMLElement>(`[data-row="${focusRow}"] input, [data-row="${focusRow}"] select`)
      ?.focus();
    setFocusRow(null);
  }, [focusRow]);

  const remove = async () => {
    setConfirmDelete(false);
    try {
      await elsewhere.write(exchange('DELETE', path, undefined, ifMatch(etag)));
      setFlash(`${meta.singular_label} deleted.`);
      navigate(`/admin/r/${meta.name}`, { force: true });
    } catch (error) {
      if (error instanceof ApiError && error.status === 412)
        await elsewhere.learn('delete').catch(() => setSummary(error.message));
      else
        setSummary(error instanceof ApiError ? error.message : 'The record could not be deleted.');
    }
  };

  if (loadError)
    return (
      <section>
        <h1 tabIndex={-1}>{heading}</h1>
        <p role="alert" class="alert">
          {loadError}
        </p>
      </section>
    );
  if (!form)
    return (
      <p role="status" class="loading">
        Loading…
      </p>
    );

  const dropError = (...keys: string[]) => {
    if (keys.some((k) => k in errors)) {
      const next = { ...errors };
      for (const key of keys) delete next[key];
      setErrors(next);
    }
  };
  const setMaster = (field: string, value: string) => {
    setForm({ ...form, master: { ...form.master, [field]: value } });
    dropError(field);
  };
  const setRows = (detail: string, rows: readonly StagedRow[]) =>
    setForm({ ...form, details: { ...form.details, [detail]: rows } });
  const dropPrefix = (prefix: string) => {
    const keys = Object.keys(errors).filter((k) => k.startsWith(prefix));
    if (keys.length > 0) dropError(...keys);
  };
  const errorOf = (key: string) => {
    const messages = errors[key];
    return messages && messages.length > 0 ? messages.join(' ') : null;
  };
  // Errors a field, row or cell shows; the rest are listed under the summary.
  const placed = (key: string): boolean => {
    if (writableNames.has(key)) return true;
    const [relation, index, field, ...rest] = key.split('.');
    const detail = meta.details.find((d) => d.name === relation);
    const rows = detail && form.details[detail.name];
    if (!detail || !rows || rest.length > 0) return false;
    if (index === undefined) return true;
    if (!/^\d+$/.test(index) || Number(index) >= rows.length) return false;
    return (
      field === undefined ||
      field === detail.key ||
      detail.fields.some((f) => f.name === field && !f.read_only)
    );
  };

  const readOnly = meta.fields.filter((f) => f.read_only && !isNew);
  const writable = meta.fields.filter((f) => !f.read_only);
  const writableNames = new Set(writable.map((f) => f.name));

  const body = (
    <>
      {readOnly.length > 0 && record ? <RecordFacts fields={readOnly} record={record} /> : null}
      <div class="fields">
        {writable.map((field) => (
          <MasterField
            key={field.name}
            field={field}
            id={`${formId}-${field.name}`}
            value={form.master[field.name] ?? ''}
            onChange={(value) => setMaster(field.name, value)}
            error={errorOf(field.name)}
            isNew={isNew}
          />
        ))}
      </div>
      {meta.details.map((detail) =>
        form.details[detail.name] ? (
          <DetailRows
            key={detail.name}
            detail={detail}
            rows={form.details[detail.name] ?? []}
            onChange={(rows) => setRows(detail.name, rows)}
            errorOf={errorOf}
            dropError={dropError}
            dropPrefix={dropPrefix}
            isNew={isNew}
            onAdded={setFocusRow}
          />
        ) : null,
      )}
    </>
  );
  const unplaced = Object.entries(errors).filter(([key]) => !placed(key));

  return (
    <section>
      <div class="toolbar">
        <h1 tabIndex={-1}>{heading}</h1>
        {!isNew && meta.allowed.includes('create') ? (
          <button type="button" onClick={() => navigate(`/admin/r/${meta.name}/new`)}>
            New
          </button>
        ) : null}
      </div>
      {notice ? (
        <p role="status" class="notice">
          {notice}
        </p>
      ) : null}
      {elsewhere.change ? (
        <ChangedElsewhere
          change={elsewhere.change}
          singular={meta.singular_label}
          dirty={dirty}
          onKeep={elsewhere.keepMine}
          onLoad={elsewhere.loadTheirs}
        />
      ) : null}
      {summary ? (
        <div role="alert" class="alert" tabIndex={-1} ref={summaryRef}>
          <p>{summary}</p>
          {unplaced.length > 0 ? (
            <ul>
              {unplaced.map(([key, messages]) => (
                <li key={key}>{messages.join(' ')}</li>
              ))}
            </ul>
          ) : null}
        </div>
      ) : null}
      <form
        class="form"
        noValidate
        aria-label={heading}
        onSubmit={(event) => {
          event.preventDefault();
          save();
        }}
      >
        <fieldset disabled={!canSave} class="plain">
          {body}
        </fieldset>
        <div class="form-actions">
          {canSave ? (
            <button type="submit" class="primary" disabled={saving}>
              Save
            </button>
          ) : null}
          {!isNew && meta.allowed.includes('delete') ? (
            <button type="button" class="danger" onClick={() => setConfirmDelete(true)}>
              Delete
            </button>
          ) : null}
          <span class="muted" aria-live="polite">
            {saving ? 'Saving…' : dirty ? 'Unsaved changes' : ''}
          </span>
        </div>
      </form>
      {!isNew && meta.panels.includes('deliveries') ? (
        <DeliveriesPanel path={path} canReplay={meta.allowed.includes('update')} />
      ) : null}
      {!isNew ? (
        <HistoryPanel
          meta={meta}
          path={path}
          etag={etag}
          canRestore={meta.allowed.includes('update')}
          write={elsewhere.write}
          onRestored={(answer) => {
            const restored = readOf(answer);
            setErrors({});
            setSummary(null);
            adopt(restored, stateOf(meta, restored.record));
            setNotice(`${meta.singular_label} restored.`);
          }}
        />
      ) : null}
      {!isNew && resources
        ? meta.related.map((related) => {
            const other = resources.find((r) => r.name === related.resource);
            return other?.allowed.includes('list') ? (
              <RelatedRecords
                key={related.resource}
                related={related}
                meta={other}
                id={String(id)}
              />
            ) : null;
          })
        : null}
      <DeleteRecordDialog
        open={confirmDelete}
        meta={meta}
        heading={heading}
        onConfirm={remove}
        onCancel={() => setConfirmDelete(false)}
      />
    </section>
  );
}
