// One client connection of the embedded Pusher server: validates each message on arrival
// (pusher-protocol.ts), answers inside the protocol, keeps the idle clock, and leaves every
// channel when the socket closes or fails. A connection that holds no private channel (nobody
// signed in behind it: svc pushes only on private channels) is closed after authTimeoutMs.
import WebSocket from 'ws';
import type { ChannelRegistry, Subscriber } from './channel-registry.js';
import {
  CHANNEL_NAME,
  type ClientMessage,
  closeReason,
  connectionEstablished,
  ErrorCode,
  isPrivateChannel,
  MAX_MESSAGE_BYTES,
  parseClientMessage,
  ping,
  pong,
  protocolError,
  subscriptionError,
  subscriptionSucceeded,
} from './pusher-protocol.js';
import { type PusherCredentials, validChannelAuth } from './pusher-signatures.js';

export const MAX_CHANNELS_PER_CONNECTION = 100;
/** Outgoing bytes a client may leave unread before it is dropped (it reconnects after a back-off). */
const MAX_BUFFERED_BYTES = 4 * 1024 * 1024;
/** How long the server waits for a pong after its own ping, at most. */
const MAX_PONG_WAIT_MS = 30_000;

export interface ConnectionOptions {
  readonly socketId: string;
  readonly credentials: Pick<PusherCredentials, 'key' | 'secret'>;
  /** Seconds of client silence before the server pings (also told to the client). */
  readonly activityTimeout: number;
  /** Milliseconds the connection may hold no private channel, from its start or its last one's end. */
  readonly authTimeoutMs: number;
  readonly registry: ChannelRegistry<PusherConnection>;
  readonly onClose: (connection: PusherConnection) => void;
}

export class PusherConnection implements Subscriber {
  readonly socketId: string;
  private idleTimer: NodeJS.Timeout | null = null;
  private authTimer: NodeJS.Timeout | null = null;
  private privateChannels = 0;
  private awaitingPong = false;
  private closed = false;

  constructor(
    private readonly socket: WebSocket,
    private readonly options: ConnectionOptions,
  ) {
    this.socketId = options.socketId;
  }

  start(): void {
    this.socket.on('message', (data, isBinary) => this.receive(data, isBinary));
    // ws answers protocol-level pings itself; both directions count as activity.
    this.socket.on('ping', () => this.touch());
    this.socket.on('pong', () => this.touch());
    this.socket.once('close', () => this.cleanUp());
    this.socket.once('error', () => {
      this.cleanUp();
      this.socket.terminate();
    });
    this.send(connectionEstablished(this.socketId, this.options.activityTimeout));
    this.armIdle(this.options.activityTimeout * 1000);
    this.armAuth();
  }

  send(frame: string): void {
    if (this.socket.readyState !== WebSocket.OPEN) return;
    if (this.socket.bufferedAmount > MAX_BUFFERED_BYTES) {
      this.close(ErrorCode.OVER_CAPACITY, 'The client does not read its messages fast enough.');
      return;
    }
    this.socket.send(frame);
  }

  /** Says why in a pusher:error, then closes with the same code. */
  close(code: number, message: string): void {
    if (this.socket.readyState !== WebSocket.OPEN) return;
    this.socket.send(protocolError(code, message));
    this.socket.close(code, closeReason(message));
  }

  /** Drops the socket without a closing handshake (shutdown of a silent peer). */
  terminate(): void {
    this.socket.terminate();
  }

  private receive(data: WebSocket.RawData, isBinary: boolean): void {
    this.touch();
    const size = Array.isArray(data)
      ? data.reduce((sum, part) => sum + part.length, 0)
      : data.byteLength;
    if (size > MAX_MESSAGE_BYTES) {
      this.send(
        protocolError(
          ErrorCode.INVALID_MESSAGE,
          `The message is larger than ${MAX_MESSAGE_BYTES} bytes.`,
        ),
      );
      return;
    }
    if (isBinary) {
      this.send(
        protocolError(
          ErrorCode.INVALID_MESSAGE,
          'Binary messages are not supported; send JSON text.',
        ),
      );
      return;
    }
    const text = Array.isArray(data)
      ? Buffer.concat(data).toString('utf8')
      : Buffer.isBuffer(data)
        ? data.toString('utf8')
        : Buffer.from(data).toString('utf8');
    this.handle(parseClientMessage(text));
  }

