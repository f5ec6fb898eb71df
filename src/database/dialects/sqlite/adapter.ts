// SQLite capabilities: LIKE is already ASCII case-insensitive, RETURNING exists (3.35+),
// timestamps are stored as ISO-8601 text so they sort as strings.
import { sql } from 'kysely';
import type { DialectAdapter, TranslatedError } from '../dialect-adapter.js';

export const sqliteAdapter: DialectAdapter = {
  name: 'sqlite',
  likeInsensitive(column, pattern, negate) {
    return negate ? sql<boolean>`${sql.ref(column)} not like ${pattern}` : sql<boolean>`${sql.ref(column)} like ${pattern}`;
  },
  async insertReturningId(db, table, values, primaryKey) {
    const row = await db.insertInto(table).values(values).returning(primaryKey).executeTakeFirstOrThrow();
    return Number(row[primaryKey]);
  },
  toTimestamp: (date) => date.toISOString(),
  translateError(error): TranslatedError | null {
    if (!(error instanceof Error) || !('code' in error)) return null;
    const code = String((error as { code: unknown }).code);
    const column = /: [\w]+\.(\w+)/.exec(error.message)?.[1] ?? null;
    if (code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY') return { kind: 'unique', column };
    if (code === 'SQLITE_CONSTRAINT_FOREIGNKEY') return { kind: 'foreign-key' };
    if (code === 'SQLITE_CONSTRAINT_NOTNULL') return { kind: 'not-null', column };
    if (code === 'SQLITE_BUSY' || code === 'SQLITE_CANTOPEN') return { kind: 'unavailable' };
    return null;
  },
};
