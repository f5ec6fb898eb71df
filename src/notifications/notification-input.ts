// The sending inputs of SPEC.md 6 (DESIGN.md 3.6 for the wire names), validated with the
// engine's Laravel-worded validator, then normalised into what is stored: one recipient list
// without repeats, the sender, the type, `data` (display fields plus extras) and the action.

import { type Lookup, type ValidationUnit, validateAll } from '../engine/validation/validator.js';
import type { ErrorBag } from '../errors.js';
import { errors } from '../errors.js';
import { parseRules, type RuleSet } from '../model/rules.js';
import {
  LEVELS,
  type Level,
  type NotificationAction,
  type NotificationData,
} from './notification-record.js';

/** A user id, its text form, or a user record (anything with an `id`). */
export type Recipient = number | string | { readonly id: number | string };

export type ActionInput =
  | {
      readonly kind: 'go';
      readonly screen: string;
      readonly method?: string | null;
      readonly parameters?: Record<string, unknown> | null;
      readonly label?: string | null;
    }
  | { readonly kind: 'navigate'; readonly url: string; readonly label?: string | null }
  | { readonly kind: 'url'; readonly url: string; readonly label?: string | null };

export interface NotificationInput {
  readonly to: Recipient | readonly Recipient[];
  readonly title: string;
  readonly message: string;
  readonly icon?: string | null;
  readonly level?: Level | null;
  /** The class name of a typed notification; default `generic`. */
  readonly type?: string | null;
  /** The sender; default: the acting (session) user, if any. */
  readonly from?: Recipient | null;
  /** Free extra keys stored in `data` beside the display fields. */
  readonly data?: Record<string, unknown> | null;
  readonly action?: ActionInput | null;
}

export interface PreparedNotification {
  readonly recipients: readonly number[];
  readonly senderId: number | null;
  readonly type: string;
  readonly data: NotificationData;
  readonly action: NotificationAction | null;
}

export const MAX_RECIPIENTS = 1000;
export const DEFAULT_ICON = 'bell';
/** What the event may carry beside id, created_at and unread_count within Pusher's 10 KB. */
export const MAX_ENCODED_BYTES = 9 * 1024;
const RESERVED_DATA_KEYS = ['title', 'message', 'icon', 'level'];

const TOP_RULES: RuleSet = {
  title: ['required', 'string', 'max:255'],
  message: ['required', 'string', 'max:2000'],
  icon: ['nullable', 'string', 'max:100'],
  level: ['nullable', `in:${LEVELS.join(',')}`],
  type: ['nullable', 'string', 'max:255'],
  data: ['nullable', 'array'],
  action: ['nullable', 'array'],
  from: ['nullable', 'integer', 'exists:users,id'],
};
const RECIPIENT_RULES = ['required', 'integer', 'exists:users,id'];
const LABEL = ['nullable', 'string', 'max:255'];
const ACTION_RULES: Record<string, RuleSet> = {
  go: {
    screen: ['required', 'string', 'max:255'],
    method: ['nullable', 'string', 'max:255'],
    parameters: ['nullable', 'array'],
    label: LABEL,
  },
  navigate: { url: ['required', 'string', 'max:2048'], label: LABEL },
  url: { url: ['required', 'string', 'max:2048'], label: LABEL },
};
const parsedTop = parseRules(TOP_RULES);
const parsedActions = Object.fromEntries(
  Object.entries(ACTION_RULES).map(([kind, rules]) => [
    kind,
    parseRules({ kind: ['required', 'in:go,navigate,url'], ...rules }),
  ]),
);
const parsedKindOnly = parseRules({ kind: ['required', 'in:go,navigate,url'] });

function plainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** A user record stands for its id. */
function idOf(value: unknown): unknown {
  return plainObject(value) && 'id' in value ? value.id : value;
}

const text = (value: unknown): string | null =>
  typeof value === 'string' && value.trim() !== '' ? value : null;

/**
 * How deep `data` and `action.parameters` may nest (an object or array holding only scalars is
 * 1): MariaDB's JSON check refuses documents 32 levels deep, and the stored document adds one.
 */
export const MAX_DATA_DEPTH = 16;

/** Whether arrays and objects in `value` nest deeper than `limit` (the body is at most 64 deep). */
function nestsDeeper(value: unknown, limit: number): boolean {
  if (value === null || typeof value !== 'object') return false;
  if (limit === 0) return true;
  return Object.values(value).some((item) => nestsDeeper(item, limit - 1));
}

const IN_APP_BASE = new URL('http://in-app.invalid/');

/**
 * Whether a browser reads `path` as an address of the page's own origin, as it parses a link:
 * `//host`, `/\\host` and `/<TAB>/host` all name another host (a tab or newline is dropped).
 */
function inApp(path: string): boolean {
  return (
    URL.canParse(path, IN_APP_BASE.href) && new URL(path, IN_APP_BASE).origin === IN_APP_BASE.origin
  );
}

function add(bag: ErrorBag, key: string, message: string): void {
  (bag[key] ??= []).push(message);
}