  private handle(message: ClientMessage): void {
    switch (message.kind) {
      case 'ping':
        return this.send(pong());
      case 'pong':
        return;
      case 'subscribe':
        return this.subscribe(message.channel, message.auth, message.channelData);
      case 'unsubscribe':
        return this.unsubscribe(message.channel);
      case 'client-event':
        return this.send(
          protocolError(
            ErrorCode.CLIENT_EVENT_REJECTED,
            'Client events are not enabled on this server.',
          ),
        );
      case 'invalid':
        return this.send(protocolError(ErrorCode.INVALID_MESSAGE, message.reason));
    }
  }

  /** A private channel's `channelData` is signed with it and kept: what the subscriber may see. */
  private subscribe(channel: string, auth: string | null, channelData: string | null): void {
    const { registry, credentials } = this.options;
    if (!CHANNEL_NAME.test(channel)) {
      return this.send(
        subscriptionError(
          channel.slice(0, 200),
          'InvalidChannel',
          'Channel names are 1 to 200 characters of A-Z, a-z, 0-9 and -_=@,.;',
          400,
        ),
      );
    }
    if (channel.startsWith('presence-') || channel.startsWith('private-encrypted-')) {
      return this.send(
        subscriptionError(
          channel,
          'UnsupportedChannel',
          'Presence and encrypted channels are not supported by this server.',
          400,
        ),
      );
    }
    if (registry.isSubscribed(this, channel)) return this.send(subscriptionSucceeded(channel));
    if (registry.channelCount(this) >= MAX_CHANNELS_PER_CONNECTION) {
      return this.send(
        subscriptionError(
          channel,
          'LimitReached',
          `A connection may subscribe to at most ${MAX_CHANNELS_PER_CONNECTION} channels.`,
          429,
        ),
      );
    }
    const isPrivate = isPrivateChannel(channel);
    const data = isPrivate ? (channelData ?? undefined) : undefined;
    if (isPrivate && !validChannelAuth(credentials, this.socketId, channel, auth, data)) {
      return this.send(
        subscriptionError(
          channel,
          'AuthError',
          `Invalid signature: the auth does not match socket ${this.socketId} and channel ${channel}.`,
          401,
        ),
      );
    }
    registry.subscribe(this, channel, data);
    if (isPrivate) this.privateChannels += 1;
    this.clearAuth();
    this.send(subscriptionSucceeded(channel));
  }

  private unsubscribe(channel: string): void {
    const { registry } = this.options;
    if (!registry.isSubscribed(this, channel)) return;
    registry.unsubscribe(this, channel);
    if (isPrivateChannel(channel)) this.privateChannels -= 1;
    this.armAuth();
  }

  // ---- auth clock: no private channel for authTimeoutMs -> close 4009 (pusher-js stops) ----

  private armAuth(): void {
    if (this.privateChannels > 0 || this.authTimer) return;
    this.authTimer = setTimeout(
      () =>
        this.close(
          ErrorCode.UNAUTHORIZED_TIMEOUT,
          `No private channel subscribed within ${this.options.authTimeoutMs} ms.`,
        ),
      this.options.authTimeoutMs,
    );
    this.authTimer.unref();
  }

  private clearAuth(): void {
    if (this.privateChannels === 0 || !this.authTimer) return;
    clearTimeout(this.authTimer);
    this.authTimer = null;
  }

  // ---- idle clock: silence for activity_timeout -> ping; no answer in time -> close 4201 ----

  private armIdle(ms: number): void {
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.idleTimer = setTimeout(() => this.onIdle(), ms);
    this.idleTimer.unref();
  }

  private touch(): void {
    if (this.awaitingPong) {
      this.awaitingPong = false;
      this.armIdle(this.options.activityTimeout * 1000);
    } else {
      this.idleTimer?.refresh();
    }
  }

  private onIdle(): void {
    if (this.awaitingPong) {
      this.close(ErrorCode.PONG_NOT_RECEIVED, 'Pong reply not received in time.');
      return;
    }
    this.awaitingPong = true;
    this.send(ping());
    this.armIdle(Math.min(MAX_PONG_WAIT_MS, this.options.activityTimeout * 1000));
  }

  private cleanUp(): void {
    if (this.closed) return;
    this.closed = true;
    if (this.idleTimer) clearTimeout(this.idleTimer);
    if (this.authTimer) clearTimeout(this.authTimer);
    this.idleTimer = null;
    this.authTimer = null;
    this.options.registry.remove(this);
    this.options.onClose(this);
  }
}
