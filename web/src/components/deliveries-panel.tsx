// The Deliveries panel of a webhook's form (DESIGN.md 3.10): its deliveries newest first, each
// with its event, status, attempts, next attempt and the last answer's status and time; Replay
// sends one again, Replay dead every dead one. Reads GET /api/webhooks/{id}/deliveries.
import { useEffect, useState } from 'preact/hooks';
import { ApiError, get, post } from '../lib/api.js';
import { deliveriesPath, replayDeadPath, replayPath } from '../lib/endpoints.js';
import { formatDate } from '../lib/format.js';
import { Alert } from './alert.js';

interface Delivery {
  readonly id: number;
  readonly event: string;
  readonly change: { readonly database: string; readonly seq: number };
  readonly status: 'pending' | 'succeeded' | 'dead';
  readonly attempts: number;
  readonly next_attempt_at: string | null;
  readonly last_status: number | null;
  readonly last_duration_ms: number | null;
  readonly last_error: string | null;
  readonly created_at: string;
}

interface DeliveriesPage {
  readonly data: readonly Delivery[];
  readonly meta: { readonly next_before: number | null };
}

export function DeliveriesPanel(props: { path: string; canReplay: boolean }) {
  const { path, canReplay } = props;
  const [deliveries, setDeliveries] = useState<readonly Delivery[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);

  const load = async () => {
    const page = await get<DeliveriesPage>(deliveriesPath(path, 50));
    setDeliveries(page.data);
  };
  const failed = (what: string) => (e: unknown) =>
    setError(e instanceof ApiError ? e.message : what);
  useEffect(() => {
    load().catch(failed('The deliveries could not be read.'));
    // Attempts go on in the background: the list follows them.
    const timer = setInterval(() => void load().catch(() => undefined), 5000);
    return () => clearInterval(timer);
  }, [path]);

  const replay = async (target: string, said: string) => {
    setError(null);
    try {
      await post(target);
      setNotice(said);
      await load();
    } catch (e) {
      failed('The replay failed.')(e);
    }
  };
  const dead = (deliveries ?? []).filter((d) => d.status === 'dead').length;

  return (
    <section class="history" aria-labelledby="deliveries-heading">
      <h2 id="deliveries-heading">Deliveries</h2>
      <Alert message={error} />
      <p class="muted" aria-live="polite">
        {notice ?? ''}
      </p>
      {canReplay && dead > 0 ? (
        <button
          type="button"
          onClick={() => replay(replayDeadPath(path), 'Every dead delivery is sent again.')}
        >
          Replay dead
        </button>
      ) : null}
      {deliveries === null ? (
        <p class="muted">Loading…</p>
      ) : deliveries.length === 0 ? (
        <p class="muted">No deliveries yet.</p>
      ) : (
        <table>
          <thead>
            <tr>
              <th scope="col">Event</th>
              <th scope="col">Change</th>
              <th scope="col">Status</th>
              <th scope="col">Attempts</th>
              <th scope="col">Next attempt</th>
              <th scope="col">Last answer</th>
              <th scope="col">Created</th>
              {canReplay ? <th scope="col">Actions</th> : null}
            </tr>
          </thead>
          <tbody>
            {deliveries.map((d) => (
              <tr key={d.id}>
                <td>{d.event}</td>
                <td>{d.change.seq}</td>
                <td>{d.status}</td>
                <td>{d.attempts}</td>
                <td>{d.next_attempt_at ? formatDate(d.next_attempt_at) : ''}</td>
                <td>
                  {d.last_status !== null ? `HTTP ${d.last_status}` : (d.last_error ?? '')}
                  {d.last_duration_ms !== null ? ` in ${d.last_duration_ms} ms` : ''}
                </td>
                <td>{formatDate(d.created_at)}</td>
                {canReplay ? (
                  <td>
                    {d.status === 'pending' ? null : (
                      <button
                        type="button"
                        aria-label={`Replay delivery ${d.id}`}
                        onClick={() =>
                          replay(replayPath(path, d.id), `Delivery ${d.id} is sent again.`)
                        }
                      >
                        Replay
                      </button>
                    )}
                  </td>
                ) : null}
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
