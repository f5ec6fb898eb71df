// The narrow interface between real time and a feature that pushes events only to the
// subscribers allowed to see each (live/: resource changes, DESIGN.md 3.9). Real time knows no
// resource: a channel of the feature's prefix is authorized by the feature's callback, which
// answers the channel data to sign into the subscription (what it may see), and the feature
// delivers each event with a test of that signed data.
import type { FastifyRequest } from 'fastify';

/** Where clients authorize scoped channels (POST, session and CSRF). */
export const SCOPED_AUTH_ENDPOINT = '/broadcasting/auth';

export interface ScopedChannels {
  /** The channels authorized here start with it, e.g. `private-resource.`. */
  readonly prefix: string;
  /** The channel data of the request's user for `channel`, or null: refused (403). */
  channelData(request: FastifyRequest, channel: string): Promise<string | null>;
}

/** This process's sockets, as a scoped feature sees them (the embedded Pusher server). */
export interface ScopedDelivery {
  /** Whether any socket of this process holds `channel`. */
  hasSubscribers(channel: string): boolean;
  /** Whether any socket of this process holds a channel whose name starts with `prefix`. */
  hasSubscribersStartingWith(prefix: string): boolean;
  /**
   * Sends an event to the channel's subscribers whose signed channel data `accepts`; returns
   * how many received it.
   */
  deliver(
    channel: string,
    event: string,
    data: string,
    accepts: (channelData: string | undefined) => boolean,
  ): number;
}
