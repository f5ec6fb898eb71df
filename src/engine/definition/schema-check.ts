// Every resource checked against the live databases it uses before the service serves (issue
// 36): the tables and columns of its entity and of the entities its relations and details
// load, the columns' types and lengths, the foreign keys of its relations, and the tables and
// columns its `exists`/`unique` rules read. One catalogue read per database (two statements),
// whatever the number of resources. Each problem names the resource and the fix; the column
// lengths found become the fields' `max` (model/column-limits.ts).
import type { Database } from '../../database/database.js';
import { MIGRATION_SETS, type MigrationSet, pendingMigrations } from '../../database/migrator.js';
import {
  introspectSchema,
  type StoredSchema,
  type StoredTable,
} from '../../database/schema-introspection.js';
import type { UnitDatabases } from '../../database/unit-databases.js';
import type { CastType } from '../../model/casts.js';
import { learnColumnLimits } from '../../model/column-limits.js';
import { type Entity, entityForTable, type Storage } from '../../model/entity.js';
import type { DbRule } from '../../model/rules.js';
import type { Resource } from './define-resource.js';

/** A database the check reads, and how a message names it. */
export interface CheckedDatabase {
  readonly name: string;
  readonly database: Database;
  /** The migration sets that must have run on it. */
  readonly sets: readonly MigrationSet[];
}

export interface CheckedDatabases {
  /** DATABASE_URL: system tables, and the data tables of units without a connection. */
  readonly system: CheckedDatabase;
  /** Every database of data tables (DATABASE_URL's first, then each DB_CONNECTIONS one). */
  readonly data: readonly CheckedDatabase[];
}

export interface SchemaReport {
  /** Per database with migrations that have not run: its name, the resources it holds, them. */
  readonly pending: readonly string[];
  /** One line per problem, naming the resource and the fix. */
  readonly problems: readonly string[];
}

/** What a resource needs of one table: its columns, and why (for the message). */
interface Need {
  readonly resource: string;
  readonly storage: Storage;
  readonly table: string;
  readonly columns: readonly string[];
  readonly what: string;
  /** The entity whose declaration this is: types and lengths are compared with its casts. */
  readonly entity?: Entity;
  /** A foreign key this table must hold: column -> `table.column`. */
  readonly foreignKey?: { readonly column: string; readonly table: string; readonly key: string };
}

const MIGRATE_FIX =
  'write a migration for it in src/database/migrations/<set>/ (npx svc make:migration <name>) and run npx svc migrate';

/** The storage families a cast reads correctly. */
const CAST_TYPES: Readonly<Record<CastType, RegExp>> = {
  integer: /int|serial|numeric|decimal|bigint/,
  float: /int|real|double|float|numeric|decimal/,
  boolean: /int|bool|char|bit/,
  json: /json|text|char|clob/,
  datetime: /time|date|text|char/,
  string: /./,
};

export async function checkSchema(
  resources: readonly Resource[],
  databases: CheckedDatabases,
): Promise<SchemaReport> {
  const needs = resources.flatMap(needsOf);
  const pending: string[] = [];
  const problems = new Set<string>(twiceNamed(resources));
  const seen = new Set<Database>();
  const lengths = new Map<Entity, Map<string, number>>();
  const checked: Array<[CheckedDatabase, Storage[]]> = [[databases.system, ['system']]];
  for (const data of databases.data) {
    const same = data.database === databases.system.database;
    if (same) checked[0]?.[1].push('data');
    else checked.push([data, ['data']]);
  }
  await Promise.all(
    checked.map(async ([where, storages]) => {
      if (seen.has(where.database)) return;
      seen.add(where.database);
      const mine = needs.filter((n) => storages.includes(n.storage));
      const notRun = await pendingMigrations(where.database.db, where.sets).catch(() => null);
      const users = [...new Set(mine.map((n) => n.resource.replace(/^Resource /, '')))];
      const using = users.length > 0 ? ` (used by resources ${users.join(', ')})` : '';
      // A database no migration ran on: its every table is missing, one line says it.
      if (notRun === null) {
        pending.push(`${where.name}${using}: none has run (its migration tables are missing)`);
        return;
      }
      if (notRun.length > 0) pending.push(`${where.name}${using}: ${notRun.join(', ')}`);
      const schema = await introspectSchema(where.database, [...new Set(mine.map((n) => n.table))]);
      // A missing table is said once per resource, whatever names it.
      const missing = new Set<string>();
      for (const need of mine) {
        const key = `${need.resource}\u0000${need.table}`;
        if (missing.has(key)) continue;
        if (!schema.has(need.table)) missing.add(key);
        for (const p of compare(need, schema, where.name)) problems.add(p);
      }
      for (const need of mine) if (need.entity) keepLengths(need.entity, schema, lengths);
    }),
  );
  for (const [entity, columns] of lengths) learnColumnLimits(entity, columns);
  return { pending, problems: [...problems] };
}

