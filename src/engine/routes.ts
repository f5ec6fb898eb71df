// The one engine file that sees Fastify: a route declaration yields the five routes of SPEC.md
// 4.1 (GET also answers HEAD), restricted to `only`; actions not exposed are unmatched (404).
// The id is the route's last parameter, whatever its name.
// Conditional requests (ETag, If-Match, If-None-Match: conditional/) and Idempotency-Key on
// create (idempotency/) are read from the headers here and handed to the actions.

import { Readable } from 'node:stream';
import type {
  FastifyInstance,
  FastifyReply,
  FastifyRequest,
  preHandlerAsyncHookHandler,
} from 'fastify';
import { CheckMoved, type RidingCheck } from '../database/riding-check.js';
import { errors } from '../errors.js';
import type { AnswerBudget, AnswerShare } from '../support/answer-budget.js';
import { create } from './actions/create.js';
import { destroy } from './actions/delete.js';
import { type ListAnswer, listAnswer } from './actions/list.js';
import { show } from './actions/show.js';
import { update } from './actions/update.js';
import { feedQueryOf, readChanges } from './changes/change-feed.js';
import { knownSeq } from './changes/committed.js';
import type { TaggedRecord } from './conditional/entity-tag.js';
import { listTag } from './conditional/list-tag.js';
import {
  evaluate,
  type Preconditions,
  preconditionFailed,
  preconditionsOf,
  requireIfMatch,
} from './conditional/preconditions.js';
import type { EngineContext } from './context.js';
import type { Resource } from './definition/define-resource.js';
import { ACTIONS, type Action } from './definition/resource-config.js';
import { readDeleted } from './history/deleted.js';
import { historyQueryOf, readHistory } from './history/history.js';
import { restore } from './history/restore.js';
import { readIdempotencyKey } from './idempotency/idempotency-key.js';
import { idempotentCreate } from './idempotency/idempotent-create.js';
import { cutWhenStalled } from './output/answer-stall.js';
import { jsonAnswer } from './output/json-answer.js';
import { mergeInputs } from './query/input.js';
import { listLinks } from './query/links.js';

export interface ResourceRoute {
  /** The collection path, e.g. `/api/import-templates`. */
  readonly path: string;
  readonly resource: Resource;
  /** The id parameter's name; default: the singular of the last path segment, snake_cased. */
  readonly parameter?: string;
  readonly only?: readonly Action[];
  /** Middleware names for the read actions (list, show) and the write actions. */
  readonly middleware?: { readonly read?: readonly string[]; readonly write?: readonly string[] };
}

/**
 * Whether a resource's ids are integers, by its name: what changeOf needs to give a change-log
 * row's id its type, for the consumers of every resource's changes (live relay, webhooks).
 */
export function integerKeyOf(routes: readonly ResourceRoute[]): (resource: string) => boolean {
  const names = new Set(routes.filter((r) => r.resource.keyIsInteger).map((r) => r.resource.name));
  return (resource) => names.has(resource);
}

export interface RouteDependencies {
  /** The engine context of an authenticated request. */
  context(request: FastifyRequest): EngineContext;
  /** Middleware name -> preHandler (throws at boot on an unknown name). */
  middleware(spec: string): preHandlerAsyncHookHandler;
  /** Answers longer than this many characters are streamed (STREAM_ANSWERS_ABOVE); default 1 Mi. */
  readonly streamAbove?: number;
  /** IDEMPOTENCY_KEY_TTL_SECONDS: how long a create's Idempotency-Key is kept (default a day). */
  readonly idempotencyKeyTtlSeconds?: number;
  /** Signs list cursors (query/cursor.ts cursorKey of APP_SECRET); default: this process only. */
  readonly cursorKey?: Buffer;
  /** The memory list answers in flight may hold (ANSWER_MEMORY_LIMIT_MB); default: unbounded. */
  readonly answerBudget?: AnswerBudget;
  /** ANSWER_STALL_TIMEOUT_MS: a streamed answer whose client reads nothing this long is cut; default 30 s. */
  readonly answerStallTimeoutMs?: number;
}

