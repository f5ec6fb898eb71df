// The databases one request works with: system tables, and the data tables of its unit.
// Inside a write transaction both point at the transaction when they are the same database,
// so a read never waits for a connection the transaction holds.
import type { Db } from '../database/db.js';
import type { Storage } from './entity.js';

export type Connections = Readonly<Record<Storage, Db>>;
