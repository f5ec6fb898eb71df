// A create with an Idempotency-Key: claim the key, create with the answer stored in the same
// transaction, or say what the key already holds (key-store.ts describes the states).
import { errors } from '../../errors.js';
import { create } from '../actions/create.js';
import type { TaggedRecord } from '../conditional/entity-tag.js';
import { adapterFor, connectionsOf, type EngineContext } from '../context.js';
import type { Resource } from '../definition/define-resource.js';
import { requestFingerprint } from './idempotency-key.js';
import {
  claimKey,
  type KeyRequest,
  releaseKey,
  type StoredAnswer,
  storeAnswer,
} from './key-store.js';

export type IdempotentOutcome =
  | { readonly replayed: false; readonly answer: TaggedRecord }
  | { readonly replayed: true; readonly answer: StoredAnswer };

export interface IdempotentCreate {
  readonly key: string;
  /** The collection path the create was sent to: part of what a retry must repeat. */
  readonly route: string;
  readonly ttlMs: number;
}

export async function idempotentCreate(
  resource: Resource,
  context: EngineContext,
  body: unknown,
  options: IdempotentCreate,
): Promise<IdempotentOutcome> {
  const { storage } = resource.entity;
  // The keys live beside the records, so the answer commits in the record's transaction.
  const db = connectionsOf(context)[storage];
  const request: KeyRequest = {
    caller: context.caller ?? 'direct',
    key: options.key,
    fingerprint: requestFingerprint(options.route, body),
  };
  const outcome = await claimKey(db, adapterFor(context, storage), request, options.ttlMs);
  switch (outcome.kind) {
    case 'answered':
      return { replayed: true, answer: outcome.answer };
    case 'running':
      throw errors.idempotencyKeyInUse();
    case 'mismatch':
      throw errors.validation({
        'Idempotency-Key': ['This Idempotency-Key was already used with another request body.'],
      });
  }
  try {
    const answer = await create(resource, context, body, {
      beforeCommit: (connections, created) =>
        storeAnswer(connections[storage], request, outcome.claim, {
          status: 201,
          etag: created.etag,
          body: JSON.stringify(created.body),
        }),
    });
    return { replayed: false, answer };
  } catch (error) {
    // Nothing was created: free the key. If that fails too (the database is gone), the claim's
    // lease frees it later.
    await releaseKey(db, request, outcome.claim).catch(() => undefined);
    throw error;
  }
}
