// The embedded Pusher-protocol server (DESIGN.md 3.5): WebSocket upgrades at /app/{key} on the
// service's own HTTP server, one PusherConnection per socket, fan-out through the channel
// registry. It is also the embedded Broadcaster. Closing it says goodbye to every client
// (pusher:error 4200, "reconnect") so the HTTP server can close. The sockets it holds are
// bounded per client address and in total (each is a file descriptor the HTTP side needs too):
// an upgrade past either bound is refused with a JSON answer before the handshake.
import { randomInt } from 'node:crypto';
import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer } from 'ws';
import { errors, type HttpError } from '../errors.js';
import { rawAnswer } from '../kernel/raw-answer.js';
import type { BroadcastEvent, Broadcaster } from './broadcaster.js';
import { ChannelRegistry } from './channel-registry.js';
import { PusherConnection } from './pusher-connection.js';
import {
  channelEvent,
  closeReason,
  ErrorCode,
  MAX_MESSAGE_BYTES,
  PROTOCOL_VERSION,
  protocolError,
} from './pusher-protocol.js';
import type { PusherCredentials } from './pusher-signatures.js';
import type { ScopedDelivery } from './scoped-channels.js';

export interface PusherServerOptions {
  readonly credentials: Pick<PusherCredentials, 'key' | 'secret'>;
  /** Seconds; see PusherConnection. */
  readonly activityTimeout: number;
  /** Milliseconds a connection may hold no private channel; see PusherConnection. */
  readonly authTimeoutMs: number;
  /** Sockets held at most, in total and per client address (REALTIME_MAX_CONNECTIONS*). */
  readonly maxConnections: number;
  readonly maxConnectionsPerAddress: number;
  readonly clientAddress: (request: IncomingMessage) => string;
}

/** How long clients get to finish the closing handshake before their sockets are dropped. */
const CLOSE_GRACE_MS = 1000;
// Frames above the protocol's own limit are answered with a pusher:error; far bigger ones
// (a misbehaving client) make ws close the socket with 1009 before buffering them.
const HARD_FRAME_LIMIT = 4 * MAX_MESSAGE_BYTES;

/** Answers and drops the socket: a refused client that never closes its side holds no descriptor. */
function rejectUpgrade(socket: Duplex, error: HttpError): void {
  socket.once('finish', () => socket.destroy());
  socket.end(rawAnswer(error));
}

export class PusherServer implements Broadcaster, ScopedDelivery {
  readonly registry = new ChannelRegistry<PusherConnection>();
  private readonly connections = new Map<string, PusherConnection>();
  /** Sockets held per client address, from the upgrade until the socket closes. */
  private readonly held = new Map<string, number>();
  private heldTotal = 0;
  private readonly wss = new WebSocketServer({
    noServer: true,
    maxPayload: HARD_FRAME_LIMIT,
    perMessageDeflate: false,
    clientTracking: false,
  });
  private closing = false;
  /** Resolves close() once the last client has gone. */
  private drained: (() => void) | null = null;

  constructor(private readonly options: PusherServerOptions) {}

  get connectionCount(): number {
    return this.connections.size;
  }

  /** Takes over WebSocket upgrades of `server`; other upgrade paths are refused with 404. */
  attach(server: Server): void {
    server.on('upgrade', (request: IncomingMessage, socket: Duplex, head: Buffer) =>
      this.upgrade(request, socket, head),
    );
  }

  /** Sends an event to a channel's subscribers; returns how many received it. */
  broadcast(channel: string, event: string, data: string, exceptSocketId?: string): number {
    return this.registry.broadcast(channel, channelEvent(channel, event, data), exceptSocketId);
  }

  /** The frame is encoded once, whatever the number of subscribers. */
  deliver(
    channel: string,
    event: string,
    data: string,
    accepts: (channelData: string | undefined) => boolean,
  ): number {
    return this.registry.broadcastWhere(channel, channelEvent(channel, event, data), accepts);
  }

  hasSubscribers(channel: string): boolean {
    return this.registry.has(channel);
  }

  hasSubscribersStartingWith(prefix: string): boolean {
    return this.registry.hasAnyStartingWith(prefix);
  }

  async publish(events: readonly BroadcastEvent[]): Promise<void> {
    for (const event of events)
      this.broadcast(event.channel, event.name, event.data, event.exceptSocketId);
  }

