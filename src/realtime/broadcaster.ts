// Where a notification's event goes: the embedded server's channels, or an external Pusher
// server's HTTP API. Senders see only this interface.
export interface BroadcastEvent {
  readonly channel: string;
  /** The event name on the wire, e.g. `SvcNotificationReceived`. */
  readonly name: string;
  /** The payload as JSON text: Pusher events carry a string that clients parse. */
  readonly data: string;
  /** A socket that must not receive it (the Pusher HTTP API's `socket_id`: the sender's own). */
  readonly exceptSocketId?: string | undefined;
}

export interface Broadcaster {
  /** Delivers the events; rejects when the push server cannot be reached in time. */
  publish(events: readonly BroadcastEvent[]): Promise<void>;
}
