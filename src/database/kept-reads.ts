// Reads kept with the snapshot they were read in (issue 22), where the database has a memo that
// is checked inside the statement (PostgreSQL: dialects/postgres/snapshot-memo.ts). A list's page
// is sent as `select <snapshot>, <riders>, page.* from (select <snapshot>) left join lateral
// (<page> where <snapshot> <> <kept one>) as page`: the condition names only the outer row, so
// PostgreSQL makes it a one-time filter and does not run the page at all when the snapshot is
// the kept one. Then one row answers, its page columns null; an empty page answers the same way.
// What rides on that row (a total, a credential check) is read whatever the page holds. A
// total rides as `case when <snapshot> = <kept one> then null else (<count>) end`, kept under
// the count's own statement, so a count run on its own and a carried one keep it for each other.
import { type AliasedRawBuilder, type Compilable, type SelectQueryBuilder, sql } from 'kysely';
import type { Db } from './db.js';
import {
  compiledStatement,
  type KeptRows,
  param,
  type StatementKey,
  type StatementMemo,
  statementMemoOf,
} from './statement-runner.js';

// biome-ignore lint/suspicious/noExplicitAny: the kept read wraps whatever query it is handed
type AnySelect = SelectQueryBuilder<any, any, any>;
type Row = Record<string, unknown>;

/** The alias of the page's rows in the kept read: the caller orders by its columns. */
export const KEPT_ROWS = 'page_rows';
const PAGE_SNAPSHOT = '$page_snapshot';
const TOTAL_SNAPSHOT = '$total_snapshot';
const TOTAL = '$total';

/** Columns that ride on another statement (a total, a credential check), and how to read them. */
export interface Rider {
  /** Values of the columns' placeholders. */
  readonly values: Readonly<Record<string, unknown>>;
  columns(): ReadonlyArray<AliasedRawBuilder<unknown, string>>;
}

/** An exact total riding on the page's statement. */
export interface RidingTotal extends Rider {
  /** The total, from the page's rows (null for an empty page: no row carried it). */
  read(rows: readonly Row[]): number | null;
}

/** One read of a kept page: its statement's values, then what it read or what was kept. */
export interface KeptPageRead {
  readonly values: Readonly<Record<string, unknown>>;
  /**
   * The page's rows: those read, or the kept ones when the snapshot had not moved (then they
   * are `kept`, the same object each time, which answers made from them are kept by).
   */
  settle(read: Row[], isEmpty: (row: Row | undefined) => boolean): { rows: Row[]; kept: object };
}

export interface KeptReads {
  /** The page statement around `page`, with the riders' columns. */
  page(page: AnySelect, riders: readonly (Rider | null)[]): AnySelect;
  /**
   * What is kept for the page of `key` read with `values` (`riderValues`: the values that do
   * not change what the page holds).
   */
  pageRead<R>(
    key: StatementKey,
    build: () => Compilable<R>,
    values: Readonly<Record<string, unknown>>,
    riderValues: Readonly<Record<string, unknown>>,
  ): KeptPageRead;
  /** The exact count of `key` (one row, `total`) riding on the page's statement. */
  total<R>(
    key: StatementKey,
    count: () => AnySelect & Compilable<R>,
    values: Readonly<Record<string, unknown>>,
  ): RidingTotal;
}

/** `values` with every value null: placeholders that do not change what the page holds. */
function nulled(values: Readonly<Record<string, unknown>>): Record<string, null> {
  return Object.fromEntries(Object.keys(values).map((name) => [name, null]));
}

/** How reads on `db` are kept now; null where its database keeps none (or not now). */
export function keptReadsOf(db: Db): KeptReads | null {
  const memo = statementMemoOf(db);
  return memo ? keptReads(db, memo) : null;
}

function keptReads(db: Db, memo: StatementMemo): KeptReads {
  const { snapshot } = memo;
  return {
    page: (page, riders) =>
      db
        .selectFrom(db.selectNoFrom(snapshot.as('snapshot')).as('page_memo'))
        .leftJoinLateral(
          // OFFSET 0 keeps the page a sub-query of its own.
          db
            .selectFrom(page.as('page_query'))
            .selectAll()
            .where(sql<boolean>`page_memo.snapshot <> ${param<string>('kept_page_snapshot')}`)
            .offset(sql.lit(0))
            .as(KEPT_ROWS),
          (join) => join.onTrue(),
        )
        .selectAll(KEPT_ROWS)
        .select([
          sql.ref('page_memo.snapshot').as(PAGE_SNAPSHOT),
          ...riders.flatMap((rider) => rider?.columns() ?? []),
        ]),
    pageRead(key, build, values, riderValues) {
      // What identifies the page's rows: the statement with the values it reads them by.
      const identity = compiledStatement(db, key, build, {
        ...values,
        ...nulled({ kept_page_snapshot: '', ...riderValues }),
      });
      const kept = memo.kept(identity.sql, identity.parameters);
      return {
        values: { kept_page_snapshot: kept?.snapshot ?? '' },
        settle(read, isEmpty) {
          const seen = String(read[0]?.[PAGE_SNAPSHOT]);
          if (kept && kept.snapshot === seen) return { rows: [...(kept.rows as Row[])], kept };
          // The one row of an empty page has its page columns null.
          const rows = isEmpty(read[0]) ? [] : read;
          const fresh: KeptRows = { snapshot: seen, rows };
          memo.keep(identity.sql, identity.parameters, fresh);
          return { rows, kept: fresh };
        },
      };
    },
    total(key, count, values) {
      const statement = compiledStatement(db, key, count, values);
      const kept = memo.kept(statement.sql, statement.parameters);
      return {
        values: { kept_total_snapshot: kept?.snapshot ?? '' },
        columns: () => [
          snapshot.as(TOTAL_SNAPSHOT),
          sql<
            number | null
          >`case when ${snapshot} = ${param('kept_total_snapshot')} then null else (${count()}) end`.as(
            TOTAL,
          ),
        ],
        read(rows) {
          const [first] = rows;
          if (!first) return null;
          const counted = first[TOTAL];
          if (counted === null && kept) return Number((kept.rows[0] as { total: unknown }).total);
          const total = Number(counted);
          memo.keep(statement.sql, statement.parameters, {
            snapshot: String(first[TOTAL_SNAPSHOT]),
            rows: [{ total }],
          });
          return total;
        },
      };
    },
  };
}
