// The events an endpoint subscribes to (DESIGN.md 3.10): `<resource>.<action>`, `<resource>.*`
// or `*`, over the resources svc declares and the actions of their changes.

export const CHANGE_ACTIONS = ['created', 'updated', 'deleted'] as const;

/** Every event name an endpoint may list, given the declared resources' names. */
export function webhookEventNames(resources: Iterable<string>): string[] {
  const names = ['*'];
  for (const resource of resources)
    names.push(`${resource}.*`, ...CHANGE_ACTIONS.map((action) => `${resource}.${action}`));
  return names;
}

/** Whether an endpoint listing `events` receives `<resource>.<action>`. */
export function subscribes(events: readonly string[], resource: string, action: string): boolean {
  return events.some(
    (event) => event === '*' || event === `${resource}.*` || event === `${resource}.${action}`,
  );
}
