// GET /app/realtime: where the page's socket connects and which channels it may authorize
// (DESIGN.md 3.6, 3.9). Read once per signed-in user and shared by the bell and the screens
// that follow a resource. Here, not in realtime.ts: that one is loaded only when real time is on.
import { get } from './api.js';
import { REALTIME } from './endpoints.js';

export interface RealtimeSettings {
  readonly enabled: boolean;
  readonly key: string | null;
  readonly cluster: string | null;
  readonly host: string | null;
  readonly port: number | null;
  readonly path: string | null;
  readonly force_tls: boolean;
  readonly auth_endpoint: string | null;
  readonly channel: string | null;
  /** Where `private-resource.<resource>` is authorized; null (or absent): not offered. */
  readonly resource_auth_endpoint?: string | null;
}

let read: { readonly userId: number; readonly settings: Promise<RealtimeSettings> } | null = null;

export function realtimeSettings(userId: number): Promise<RealtimeSettings> {
  if (read?.userId !== userId) {
    const settings = get<RealtimeSettings>(REALTIME);
    read = { userId, settings };
    // A failed read is not kept: the next screen asks again.
    settings.catch(() => {
      if (read?.settings === settings) read = null;
    });
  }
  return read.settings;
}