/** Checks the validator's rule language cannot say: object shapes, reserved keys, URL forms. */
function shapeErrors(fields: Record<string, unknown>, bag: ErrorBag): void {
  const { data, action } = fields;
  if (Array.isArray(data) && data.length > 0) add(bag, 'data', 'The data field must be an object.');
  if (nestsDeeper(data, MAX_DATA_DEPTH))
    add(bag, 'data', `The data field must not be nested deeper than ${MAX_DATA_DEPTH} levels.`);
  if (plainObject(action) && nestsDeeper(action.parameters, MAX_DATA_DEPTH))
    add(
      bag,
      'action.parameters',
      `The action.parameters field must not be nested deeper than ${MAX_DATA_DEPTH} levels.`,
    );
  if (plainObject(data)) {
    for (const key of RESERVED_DATA_KEYS)
      if (Object.hasOwn(data, key)) add(bag, `data.${key}`, `The data.${key} field is prohibited.`);
  }
  if (Array.isArray(action) && action.length > 0)
    add(bag, 'action', 'The action field must be an object.');
  if (!plainObject(action) || bag['action.url']) return;
  const url = text(action.url);
  if (action.kind === 'navigate' && url !== null) {
    if (!url.startsWith('/'))
      add(bag, 'action.url', 'The action.url field must start with one of the following: /.');
    else if (!inApp(url)) add(bag, 'action.url', 'The action.url field format is invalid.');
  }
  if (action.kind === 'url' && url !== null) {
    // An external link opened in a new tab: only web URLs (no javascript:, data:, ...).
    if (!URL.canParse(url)) add(bag, 'action.url', 'The action.url field must be a valid URL.');
    else if (!/^https?:$/.test(new URL(url).protocol))
      add(
        bag,
        'action.url',
        'The action.url field must start with one of the following: http://, https://.',
      );
  }
  const parameters = action.parameters;
  if (action.kind === 'go' && Array.isArray(parameters) && parameters.length > 0)
    add(bag, 'action.parameters', 'The action.parameters field must be an object.');
}

function normalisedAction(action: unknown): NotificationAction | null {
  if (!plainObject(action) || Object.keys(action).length === 0) return null;
  const label = text(action.label);
  if (action.kind === 'go') {
    const parameters = plainObject(action.parameters) ? action.parameters : {};
    return {
      kind: 'go',
      screen: String(action.screen),
      method: text(action.method),
      parameters,
      label,
    };
  }
  return { kind: action.kind === 'url' ? 'url' : 'navigate', url: String(action.url), label };
}

/** Validates `input` (any JSON) and returns what to store; throws the catalog's 422. */
export async function prepareNotification(
  input: unknown,
  defaultSenderId: number | null,
  lookup: Lookup,
): Promise<PreparedNotification> {
  const fields: Record<string, unknown> = plainObject(input) ? { ...input } : {};
  const to = Array.isArray(fields.to) ? (fields.to as unknown[]).map(idOf) : idOf(fields.to);
  fields.from = fields.from === undefined ? defaultSenderId : idOf(fields.from);

  const units: ValidationUnit[] = [
    {
      data: { to },
      rules: parseRules({
        to: Array.isArray(to) ? ['required', 'array', `max:${MAX_RECIPIENTS}`] : RECIPIENT_RULES,
      }),
    },
    { data: fields, rules: parsedTop },
  ];
  if (Array.isArray(to) && to.length <= MAX_RECIPIENTS) {
    const indexes = to.map((_, i) => String(i));
    units.push({
      data: Object.fromEntries(to.map((v, i) => [String(i), v])),
      rules: parseRules(Object.fromEntries(indexes.map((i) => [i, RECIPIENT_RULES]))),
      prefix: 'to.',
    });
  }
  if (plainObject(fields.action) && Object.keys(fields.action).length > 0) {
    const kind = fields.action.kind;
    const rules =
      typeof kind === 'string' ? (parsedActions[kind] ?? parsedKindOnly) : parsedKindOnly;
    units.push({ data: fields.action, rules, prefix: 'action.' });
  }
  const bag = await validateAll(units, lookup);
  shapeErrors(fields, bag);

  const level = (text(fields.level) ?? 'info') as Level;
  const extra = plainObject(fields.data) ? fields.data : {};
  const data: NotificationData = {
    title: String(fields.title),
    message: String(fields.message),
    icon: text(fields.icon) ?? DEFAULT_ICON,
    level,
    ...extra,
  };
  const action = normalisedAction(fields.action);
  if (Object.keys(bag).length === 0) {
    const encoded = JSON.stringify({
      title: data.title,
      message: data.message,
      icon: data.icon,
      level,
      action,
    });
    if (Buffer.byteLength(encoded, 'utf8') > MAX_ENCODED_BYTES) {
      add(
        bag,
        'notification',
        `The notification must not be larger than ${MAX_ENCODED_BYTES} bytes once encoded (title, message, icon, level and action).`,
      );
    }
  }
  if (Object.keys(bag).length > 0) throw errors.validation(bag);

  const recipients = [...new Set((Array.isArray(to) ? to : [to]).map(Number))];
  const sender = fields.from;
  return {
    recipients,
    senderId: sender === null || sender === undefined || sender === '' ? null : Number(sender),
    type: text(fields.type) ?? 'generic',
    data,
    action,
  };
}