export const DEFAULT_IDEMPOTENCY_TTL_SECONDS = 24 * 60 * 60;

/** What a route answers: a JSON value, or JSON text made already (a list page, a stored answer). */
interface Answer {
  readonly status: number;
  readonly body?: unknown;
  readonly text?: string | Readable;
  readonly headers?: Readonly<Record<string, string>>;
}

const JSON_TYPE = 'application/json; charset=utf-8';

const etagHeader = (etag: string | null) => (etag ? { etag } : undefined);

const tagged = (status: number, answer: TaggedRecord): Answer => ({
  status,
  body: answer.body,
  headers: etagHeader(answer.etag),
});

/**
 * A list page with its weak ETag (conditional/list-tag.ts): made from the JSON text it sends,
 * so the page is serialised once; 304 when If-None-Match names it. A page long enough to be
 * streamed (output/json-answer.ts) is sent before its end is known: it has no ETag. Issue 21:
 * Link (RFC 8288) to the next and previous pages by cursor, Preference-Applied (RFC 7240) when
 * a Prefer: count=... was honoured. On PostgreSQL the text and ETag made from a kept page are
 * kept with it (output/made-answers.ts) and sent again while it stays the kept page.
 */
async function listReply(
  answer: ListAnswer,
  request: FastifyRequest,
  streamAbove: number,
  share: AnswerShare | undefined,
  changesSeq: string,
): Promise<Answer> {
  const link = listLinks(request.url, answer);
  const headers: Record<string, string> = {
    'changes-seq': changesSeq,
    ...(link ? { link } : {}),
    ...(answer.preferenceApplied ? { 'preference-applied': answer.preferenceApplied } : {}),
  };
  let made = answer.made;
  if (made) share?.end();
  else {
    const text = jsonAnswer(await answer.body(), streamAbove, share);
    if (typeof text !== 'string') return { status: 200, text, headers };
    made = { text, etag: listTag(text), next: answer.next, prev: answer.prev };
    answer.keeper?.keep(made);
  }
  const { text, etag } = made;
  const outcome = evaluate(preconditionsOf(request.headers), etag, 'read');
  if (outcome === 'failed') throw preconditionFailed(etag);
  if (outcome === 'not-modified') return { status: 304, headers: { ...headers, etag } };
  return { status: 200, text, headers: { ...headers, etag } };
}

/**
 * The answer of work done on a riding check (database/riding-check.ts: the bearer token's),
 * once the check is settled: its errors come first, and the work is done again (`again`) when
 * it ran on a state that has moved since. An answer not sent is let go: a streamed one gives
 * back what it holds of the answers' memory budget when its stream closes.
 */
async function settled(check: RidingCheck, work: Promise<Answer>, again: () => Promise<Answer>) {
  const outcome = await work.then(
    (value) => ({ value }),
    (error: unknown) => ({ error }),
  );
  const letGo = () => {
    if ('value' in outcome && outcome.value.text instanceof Readable) outcome.value.text.destroy();
  };
  let stands: boolean;
  try {
    stands = await check.settle();
  } catch (error) {
    letGo();
    throw error;
  }
  if (!stands || ('error' in outcome && outcome.error instanceof CheckMoved)) {
    letGo();
    return again();
  }
  if ('error' in outcome) throw outcome.error;
  return outcome.value;
}

const WRITES: ReadonlySet<Action> = new Set(['create', 'update', 'delete']);

/**
 * `Changes-Seq` (DESIGN.md 3.9): a lower bound of the changes an answer reflects, taken before
 * its statements run, from what this process knows committed in the resource's database.
 */
function changesSeq(resource: Resource, context: EngineContext): string {
  return String(knownSeq(resource.entity.storage === 'data' ? context.data : context.system));
}

export function defaultParameter(path: string): string {
  const last = path.split('/').filter(Boolean).pop() ?? 'id';
  return last.replace(/-/g, '_').replace(/ies$/, 'y').replace(/s$/, '');
}

