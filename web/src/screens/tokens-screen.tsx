// /admin/tokens (admins; issue 18 item 6, SPEC.md 5.1): the API tokens with their user, unit,
// abilities, last use, expiry and revocation; the issue form (a user, one of that user's units,
// a name, abilities from the grantable set grouped by domain, an optional expiry) that shows the
// new token once with Copy; Revoke after a confirmation.
import { useEffect, useState } from 'preact/hooks';
import { Alert } from '../components/alert.js';
import { ConfirmDialog } from '../components/confirm-dialog.js';
import { TokenIssueForm } from '../components/token-issue-form.js';
import { ApiError, del, get } from '../lib/api.js';
import { TOKENS, tokenPath } from '../lib/endpoints.js';
import { formatDate } from '../lib/format.js';
import { useTitle } from '../lib/title.js';

interface TokenRow {
  readonly id: number;
  readonly name: string;
  readonly abilities: readonly string[];
  readonly expires_at: string | null;
  readonly last_used_at: string | null;
  readonly revoked_at: string | null;
  readonly created_at: string | null;
  readonly user: { readonly id: number; readonly login: string; readonly name: string } | null;
  readonly unit: { readonly id: number; readonly name: string } | null;
}

function When({ value, none }: { value: string | null; none: string }) {
  return value ? <time dateTime={value}>{formatDate(value)}</time> : <span>{none}</span>;
}

export function TokensScreen() {
  useTitle('Tokens');
  const [tokens, setTokens] = useState<readonly TokenRow[] | null>(null);
  const [revoking, setRevoking] = useState<TokenRow | null>(null);
  const [error, setError] = useState<string | null>(null);

  const load = () =>
    get<{ data: TokenRow[] }>(TOKENS).then(
      (answer) => setTokens([...answer.data].sort((a, b) => b.id - a.id)),
      (failure: unknown) =>
        setError(failure instanceof ApiError ? failure.message : 'The tokens could not be read.'),
    );
  useEffect(() => {
    load();
  }, []);

  const revoke = async () => {
    const token = revoking;
    setRevoking(null);
    if (!token) return;
    try {
      await del(tokenPath(token.id));
    } catch (failure) {
      setError(failure instanceof ApiError ? failure.message : 'The token could not be revoked.');
    }
    load();
  };

  return (
    <section>
      <h1 tabIndex={-1}>Tokens</h1>
      <TokenIssueForm onIssued={load} />
      <h2>Issued tokens</h2>
      <Alert message={error} />
      {/* biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling region must take focus (WCAG 2.1.1) */}
      <div class="table-wrap" tabIndex={0}>
        <table>
          <caption class="visually-hidden">Issued tokens</caption>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">User</th>
              <th scope="col">Unit</th>
              <th scope="col">Abilities</th>
              <th scope="col">Last used</th>
              <th scope="col">Expires</th>
              <th scope="col">Revoked</th>
              <th scope="col">
                <span class="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {tokens === null ? (
              <tr>
                <td colSpan={8}>Loading…</td>
              </tr>
            ) : tokens.length === 0 ? (
              <tr>
                <td colSpan={8}>No tokens.</td>
              </tr>
            ) : (
              tokens.map((token) => (
                <tr key={token.id}>
                  <td>{token.name}</td>
                  <td>{token.user ? `${token.user.name} (${token.user.login})` : '—'}</td>
                  <td>{token.unit?.name ?? '—'}</td>
                  <td>{token.abilities.length > 0 ? token.abilities.join(', ') : 'none'}</td>
                  <td>
                    <When value={token.last_used_at} none="never" />
                  </td>
                  <td>
                    <When value={token.expires_at} none="never" />
                  </td>
                  <td>
                    <When value={token.revoked_at} none="no" />
                  </td>
                  <td>
                    {token.revoked_at ? null : (
                      <button type="button" onClick={() => setRevoking(token)}>
                        Revoke
                      </button>
                    )}
                  </td>
                </tr>
              ))
            )}
          </tbody>
        </table>
      </div>
      <ConfirmDialog
        open={revoking !== null}
        title="Revoke this token?"
        action="Revoke"
        danger
        onConfirm={revoke}
        onCancel={() => setRevoking(null)}
      >
        <p>
          {revoking?.name}: every request with it is refused from now on. This cannot be undone.
        </p>
      </ConfirmDialog>
    </section>
  );
}