  /**
   * Why 4200 ("reconnect immediately" in the Pusher protocol's close ranges): a shutdown is the
   * server's doing, not the client's, and another instance or the restarted one is usually there
   * at once. pusher-js retries at once on 4200-4299, after 1 s on 4100-4199 and on 1001
   * (going away), and gives up for good on 4000-4099; a refused retry falls back to its own
   * back-off. https://pusher.com/docs/channels/library_auth_reference/pusher-websockets-protocol/
   */
  async close(): Promise<void> {
    this.closing = true;
    if (this.connections.size === 0) return;
    let grace: NodeJS.Timeout | undefined;
    const drained = new Promise<void>((resolve) => {
      this.drained = resolve;
      // Clients that do not finish the closing handshake in time are dropped.
      grace = setTimeout(() => {
        for (const connection of this.connections.values()) connection.terminate();
        resolve();
      }, CLOSE_GRACE_MS);
    });
    for (const connection of [...this.connections.values()])
      connection.close(ErrorCode.RECONNECT, 'The server is shutting down; reconnect shortly.');
    await drained;
    clearTimeout(grace);
  }

  private forget(connection: PusherConnection): void {
    this.connections.delete(connection.socketId);
    if (this.connections.size === 0) this.drained?.();
  }

  private upgrade(request: IncomingMessage, socket: Duplex, head: Buffer): void {
    // A throw or an unhandled socket error here would end the process.
    socket.on('error', () => socket.destroy());
    let url: URL;
    let key: string;
    try {
      url = new URL(request.url ?? '/', 'http://localhost');
      const match = /^\/app\/([^/]+)\/?$/.exec(url.pathname);
      if (!match) return rejectUpgrade(socket, errors.routeNotFound());
      key = decodeURIComponent(match[1] ?? '');
    } catch {
      return rejectUpgrade(socket, errors.badRequest('The request path is not a valid URL.'));
    }
    if (this.closing) return rejectUpgrade(socket, errors.shuttingDown());
    const address = this.options.clientAddress(request);
    const over = this.overLimit(address);
    if (over) return rejectUpgrade(socket, over);
    this.hold(address, socket);
    const refusal = this.refusal(key, url.searchParams.get('protocol'));
    this.wss.handleUpgrade(request, socket, head, (ws) => {
      if (refusal) {
        // Said inside the protocol, so pusher-js stops retrying (4000-4099) instead of looping.
        ws.send(protocolError(refusal.code, refusal.message));
        ws.close(refusal.code, closeReason(refusal.message));
        return;
      }
      const connection = new PusherConnection(ws, {
        socketId: this.newSocketId(),
        credentials: this.options.credentials,
        activityTimeout: this.options.activityTimeout,
        authTimeoutMs: this.options.authTimeoutMs,
        registry: this.registry,
        onClose: (gone) => this.forget(gone),
      });
      this.connections.set(connection.socketId, connection);
      connection.start();
    });
  }

  private overLimit(address: string): HttpError | null {
    const { maxConnections, maxConnectionsPerAddress } = this.options;
    if ((this.held.get(address) ?? 0) >= maxConnectionsPerAddress)
      return errors.realtimeTooManyConnections(maxConnectionsPerAddress);
    if (this.heldTotal >= maxConnections) return errors.realtimeOverCapacity(maxConnections);
    return null;
  }

  /** Counts the socket against its address until it closes, however it ends. */
  private hold(address: string, socket: Duplex): void {
    this.held.set(address, (this.held.get(address) ?? 0) + 1);
    this.heldTotal += 1;
    socket.once('close', () => {
      const left = (this.held.get(address) ?? 1) - 1;
      if (left === 0) this.held.delete(address);
      else this.held.set(address, left);
      this.heldTotal -= 1;
    });
  }

  private refusal(key: string, protocol: string | null): { code: number; message: string } | null {
    if (key !== this.options.credentials.key)
      return {
        code: ErrorCode.APP_NOT_FOUND,
        message: `App key ${key.slice(0, 100)} does not exist.`,
      };
    if (protocol === null || protocol === '')
      return { code: ErrorCode.NO_VERSION, message: 'No protocol version supplied.' };
    if (!/^\d{1,4}$/.test(protocol))
      return { code: ErrorCode.INVALID_VERSION, message: 'Invalid version string format.' };
    if (Number(protocol) !== PROTOCOL_VERSION) {
      return {
        code: ErrorCode.UNSUPPORTED_VERSION,
        message: `Unsupported protocol version ${protocol}; this server speaks ${PROTOCOL_VERSION}.`,
      };
    }
    return null;
  }

  /** `<digits>.<digits>`, the form channel auth endpoints check; unique among live sockets. */
  private newSocketId(): string {
    for (;;) {
      const id = `${randomInt(1, 2 ** 47)}.${randomInt(1, 2 ** 47)}`;
      if (!this.connections.has(id)) return id;
    }
  }
}