/** The route's last `:parameter`: where the id of show, update and delete comes from. */
function lastParameter(path: string): string {
  const names = [...path.matchAll(/:(\w+)/g)].map((m) => m[1] ?? '');
  return names[names.length - 1] ?? 'id';
}

/** Work on a request's context -> the request's handler: authorized, settled, sent. */
type Work = (context: EngineContext, request: FastifyRequest) => Promise<Answer>;

/**
 * The handler of `action`'s `work`: authorized, its check settled (settled above), its answer
 * sent, a streamed one cut when its client stalls.
 */
function answering(resource: Resource, deps: RouteDependencies, streamAbove: number) {
  const stallTimeoutMs = deps.answerStallTimeoutMs ?? 30_000;
  const authorized = async (action: Action, context: EngineContext) => {
    if (resource.authorize && !(await resource.authorize(action, context)))
      throw errors.unauthorized();
  };
  return (action: Action, work: Work) => async (request: FastifyRequest, reply: FastifyReply) => {
    const attempt = async (context: EngineContext) => {
      await authorized(action, context);
      return work(context, request);
    };
    const context = deps.context(request);
    const answer = context.check
      ? await settled(context.check, attempt(context), () => attempt(deps.context(request)))
      : await attempt(context);
    reply.code(answer.status);
    if (answer.headers) reply.headers(answer.headers);
    if (answer.text === undefined && answer.body === undefined) return reply.send();
    const text = answer.text ?? jsonAnswer(answer.body, streamAbove);
    if (text instanceof Readable)
      cutWhenStalled(text, request.raw.socket, stallTimeoutMs, () =>
        request.log.info(
          { timeoutMs: stallTimeoutMs },
          'answer cut: its client read nothing of it in time',
        ),
      );
    return reply.type(JSON_TYPE).send(text);
  };
}

/** GET of the list: its answer charged to the answers' memory budget until it is written. */
function listWork(resource: Resource, deps: RouteDependencies, streamAbove: number): Work {
  return async (c, r) => {
    const seq = changesSeq(resource, c);
    const prefer = r.headers.prefer;
    // Given back as the answer is written (output/json-answer.ts), or here if it fails first.
    const share = deps.answerBudget?.share();
    try {
      const answer = await listAnswer(resource, c, mergeInputs(r.query, r.body), {
        prefer: Array.isArray(prefer) ? prefer.join(',') : prefer,
        cursorKey: deps.cursorKey,
        share,
        keepAnswers: true,
      });
      return await listReply(answer, r, streamAbove, share, seq);
    } catch (error) {
      share?.end();
      throw error;
    }
  };
}

/** POST of a create: with an Idempotency-Key, a retry answers the first create's answer. */
function createWork(resource: Resource, route: ResourceRoute, deps: RouteDependencies): Work {
  const ttlMs = (deps.idempotencyKeyTtlSeconds ?? DEFAULT_IDEMPOTENCY_TTL_SECONDS) * 1000;
  return async (c, r) => {
    const key = readIdempotencyKey(r.headers['idempotency-key']);
    if (key === null) return tagged(201, await create(resource, c, r.body));
    const outcome = await idempotentCreate(resource, c, r.body, { key, route: route.path, ttlMs });
    if (!outcome.replayed) return tagged(201, outcome.answer);
    const { status, etag, body } = outcome.answer;
    return {
      status,
      text: body,
      headers: { 'idempotent-replayed': 'true', ...(etag ? { etag } : {}) },
    };
  };
}

/** GET of one record: 304 or 412 by If-None-Match / If-Match against its ETag. */
function showWork(resource: Resource, idOf: (request: FastifyRequest) => unknown): Work {
  return async (c, r) => {
    const seq = { 'changes-seq': changesSeq(resource, c) };
    const answer = await show(resource, c, idOf(r));
    const outcome = evaluate(preconditionsOf(r.headers), answer.etag, 'read');
    if (outcome === 'failed') throw preconditionFailed(answer.etag);
    if (outcome === 'not-modified')
      return { status: 304, headers: { ...seq, ...etagHeader(answer.etag) } };
    return { status: 200, body: answer.body, headers: { ...seq, ...etagHeader(answer.etag) } };
  };
}

