// Publishing through the Pusher HTTP API (DESIGN.md 3.5): signed `POST /apps/{id}/batch_events`
// to PUSHER_HOST (Pusher, Soketi, Reverb, or another svc's embedded server). One deadline covers
// the whole publish, so a slow or dead push server costs the sender at most `timeoutMs`.
import type { PusherEndpoint } from '../config/config.js';
import type { BroadcastEvent, Broadcaster } from './broadcaster.js';
import { type PusherCredentials, signedQuery } from './pusher-signatures.js';

/** Pusher's own limit of events per batch request. */
export const MAX_BATCH = 10;
export const PUBLISH_TIMEOUT_MS = 2000;

export interface HttpBroadcasterOptions {
  readonly endpoint: PusherEndpoint;
  readonly credentials: PusherCredentials;
  readonly timeoutMs?: number;
  /** Milliseconds since the epoch, for auth_timestamp. */
  readonly clock?: () => number;
}

function chunks<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

function reasonOf(error: unknown): string {
  if (error instanceof Error) {
    const cause = (error as { cause?: unknown }).cause;
    return cause instanceof Error ? `${error.message} (${cause.message})` : error.message;
  }
  return String(error);
}

export function httpBroadcaster(options: HttpBroadcasterOptions): Broadcaster {
  const { endpoint, credentials } = options;
  const origin = `${endpoint.scheme}://${endpoint.host}:${endpoint.port}`;
  const path = `/apps/${credentials.appId}/batch_events`;
  const timeoutMs = options.timeoutMs ?? PUBLISH_TIMEOUT_MS;
  const clock = options.clock ?? Date.now;

  const post = async (batch: readonly BroadcastEvent[], signal: AbortSignal): Promise<void> => {
    const body = JSON.stringify({
      batch: batch.map((e) => ({ channel: e.channel, name: e.name, data: e.data })),
    });
    const query = signedQuery(credentials, 'POST', path, body, Math.floor(clock() / 1000));
    const response = await fetch(`${origin}${path}?${query}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
      signal,
    });
    const text = await response.text();
    if (!response.ok)
      throw new Error(`${origin} answered ${response.status}: ${text.slice(0, 200)}`);
  };

  return {
    async publish(events) {
      if (events.length === 0) return;
      const signal = AbortSignal.timeout(timeoutMs);
      try {
        await Promise.all(chunks(events, MAX_BATCH).map((batch) => post(batch, signal)));
      } catch (error) {
        const reason = signal.aborted ? `no answer within ${timeoutMs} ms` : reasonOf(error);
        throw new Error(`Publishing to the Pusher server at ${origin} failed: ${reason}`, {
          cause: error,
        });
      }
    },
  };
}
