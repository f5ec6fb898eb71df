// The token issue form (issue 18 item 6): a user (picker), one of that user's units, a name,
// abilities from the grantable set grouped by domain, an optional expiry; the new token is shown
// once, read-only, with Copy and the warning that it will not be shown again.
import { useEffect, useId, useState } from 'preact/hooks';
import type { LookupItem } from '../../../src/engine/description/metadata-types.js';
import { ApiError, get, post } from '../lib/api.js';
import { GRANTABLE_ABILITIES, lookupPath, TOKENS, userPath } from '../lib/endpoints.js';
import { useApp } from '../lib/session.js';
import { Alert } from './alert.js';
import { LookupPicker } from './lookup-picker.js';

/** `import-templates.read` -> its domain, `import-templates`. */
const domainOf = (ability: string) => ability.split('.').slice(0, -1).join('.') || ability;

function byDomain(abilities: readonly string[]): [string, string[]][] {
  const groups = new Map<string, string[]>();
  for (const ability of abilities) {
    const domain = domainOf(ability);
    groups.set(domain, [...(groups.get(domain) ?? []), ability]);
  }
  return [...groups.entries()];
}

export function TokenIssueForm({ onIssued }: { onIssued: () => void }) {
  const id = useId();
  const { session } = useApp();
  const [grantable, setGrantable] = useState<readonly string[]>([]);
  const [userId, setUserId] = useState('');
  const [units, setUnits] = useState<readonly LookupItem[]>([]);
  const [unitId, setUnitId] = useState('');
  const [name, setName] = useState('');
  const [abilities, setAbilities] = useState<ReadonlySet<string>>(new Set());
  const [expiresAt, setExpiresAt] = useState('');
  const [errors, setErrors] = useState<Record<string, string[]>>({});
  const [summary, setSummary] = useState<string | null>(null);
  const [issued, setIssued] = useState<string | null>(null);
  const [copied, setCopied] = useState(false);

  useEffect(() => {
    get<{ data: string[] }>(GRANTABLE_ABILITIES).then((a) => setGrantable(a.data));
  }, []);

  // The chosen user's units in their link order, named through the units lookup. Preselected:
  // the unit they work in, that is this session's unit when they are the signed-in user, else
  // the first linked, where their sessions start (DESIGN.md 3.6), not the first by name.
  const workingUnit = (user: string, units: readonly LookupItem[]) =>
    (user === String(session.user.id) &&
      units.find((unit) => String(unit.id) === String(session.unit.id))) ||
    units[0];
  useEffect(() => {
    setUnits([]);
    setUnitId('');
    if (userId === '') return;
    get<{ units?: { id: number; unit_id: number }[] }>(userPath(userId))
      .then(async (user) => {
        const ids = [...(user.units ?? [])].sort((a, b) => a.id - b.id).map((u) => u.unit_id);
        if (ids.length === 0) return;
        const named = await get<{ data: LookupItem[] }>(
          `${lookupPath('units')}?ids=${ids.join(',')}`,
        );
        const byId = new Map(named.data.map((unit) => [String(unit.id), unit]));
        const ordered = ids.flatMap((unitId) => byId.get(String(unitId)) ?? []);
        setUnits(ordered);
        setUnitId(String(workingUnit(userId, ordered)?.id ?? ''));
      })
      .catch(() => setUnits([]));
  }, [userId]);

  const submit = async (event: Event) => {
    event.preventDefault();
    setSummary(null);
    try {
      const answer = await post<{ token: string }>(TOKENS, {
        user_id: userId === '' ? null : Number(userId),
        unit_id: unitId === '' ? null : Number(unitId),
        name,
        abilities: grantable.filter((a) => abilities.has(a)),
        ...(expiresAt ? { expires_at: new Date(expiresAt).toISOString() } : {}),
      });
      setErrors({});
      setIssued(answer.token);
      setCopied(false);
      setName('');
      setAbilities(new Set());
      setExpiresAt('');
      onIssued();
    } catch (error) {
      setErrors(error instanceof ApiError ? error.errors : {});
      setSummary(error instanceof ApiError ? error.message : 'The token could not be issued.');
    }
  };

  const copy = async () => {
    if (!issued) return;
    try {
      await navigator.clipboard.writeText(issued);
    } catch {
      const field = document.getElementById(`${id}-new`) as HTMLInputElement | null;
      field?.select();
      document.execCommand('copy');
    }
    setCopied(true);
  };

  const error = (field: string) => errors[field]?.join(' ') ?? null;
  const described = (field: string) => (error(field) ? `${id}-${field}-error` : undefined);
  const fieldError = (field: string) =>
    error(field) ? (
      <p id={`${id}-${field}-error`} class="field-error">
        {error(field)}
      </p>
    ) : null;

  return (
    <section class="card" aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`}>Issue a token</h2>
      {issued ? (
        <div class="notice">
          <label for={`${id}-new`}>New token</label>
          <div class="new-token">
            <input
              id={`${id}-new`}
              readOnly
              value={issued}
              onFocus={(e) => e.currentTarget.select()}
            />
            <button type="button" onClick={copy}>
              Copy
            </button>
          </div>
          <p role="status">{copied ? 'Copied. ' : ''}Copy it now: it will not be shown again.</p>
        </div>
      ) : null}
      <Alert message={summary} />
      <form class="form" noValidate onSubmit={submit}>
        <div class="fields">
          <div class="field">
            <label for={`${id}-user`}>User</label>
            <LookupPicker
              id={`${id}-user`}
              lookup={lookupPath('users')}
              value={userId}
              onChange={setUserId}
              invalid={error('user_id') !== null}
              describedBy={described('user_id')}
              required
            />
            {fieldError('user_id')}
          </div>
          <div class="field">
            <label for={`${id}-unit`}>Unit</label>
            <select
              id={`${id}-unit`}
              value={unitId}
              onChange={(e) => setUnitId(e.currentTarget.value)}
              disabled={units.length === 0}
              aria-invalid={error('unit_id') ? 'true' : undefined}
              aria-describedby={described('unit_id')}
            >
              {units.length === 0 ? <option value="">Choose a user first</option> : null}
              {units.map((unit) => (
                <option key={unit.id} value={String(unit.id)}>
                  {unit.label}
                </option>
              ))}
            </select>
            {fieldError('unit_id')}
          </div>
          <div class="field">
            <label for={`${id}-name`}>Name</label>
            <input
              id={`${id}-name`}
              value={name}
              onInput={(e) => setName(e.currentTarget.value)}
              aria-required="true"
              aria-invalid={error('name') ? 'true' : undefined}
              aria-describedby={described('name')}
            />
            {fieldError('name')}
          </div>
          <div class="field">
            <label for={`${id}-expires`}>Expires at</label>
            <input
              id={`${id}-expires`}
              type="datetime-local"
              value={expiresAt}
              onInput={(e) => setExpiresAt(e.currentTarget.value)}
              aria-invalid={error('expires_at') ? 'true' : undefined}
              aria-describedby={described('expires_at') ?? `${id}-expires-hint`}
            />
            <p id={`${id}-expires-hint`} class="hint">
              Empty: the token does not expire.
            </p>
            {fieldError('expires_at')}
          </div>
        </div>
        <fieldset class="abilities">
          <legend>Abilities</legend>
          {byDomain(grantable).map(([domain, list]) => (
            <fieldset key={domain}>
              <legend>{domain}</legend>
              {list.map((ability) => (
                <label key={ability}>
                  <input
                    type="checkbox"
                    checked={abilities.has(ability)}
                    onChange={(e) => {
                      const next = new Set(abilities);
                      if (e.currentTarget.checked) next.add(ability);
                      else next.delete(ability);
                      setAbilities(next);
                    }}
                  />
                  {ability}
                </label>
              ))}
            </fieldset>
          ))}
          {fieldError('abilities')}
        </fieldset>
        <div class="form-actions">
          <button type="submit" class="primary">
            Issue token
          </button>
        </div>
      </form>
    </section>
  );
}