function keepLengths(
  entity: Entity,
  schema: StoredSchema,
  lengths: Map<Entity, Map<string, number>>,
): void {
  const table = schema.get(entity.table);
  if (!table) return;
  let columns = lengths.get(entity);
  if (!columns) {
    columns = new Map();
    lengths.set(entity, columns);
  }
  for (const column of entity.columns) {
    const length = table.columns.get(column)?.length;
    if (length == null) continue;
    columns.set(column, Math.min(length, columns.get(column) ?? length));
  }
}

/** Two tables' resources filed under one name would mix their changes, webhooks and channels. */
function twiceNamed(resources: readonly Resource[]): string[] {
  const names = new Map<string, Resource>();
  const problems: string[] = [];
  for (const resource of resources) {
    const other = names.get(resource.name);
    // Two routes over one table may share it (a stricter view of the same records).
    if (other && other.entity.table !== resource.entity.table)
      problems.push(
        `Resource "${resource.name}" is declared twice (entities ${other.entity.name} and ${resource.entity.name}). Fix: give one of them another \`name\` in its defineResource().`,
      );
    names.set(resource.name, resource);
  }
  return problems;
}

/** Every table a resource reads or writes, with the columns it names there. */
function needsOf(resource: Resource): Need[] {
  const name = `Resource "${resource.name}"`;
  const { entity } = resource;
  const needs: Need[] = [entityNeed(name, entity, `entity ${entity.name}`)];
  for (const [relation, r] of resource.belongsTo) {
    const target = r.target();
    needs.push({
      resource: name,
      storage: target.storage,
      table: target.table,
      columns: [r.ownerKey, ...(r.columns ?? target.columns)],
      what: `relation "${relation}" (belongsTo ${target.name})`,
    });
    if (target.storage === entity.storage && target.table !== entity.table)
      needs.push({
        resource: name,
        storage: entity.storage,
        table: entity.table,
        columns: [r.foreignKey],
        what: `relation "${relation}" (belongsTo ${target.name})`,
        foreignKey: { column: r.foreignKey, table: target.table, key: r.ownerKey },
      });
  }
  for (const [relation, r] of [...resource.hasMany, ...resource.counts]) {
    const target = r.target();
    const detail = resource.details.has(relation);
    needs.push(
      detail
        ? entityNeed(name, target, `detail "${relation}" (entity ${target.name})`)
        : {
            resource: name,
            storage: target.storage,
            table: target.table,
            columns: [r.foreignKey, target.primaryKey],
            what: `relation "${relation}" (hasMany ${target.name})`,
          },
    );
    if (target.storage === entity.storage)
      needs.push({
        resource: name,
        storage: target.storage,
        table: target.table,
        columns: [r.foreignKey],
        what: `relation "${relation}" (hasMany ${target.name})`,
        foreignKey: { column: r.foreignKey, table: entity.table, key: r.localKey },
      });
    if (detail) needs.push(...ruleNeeds(name, target, `detail "${relation}" rules`));
  }
  needs.push(...ruleNeeds(name, entity, `rules of ${entity.name}`));
  return needs;
}

function entityNeed(resource: string, entity: Entity, what: string): Need {
  return {
    resource,
    storage: entity.storage,
    table: entity.table,
    columns: entity.columns,
    what,
    entity,
  };
}

/** The tables and columns `exists` and `unique` rules read, on new and existing records. */
function ruleNeeds(resource: string, entity: Entity, what: string): Need[] {
  if (!entity.rules) return [];
  const needs: Need[] = [];
  for (const id of [null, 1]) {
    for (const field of entity.rules(id, {})) {
      for (const rule of field.checks) {
        if (rule.name !== 'exists' && rule.name !== 'unique') continue;
        const owner = entityForTable(rule.table);
        needs.push({
          resource,
          storage: owner?.storage ?? 'system',
          table: rule.table,
          columns: ruleColumns(rule, owner),
          what: `${what}: field "${field.field}" rule "${rule.name}:${rule.table},${rule.column}"`,
        });
      }
    }
  }
  return needs;
}

