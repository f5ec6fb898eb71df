// What changed out of sight (rows arriving in a list, a record saved by someone else), told to
// screen-reader users without moving their focus: the app's one live region
// (components/announcer.tsx) says each text it is handed here.

export const ANNOUNCE_EVENT = 'svc:announce';

export function announce(text: string): void {
  dispatchEvent(new CustomEvent<string>(ANNOUNCE_EVENT, { detail: text }));
}
