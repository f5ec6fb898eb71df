// The WebSocket side of the soak: clients that log in as their user, connect to the embedded
// Pusher-protocol server, have their private channel authorized by POST
// /broadcasting/auth-notifications (the session's cookie and CSRF token, as a browser's
// pusher-js does) and count every SvcNotificationReceived event against what was sent.
import { createRequire } from 'node:module';
import path from 'node:path';

export class Listeners {
  constructor(root, base, key = 'svc-key') {
    this.WebSocket = createRequire(path.join(root, 'package.json'))('ws');
    this.base = base;
    this.key = key;
    this.clients = []; // {userId, socket}
    this.expected = new Map(); // title -> clients still to receive it
    this.sent = 0; // notifications accepted (201), per recipient client
    this.received = 0;
    this.unknown = 0; // events for titles never sent (or received twice)
    this.closedEarly = 0;
    this.holding = true;
  }

  /** A client for `session` ({userId, cookie, csrf}), resolved once subscribed. */
  connect(session) {
    const channel = `private-notifications.${session.userId}`;
    const wsUrl = `${this.base.replace(/^http/, 'ws')}/app/${this.key}?protocol=7&client=svc-soak&version=1`;
    return new Promise((resolve, reject) => {
      const socket = new this.WebSocket(wsUrl);
      const client = { userId: session.userId, socket };
      socket.on('message', async (raw) => {
        const frame = JSON.parse(String(raw));
        if (frame.event === 'pusher:connection_established') {
          const socketId = JSON.parse(frame.data).socket_id;
          const response = await fetch(`${this.base}/broadcasting/auth-notifications`, {
            method: 'POST',
            headers: {
              cookie: session.cookie,
              'x-csrf-token': session.csrf,
              'content-type': 'application/x-www-form-urlencoded',
            },
            body: new URLSearchParams({ socket_id: socketId, channel_name: channel }).toString(),
          });
          const body = await response.text();
          if (response.status !== 200) return reject(new Error(`channel auth: ${response.status} ${body}`));
          socket.send(JSON.stringify({ event: 'pusher:subscribe', data: { channel, auth: JSON.parse(body).auth } }));
        } else if (frame.event === 'pusher_internal:subscription_succeeded') {
          this.clients.push(client);
          resolve(client);
        } else if (frame.event === 'pusher:subscription_error' || frame.event === 'pusher:error') {
          reject(new Error(JSON.stringify(frame)));
        } else if (frame.event === 'pusher:ping') {
          socket.send('{"event":"pusher:pong","data":{}}');
        } else if (frame.event === 'SvcNotificationReceived') {
          const { title } = JSON.parse(frame.data);
          const waiting = this.expected.get(title);
          if (!waiting?.delete(client)) this.unknown += 1;
          else {
            this.received += 1;
            if (waiting.size === 0) this.expected.delete(title);
          }
        }
      });
      socket.once('error', reject);
      socket.once('close', () => {
        if (this.holding) this.closedEarly += 1;
      });
    });
  }

  /** Before a send: the clients of `userIds` must each receive `title`. */
  expect(title, userIds) {
    const clients = this.clients.filter((c) => userIds.includes(c.userId));
    this.expected.set(title, new Set(clients));
    return clients.length;
  }

  /** After a send: accepted (count it) or refused (nothing to receive). */
  settle(title, accepted, clients) {
    if (accepted) this.sent += clients;
    else this.expected.delete(title);
  }

  /** Clients still waiting for an accepted notification. */
  get missing() {
    let n = 0;
    for (const waiting of this.expected.values()) n += waiting.size;
    return n;
  }

  /** Waits up to `ms` for every accepted notification to arrive. */
  async drain(ms) {
    const until = Date.now() + ms;
    while (this.missing > 0 && Date.now() < until) await new Promise((r) => setTimeout(r, 100));
  }

  close() {
    this.holding = false;
    for (const { socket } of this.clients) socket.terminate();
  }
}