function ruleColumns(rule: DbRule, owner: Entity | undefined): string[] {
  const columns = [rule.column, owner?.primaryKey ?? 'id'];
  if (rule.name === 'unique' && rule.where) columns.push(rule.where.column);
  return columns;
}

function compare(need: Need, schema: StoredSchema, where: string): string[] {
  const table = schema.get(need.table);
  const at = `${need.resource}, ${need.what}`;
  if (!table)
    return [
      `${at}: table "${need.table}" does not exist on ${where}. Fix: check the table's name, or ${MIGRATE_FIX}.`,
    ];
  const problems: string[] = [];
  for (const column of new Set(need.columns)) {
    const stored = table.columns.get(column);
    if (!stored) {
      problems.push(
        `${at}: column "${column}" does not exist in table "${need.table}" on ${where}. Fix: check the column's name, or add the column: ${MIGRATE_FIX}.`,
      );
      continue;
    }
    const cast = need.entity?.casts[column];
    if (cast && !CAST_TYPES[cast].test(stored.type))
      problems.push(
        `${at}: column "${need.table}.${column}" is ${stored.type} on ${where}, which cannot hold ${cast === 'integer' ? 'an' : 'a'} ${cast} (its cast). Fix: change the cast, or change the column's type in a migration.`,
      );
  }
  if (need.entity) problems.push(...lengthProblems(need.entity, table, at, where));
  if (need.foreignKey && !hasForeignKey(table, need.foreignKey))
    problems.push(
      `${at}: table "${need.table}" has no foreign key from "${need.foreignKey.column}" to "${need.foreignKey.table}.${need.foreignKey.key}" on ${where}. Fix: add it in a migration (.references('${need.foreignKey.table}.${need.foreignKey.key}')) and run npx svc migrate.`,
    );
  return problems;
}

function hasForeignKey(table: StoredTable, key: NonNullable<Need['foreignKey']>): boolean {
  return table.foreignKeys.some(
    (k) => k.column === key.column && k.table === key.table && k.referenced === key.key,
  );
}

/** A declared `max` longer than the column: the declaration accepts what the column cannot hold. */
function lengthProblems(entity: Entity, table: StoredTable, at: string, where: string): string[] {
  if (!entity.rules) return [];
  const problems: string[] = [];
  for (const field of entity.rules(null, {})) {
    const length = table.columns.get(field.field)?.length;
    if (length == null || field.numeric || field.array) continue;
    for (const rule of field.checks)
      if (rule.name === 'max' && rule.limit > length)
        problems.push(
          `${at}: field "${field.field}" allows max:${rule.raw} but column "${entity.table}.${field.field}" holds ${length} characters on ${where}. Fix: lower the rule to max:${length}, or widen the column in a migration.`,
        );
  }
  return problems;
}

/** The check found something: the service does not serve (its message says what and the fix). */
export class SchemaCheckFailed extends Error {}

/** The databases of `main` and of `units` as the check names them. */
export function checkedDatabases(main: Database, units: UnitDatabases): CheckedDatabases {
  return {
    system: { name: 'DATABASE_URL', database: main, sets: MIGRATION_SETS },
    data: units.keyed().map(({ key, database }) => ({
      name: key === '' ? 'DATABASE_URL' : `DB_CONNECTIONS entry "${key}"`,
      database,
      sets: ['data'],
    })),
  };
}

/** The report as lines to read, or null when every resource matches its databases. */
export function reportText(report: SchemaReport): string | null {
  const lines: string[] = [];
  if (report.pending.length > 0)
    lines.push(
      `Migrations have not run on ${report.pending.join('; ')}. Fix: run npx svc migrate (svc serve runs them first unless MIGRATE_ON_START=false), or set START_WITH_PENDING_MIGRATIONS=true to serve anyway (GET /ready answers 503 until they have run).`,
    );
  lines.push(...report.problems);
  if (lines.length === 0) return null;
  const count = `${lines.length} problem${lines.length === 1 ? '' : 's'}`;
  return `The resources do not match the database (${count}):\n${lines.map((l) => `- ${l}`).join('\n')}`;
}
