// Resource channels (DESIGN.md 3.9 "Real time"): `private-resource.<resource>` carries the event
// SvcResourceChanged, one per change, to the subscribers that may see it. What a subscriber may
// see is decided when it subscribes: POST /broadcasting/auth signs it into the subscription as
// channel data (the database of its records and its unit and company conditions, as its feed's),
// so a change is matched against each socket's signed scope in memory, with no query. The
// channel data is JSON text, parsed once per distinct text.
export const RESOURCE_CHANNEL_PREFIX = 'private-resource.';
export const RESOURCE_CHANGED_EVENT = 'SvcResourceChanged';

export function resourceChannel(resource: string): string {
  return `${RESOURCE_CHANNEL_PREFIX}${resource}`;
}

/** The resource a channel name is of, or null for another channel. */
export function resourceOfChannel(channel: string): string | null {
  return channel.startsWith(RESOURCE_CHANNEL_PREFIX)
    ? channel.slice(RESOURCE_CHANNEL_PREFIX.length)
    : null;
}

/**
 * What one subscriber of a resource channel may see: changes of the database named `db` (''
 * the main one, else its DB_CONNECTIONS name: the same on every instance), of unit `unit` and
 * company `company` where these are not null.
 */
export interface ChannelScope {
  readonly db: string;
  readonly unit: number | null;
  readonly company: number | null;
}

/** The channel data of a subscription: JSON text, signed as it is written here. */
export function channelDataOf(scope: ChannelScope): string {
  return JSON.stringify({ db: scope.db, unit: scope.unit, company: scope.company });
}

// Few distinct scopes (one per database, unit and company): each text is parsed once.
const parsed = new Map<string, ChannelScope | null>();
const PARSED_MAX = 10_000;

function scopeOfData(data: string): ChannelScope | null {
  let scope = parsed.get(data);
  if (scope !== undefined) return scope;
  try {
    const value = JSON.parse(data) as Record<string, unknown>;
    const id = (v: unknown) => (v === null ? null : Number.isSafeInteger(v) ? (v as number) : NaN);
    const unit = id(value.unit);
    const company = id(value.company);
    scope =
      typeof value.db === 'string' && !Number.isNaN(unit) && !Number.isNaN(company)
        ? { db: value.db, unit, company }
        : null;
  } catch {
    scope = null;
  }
  if (parsed.size >= PARSED_MAX) parsed.clear();
  parsed.set(data, scope);
  return scope;
}

/**
 * Whether a subscription's channel data lets it see a change of `change` scope (the change's
 * database, unit and company as the log stores them). A subscription
 * without channel data (signed for no scope) sees nothing: only POST /broadcasting/auth's
 * subscriptions carry resource changes.
 */
export function sees(channelData: string | undefined, change: ChannelScope): boolean {
  if (channelData === undefined) return false;
  const scope = scopeOfData(channelData);
  return (
    scope !== null &&
    scope.db === change.db &&
    (scope.unit === null || scope.unit === change.unit) &&
    (scope.company === null || scope.company === change.company)
  );
}
