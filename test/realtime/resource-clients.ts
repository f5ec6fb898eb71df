// pusher-js following resource channels (DESIGN.md 3.9) as the admin front end does: authorized
// at POST /broadcasting/auth with the session, every SvcResourceChanged collected.
import type { Change } from '../../src/engine/changes/change.js';
import {
  type Pusher,
  Pusher as PusherClient,
  pusherOptions,
  type Session,
  waitFor,
} from './realtime-clients.js';

const EVENT = 'SvcResourceChanged';

/** pusher-js authorizing resource channels at POST /broadcasting/auth. */
export function resourceClient(url: string, session: Session): Pusher {
  return new PusherClient('svc-key', {
    ...pusherOptions(url, session),
    authEndpoint: `${url}/broadcasting/auth`,
  });
}

/** Subscribes to a resource channel; resolves once subscribed, with every event it receives. */
export async function follow(client: Pusher, resource: string): Promise<Change[]> {
  const channel = client.subscribe(`private-resource.${resource}`);
  const received: Change[] = [];
  channel.bind(EVENT, (change: Change) => received.push(change));
  await waitFor<void>(`the subscription to ${resource}`, (resolve, reject) => {
    channel.bind('pusher:subscription_succeeded', () => resolve());
    channel.bind('pusher:subscription_error', (error: unknown) => reject(error));
  });
  return received;
}

export async function until(what: string, test: () => boolean, timeoutMs = 6000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!test()) {
    if (Date.now() > end) throw new Error(`Timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
