// /admin/r/<resource>/new and /admin/r/<resource>/<id>: the master-detail form of any resource,
// from its metadata alone (issue 18 item 4). Detail rows are staged with client keys and sent in
// one payload; a 422 lands on the field, row and cell it names, with the summary on top and
// nothing typed lost; leaving with unsaved changes (compared as payloads) asks first; Ctrl/Cmd+S
// saves; Delete asks in a dialog.
import { useEffect, useId, useLayoutEffect, useRef, useState } from 'preact/hooks';
import type { FieldMeta, ResourceMeta } from '../../../src/engine/description/metadata-types.js';
import { ConfirmDialog } from '../components/confirm-dialog.js';
import { DetailRows } from '../components/detail-rows.js';
import { FieldInput } from '../components/field-input.js';
import { RelatedRecords } from '../components/related-records.js';
import { ApiError, del, get, post, put } from '../lib/api.js';
import { setFlash, takeFlash } from '../lib/flash.js';
import {
  type FormState,
  payloadOf,
  type StagedRow,
  samePayload,
  stateOf,
} from '../lib/form-values.js';
import { formatDate } from '../lib/format.js';
import { navigate, useLeaveGuard } from '../lib/router.js';
import { useApp, useResource } from '../lib/session.js';
import { useTitle } from '../lib/title.js';
import { NotFound } from './not-found.js';

type Record_ = Readonly<Record<string, unknown>>;
type Errors = Readonly<Record<string, readonly string[]>>;

export function FormScreen({ name, id }: { name: string; id: string | null }) {
  const meta = useResource(name);
  if (meta === undefined)
    return (
      <p role="status" class="loading">
        Loading…
      </p>
    );
  const action = id === null ? 'create' : 'show';
  if (meta === null || !meta.allowed.includes(action)) return <NotFound />;
  return <ResourceForm meta={meta} id={id} />;
}

function headingOf(meta: ResourceMeta, record: Record_ | null, id: string | null): string {
  if (id === null) return `New ${meta.singular_label.toLowerCase()}`;
  const named = meta.title_fields
    .map((f) => record?.[f])
    .filter((v) => v !== null && v !== undefined && v !== '');
  return named.length > 0
    ? `${meta.singular_label}: ${named.join(' · ')}`
    : `${meta.singular_label} #${id}`;
}

function ResourceForm({ meta, id }: { meta: ResourceMeta; id: string | null }) {
  const { resources } = useApp();
  const isNew = id === null;
  const [record, setRecord] = useState<Record_ | null>(null);
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

  useEffect(() => {
    if (isNew) return;
    get<Record_>(`${meta.path}/${encodeURIComponent(id)}`).then(
      (loaded) => {
        const state = stateOf(meta, loaded);
        setRecord(loaded);
        setForm(state);
        setBaseline(state);
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
      const saved = isNew
        ? await post<Record_>(meta.path, payload)
        : await put<Record_>(`${meta.path}/${encodeURIComponent(id)}`, payload);
      setErrors({});
      setSummary(null);
      if (isNew) {
        setFlash(`${meta.singular_label} created.`);
        navigate(`/admin/r/${meta.name}/${encodeURIComponent(String(saved[meta.key]))}`, {
          replace: true,
          force: true,
        });
        return;
      }
      const state = stateOf(meta, saved, form);
      setRecord(saved);
      setForm(state);
      setBaseline(state);
      setNotice(`${meta.singular_label} saved.`);
    } catch (error) {
      // An ended session: the app asks to sign in again over the form; then Save again.
      if (error instanceof ApiError && error.status === 401) return;
      // Nothing typed is touched: the form keeps its state, the errors go where they belong.
      setErrors(error instanceof ApiError ? error.errors : {});
      setSummary(error instanceof ApiError ? error.message : 'The service could not be reached.');
      requestAnimationFrame(() => summaryRef.current?.focus());
    } finally {
      setSaving(false);
    }
  };

  // Ctrl/Cmd+S saves, wherever the focus is.
  const saveRef = useRef(save);
  saveRef.current = save;
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if ((event.ctrlKey || event.metaKey) && event.key.toLowerCase() === 's') {
        event.preventDefault();
        saveRef.current();
      }
    };
    addEventListener('keydown', onKey);
    return () => removeEventListener('keydown', onKey);
  }, []);

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
      await del(`${meta.path}/${encodeURIComponent(String(id))}`);
      setFlash(`${meta.singular_label} deleted.`);
      navigate(`/admin/r/${meta.name}`, { force: true });
    } catch (error) {
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
  const required = (field: FieldMeta) => (isNew ? field.required : field.required_on_update);

  const body = (
    <>
      {readOnly.length > 0 && record ? (
        <dl class="record-facts">
          {readOnly.map((field) => (
            <div key={field.name}>
              <dt>{field.label}</dt>
              <dd>
                {field.input === 'datetime' ? (
                  <time dateTime={String(record[field.name] ?? '')}>
                    {formatDate(record[field.name])}
                  </time>
                ) : (
                  String(record[field.name] ?? '')
                )}
              </dd>
            </div>
          ))}
        </dl>
      ) : null}
      <div class="fields">
        {writable.map((field) => {
          const inputId = `${formId}-${field.name}`;
          const error = errorOf(field.name);
          const errorId = `${inputId}-error`;
          const hintId = `${inputId}-hint`;
          const hint =
            field.input === 'password' && !isNew
              ? 'Leave empty to keep the current password.'
              : field.max_length
                ? `At most ${field.max_length} characters.`
                : null;
          return (
            <div
              key={field.name}
              class={`field${field.input === 'json' || field.input === 'textarea' ? ' wide' : ''}`}
            >
              {/* The mark outside the label: the label's text is the field's label, exactly. */}
              <span class="label-row">
                <label for={inputId}>{field.label}</label>
                {required(field) ? (
                  <span class="required" aria-hidden="true">
                    *
                  </span>
                ) : null}
              </span>
              <FieldInput
                field={field}
                id={inputId}
                value={form.master[field.name] ?? ''}
                onChange={(value) => setMaster(field.name, value)}
                required={required(field)}
                invalid={error !== null}
                describedBy={
                  [error ? errorId : null, hint ? hintId : null].filter(Boolean).join(' ') ||
                  undefined
                }
                isNew={isNew}
              />
              {hint ? (
                <p id={hintId} class="hint">
                  {hint}
                </p>
              ) : null}
              {error ? (
                <p id={errorId} class="field-error">
                  {error}
                </p>
              ) : null}
            </div>
          );
        })}
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
      <ConfirmDialog
        open={confirmDelete}
        title={`Delete this ${meta.singular_label.toLowerCase()}?`}
        action="Delete"
        danger
        onConfirm={remove}
        onCancel={() => setConfirmDelete(false)}
      >
        <p>
          {heading} will be deleted
          {meta.details.length > 0
            ? `, with its ${meta.details.map((d) => d.label.toLowerCase()).join(' and ')}`
            : ''}
          . This cannot be undone.
        </p>
      </ConfirmDialog>
    </section>
  );
}
