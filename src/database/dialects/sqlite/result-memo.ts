// Exact result memos on SQLite (statement-runner `MemoScope`): a memoised answer is reused only while
// the database still holds what it was computed from, so it is always what the query would
// return now. Two kinds:
// - `true` (a list's total): valid until any commit. `PRAGMA data_version` on the read-only
//   connection moves on every commit of another connection, our writer's included.
// - `{tables}` (the token check): valid until a commit that may change one of those tables.
//   Our own writes are seen statement by statement on the write connection (the tables they
//   write, and what those writes can cascade into); another process's commits move `PRAGMA
//   data_version` on the write connection, which does not move for its own commits.
import type BetterSqlite3 from 'better-sqlite3';
import type { MemoScope } from '../../statement-runner.js';

type Rows = Array<Record<string, unknown>>;

const MEMO_LIMIT = 500;

// Transaction control changes no table; sqlite3_stmt_readonly already says so for a read.
const TRANSACTION_CONTROL = /^\s*(begin|commit|end|rollback|savepoint|release)\b/i;
// The one table an INSERT, REPLACE, UPDATE or DELETE names (Kysely quotes it). A name with a
// schema ("main"."users") does not match, and so counts as "any".
const WRITE_TARGET =
  /^\s*(?:insert(?:\s+or\s+\w+)?\s+into|replace\s+into|update(?:\s+or\s+\w+)?|delete\s+from)\s+"?(\w+)"?(?=[\s(]|$)/i;

/** The tables a statement may write: [] for none, null for "any" (DDL, a PRAGMA, a CTE...). */
export function writtenTables(statement: BetterSqlite3.Statement): readonly string[] | null {
  if (statement.readonly || TRANSACTION_CONTROL.test(statement.source)) return [];
  const target = WRITE_TARGET.exec(statement.source);
  return target ? [target[1]!.toLowerCase()] : null;
}

// A foreign key with one of these actions lets a write to the parent change the child.
const CHANGES_CHILD = new Set(['CASCADE', 'SET NULL', 'SET DEFAULT']);

/**
 * The write connection's own writes, by table. A write is known when its statement runs; it is
 * known committed (or rolled back) once no transaction is open on that connection.
 */
export class WriteLog {
  private readonly pending = new Set<string>();
  private pendingAny = false;
  /** Bumped by each settle that had writes; per table, the epoch of its last change. */
  private epoch = 0;
  private readonly changedAt = new Map<string, number>();
  private anyChangedAt = 0;

  constructor(private readonly writer: BetterSqlite3.Database) {}

  noteWrite(tables: readonly string[] | null): void {
    if (tables === null) this.pendingAny = true;
    else for (const table of tables) this.pending.add(table);
  }

  /** Whether writes not yet settled may have changed one of `tables`. */
  private touches(tables: ReadonlySet<string>): boolean {
    if (this.pendingAny) return true;
    for (const table of this.pending) if (tables.has(table)) return true;
    return false;
  }

  /**
   * The epoch since which `tables` are unchanged by this connection, or null while a transaction
   * that wrote one of them may still commit (answer without the memo then).
   */
  unchangedSince(tables: ReadonlySet<string>): number | null {
    if (this.pending.size > 0 || this.pendingAny) {
      if (this.writer.inTransaction) {
        if (this.touches(tables)) return null;
      } else {
        this.epoch += 1;
        for (const table of this.pending) this.changedAt.set(table, this.epoch);
        if (this.pendingAny) this.anyChangedAt = this.epoch;
        this.pending.clear();
        this.pendingAny = false;
      }
    }
    let since = this.anyChangedAt;
    for (const table of tables) since = Math.max(since, this.changedAt.get(table) ?? 0);
    return since;
  }

  /** `tables` and every table whose writes can change them through a foreign key action. */
  reach(tables: readonly string[]): Set<string> {
    // A trigger could write anything: then every write counts.
    const triggers = this.writer
      .prepare("SELECT count(*) FROM sqlite_schema WHERE type = 'trigger'")
      .pluck()
      .get() as number;
    if (triggers > 0)
      return new Set(
        this.writer
          .prepare("SELECT name FROM sqlite_schema WHERE type = 'table'")
          .pluck()
          .all() as string[],
      );
    const reach = new Set(tables.map((t) => t.toLowerCase()));
    const foreignKeys = this.writer.prepare(
      'SELECT "table", on_update, on_delete FROM pragma_foreign_key_list(?)',
    );
    for (const child of reach) {
      for (const key of foreignKeys.all(child) as Array<{
        table: string;
        on_update: string;
        on_delete: string;
      }>) {
        if (CHANGES_CHILD.has(key.on_delete) || CHANGES_CHILD.has(key.on_update))
          reach.add(key.table.toLowerCase());
      }
    }
    return reach;
  }

  /** The epoch of the last settle that changed the schema (or anything unknown). */
  get lastAnyChange(): number {
    return this.anyChangedAt;
  }
}

interface Store {
  readonly rows: Map<string, Rows>;
  /** `true` memos: the reader's data_version; table memos: the writer's. */
  version: unknown;
  /** Table memos: the tables whose changes clear it, and the last change of those it has seen. */
  reach?: Set<string>;
  reachAt?: number;
  epoch?: number;
}

/**
 * The memo of a connection pair. `counted` counts a hit as the one statement it ran (the
 * version check), so statement counts stay fixed whether the memo answers or not.
 */
export function resultMemo(
  reader: BetterSqlite3.Database,
  writer: BetterSqlite3.Database,
  log: WriteLog,
  counted: () => void,
) {
  const readerVersion = reader.prepare('PRAGMA data_version').pluck();
  const writerVersion = writer.prepare('PRAGMA data_version').pluck();
  const stores = new Map<string, Store>();

  const storeOf = (scope: MemoScope): Store | null => {
    const name = scope === true ? '' : scope.tables.join(',');
    let store = stores.get(name);
    if (!store) stores.set(name, (store = { rows: new Map(), version: undefined }));
    if (scope === true) {
      const now = readerVersion.get();
      if (now !== store.version) {
        store.rows.clear();
        store.version = now;
      }
      return store;
    }
    if (!store.reach || store.reachAt !== log.lastAnyChange) {
      store.reach = log.reach(scope.tables);
      store.reachAt = log.lastAnyChange;
    }
    const since = log.unchangedSince(store.reach);
    if (since === null) return null;
    // Read on the write connection even inside one of its transactions: those begin IMMEDIATE,
    // holding the write lock, so no other connection commits meanwhile.
    const now = writerVersion.get();
    if (now !== store.version || store.epoch === undefined || since > store.epoch) {
      store.rows.clear();
      store.version = now;
      store.epoch = since;
    }
    return store;
  };

  return (
    sqlText: string,
    parameters: readonly unknown[],
    scope: MemoScope,
    run: () => Rows,
  ): Rows => {
    const store = storeOf(scope);
    if (!store) return run();
    const key = `${sqlText}\u0000${JSON.stringify(parameters)}`;
    let rows = store.rows.get(key);
    if (rows) counted();
    else {
      if (store.rows.size >= MEMO_LIMIT) store.rows.clear();
      rows = run();
      store.rows.set(key, rows);
    }
    return rows;
  };
}
