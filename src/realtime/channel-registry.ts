// Who listens where: channel -> subscribers (with the signed channel data each subscribed with),
// and each subscriber's own channels, so a closing or failing connection leaves every channel in
// one pass and an empty channel is forgotten.
export interface Subscriber {
  readonly socketId: string;
  /** Sends one encoded frame; a closed socket ignores it. */
  send(frame: string): void;
}

export class ChannelRegistry<S extends Subscriber = Subscriber> {
  /** Channel -> subscriber -> its channel data (undefined when it subscribed with none). */
  private readonly channels = new Map<string, Map<S, string | undefined>>();
  private readonly memberships = new Map<S, Set<string>>();

  subscribe(subscriber: S, channel: string, channelData?: string): void {
    let members = this.channels.get(channel);
    if (!members) this.channels.set(channel, (members = new Map()));
    members.set(subscriber, channelData);
    let own = this.memberships.get(subscriber);
    if (!own) this.memberships.set(subscriber, (own = new Set()));
    own.add(channel);
  }

  unsubscribe(subscriber: S, channel: string): void {
    const members = this.channels.get(channel);
    members?.delete(subscriber);
    if (members?.size === 0) this.channels.delete(channel);
    const own = this.memberships.get(subscriber);
    own?.delete(channel);
    if (own?.size === 0) this.memberships.delete(subscriber);
  }

  /** Leaves every channel (on close and on error). */
  remove(subscriber: S): void {
    for (const channel of this.memberships.get(subscriber) ?? []) {
      const members = this.channels.get(channel);
      members?.delete(subscriber);
      if (members?.size === 0) this.channels.delete(channel);
    }
    this.memberships.delete(subscriber);
  }

  isSubscribed(subscriber: S, channel: string): boolean {
    return this.memberships.get(subscriber)?.has(channel) ?? false;
  }

  channelCount(subscriber: S): number {
    return this.memberships.get(subscriber)?.size ?? 0;
  }

  /** Sends the frame to every subscriber of the channel but `exceptSocketId`; returns how many. */
  broadcast(channel: string, frame: string, exceptSocketId?: string): number {
    let sent = 0;
    for (const subscriber of this.channels.get(channel)?.keys() ?? []) {
      if (subscriber.socketId === exceptSocketId) continue;
      subscriber.send(frame);
      sent += 1;
    }
    return sent;
  }

  /** Sends the frame to the subscribers whose channel data `accepts`; returns how many. */
  broadcastWhere(
    channel: string,
    frame: string,
    accepts: (channelData: string | undefined) => boolean,
  ): number {
    let sent = 0;
    for (const [subscriber, data] of this.channels.get(channel) ?? []) {
      if (!accepts(data)) continue;
      subscriber.send(frame);
      sent += 1;
    }
    return sent;
  }

  /** Whether the channel has a subscriber. */
  has(channel: string): boolean {
    return this.channels.has(channel);
  }

  /** Whether some channel whose name starts with `prefix` has a subscriber. */
  hasAnyStartingWith(prefix: string): boolean {
    for (const channel of this.channels.keys()) if (channel.startsWith(prefix)) return true;
    return false;
  }

  /** Channels with at least one subscriber. */
  get size(): number {
    return this.channels.size;
  }
}