export function registerResourceRoutes(
  app: FastifyInstance,
  route: ResourceRoute,
  deps: RouteDependencies,
): void {
  const { resource } = route;
  const only = new Set(route.only ?? ACTIONS);
  for (const action of only)
    if (!ACTIONS.includes(action)) throw new Error(`${route.path}: unknown action "${action}"`);
  const itemPath = `${route.path}/:${route.parameter ?? defaultParameter(route.path)}`;
  const idParameter = lastParameter(itemPath);
  const handlersFor = (action: Action) =>
    (WRITES.has(action) ? route.middleware?.write : route.middleware?.read)?.map((spec) =>
      deps.middleware(spec),
    ) ?? [];

  const streamAbove = deps.streamAbove ?? 1024 * 1024;
  const idOf = (request: FastifyRequest) => (request.params as Record<string, string>)[idParameter];
  const run = answering(resource, deps, streamAbove);
  /** The preconditions of an update or delete: 428 without If-Match where the resource requires it. */
  const writeConditions = (request: FastifyRequest): Preconditions => {
    const preconditions = preconditionsOf(request.headers);
    if (resource.requireIfMatch) requireIfMatch(preconditions);
    return preconditions;
  };

  const updateWork: Work = async (c, r) =>
    tagged(200, await update(resource, c, idOf(r), r.body, writeConditions(r)));

  const feedPath = `${route.path}/changes`;
  // History (DESIGN.md 3.11): show's abilities and scope; a restore is an update's.
  const historyPath = `${itemPath}/history`;
  const restorePath = `${historyPath}/:seq/restore`;
  const seqOf = (request: FastifyRequest) => (request.params as Record<string, string>).seq;
  const deletedPath = `${route.path}/deleted`;
  const table: Array<[Action, 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE', string, Work]> = [
    ['list', 'GET', route.path, listWork(resource, deps, streamAbove)],
    [
      // The feed (DESIGN.md 3.9): the list's abilities and scope.
      'list',
      'GET',
      feedPath,
      async (c, r) => ({
        status: 200,
        body: await readChanges(resource, c, feedQueryOf(r.query as Record<string, unknown>)),
      }),
    ],
    [
      // The deleted records (DESIGN.md 3.11): the list's abilities and scope.
      'list',
      'GET',
      deletedPath,
      async (c, r) => ({
        status: 200,
        body: await readDeleted(resource, c, historyQueryOf(r.query as Record<string, unknown>)),
      }),
    ],
    ['create', 'POST', route.path, createWork(resource, route, deps)],
    ['show', 'GET', itemPath, showWork(resource, idOf)],
    [
      'show',
      'GET',
      historyPath,
      async (c, r) => ({
        status: 200,
        body: await readHistory(
          resource,
          c,
          idOf(r),
          historyQueryOf(r.query as Record<string, unknown>),
        ),
      }),
    ],
    [
      'update',
      'POST',
      restorePath,
      async (c, r) => {
        const { status, answer } = await restore(
          resource,
          c,
          idOf(r),
          seqOf(r),
          preconditionsOf(r.headers),
        );
        return tagged(status, answer);
      },
    ],
    ['update', 'PUT', itemPath, updateWork],
    ['update', 'PATCH', itemPath, updateWork],
    [
      'delete',
      'DELETE',
      itemPath,
      async (c, r) => ({
        status: 200,
        body: await destroy(resource, c, idOf(r), writeConditions(r)),
      }),
    ],
  ];
  for (const [action, method, url, work] of table) {
    if (!only.has(action)) continue;
    app.route({
      method,
      url,
      preHandler: handlersFor(action),
      handler: run(action, work),
      // answering() settles the check the statements carry: the reads', and the writes' reloads (not
      // the feed's, the history's: the log's statements carry none; nor the restore's first reads).
      config: {
        settlesRidingCheck:
          action !== 'delete' && ![feedPath, historyPath, restorePath, deletedPath].includes(url),
      },
    });
  }
}
