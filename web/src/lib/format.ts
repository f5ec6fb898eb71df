// Values as a person reads them: dates in the browser's locale and time zone (Intl), counts and
// flags plainly.
const dateTime = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });

export function formatDate(value: unknown): string {
  if (typeof value !== 'string' || value === '') return '';
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? value : dateTime.format(date);
}

/** The ISO-8601 text of a date, for a <time dateTime>. */
export function isoOf(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

const relative = new Intl.RelativeTimeFormat(undefined, { numeric: 'auto' });
const UNITS: [Intl.RelativeTimeFormatUnit, number][] = [
  ['year', 365 * 86400],
  ['month', 30 * 86400],
  ['day', 86400],
  ['hour', 3600],
  ['minute', 60],
];

/** "5 minutes ago", for the notification list. */
export function formatAgo(value: string, now = Date.now()): string {
  const seconds = (new Date(value).getTime() - now) / 1000;
  for (const [unit, size] of UNITS)
    if (Math.abs(seconds) >= size) return relative.format(Math.round(seconds / size), unit);
  return relative.format(0, 'minute');
}
