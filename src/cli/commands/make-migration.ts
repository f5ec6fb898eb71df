// svc make:migration <name>: writes the migration that brings the database to the entity
// declarations (docs/development.md). It compares them with what the existing migrations create,
// run on a scratch SQLite database, not with a live database: the same source tree then makes
// the same migration on every machine, whatever state a developer's own database is in, and the
// migration runs alike on the main database, every unit database and every engine.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { serviceRoutes } from '../../app/routes.js';
import { migratedSchema } from '../../database/dialects/sqlite/migrated-schema.js';
import { migrate } from '../../database/migrator.js';
import { declaredTables } from '../../model/declare-entity.js';
import { migrationSource } from '../../model/migration-source.js';
import { planMigrations } from '../../model/schema-plan.js';
import { CliError } from '../cli-error.js';
import type { Command } from '../command.js';

/** The repository this command runs from (src/cli/commands or dist/cli/commands, three up). */
export const REPOSITORY_ROOT = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  '../../..',
);

/** `create_suppliers` -> `create-suppliers`, the migrations' file-name style. */
export function migrationSlug(name: string): string {
  const slug = name
    .trim()
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
  if (!slug) throw new CliError('make:migration needs a name, e.g. create_suppliers');
  return slug;
}

/** The next free `NNNN-` of a migrations folder. */
function nextNumber(folder: string): string {
  const used = fs.existsSync(folder)
    ? fs.readdirSync(folder).map((file) => Number(/^(\d{4})-/.exec(file)?.[1] ?? 0))
    : [];
  return String(Math.max(0, ...used) + 1).padStart(4, '0');
}

/** In the house style when the formatter is installed (a development checkout); else as written. */
export function formatted(files: readonly string[], root: string): void {
  const biome = path.join(root, 'node_modules/.bin/biome');
  if (files.length === 0 || !fs.existsSync(biome)) return;
  spawnSync(biome, ['check', '--write', ...files], { cwd: root, stdio: 'ignore' });
}

/**
 * Writes the migrations the declarations need under `root`/src/database/migrations/<set>/ and
 * answers their paths (none when the declarations and the migrations agree).
 */
export async function writeMigrations(name: string, root = REPOSITORY_ROOT): Promise<string[]> {
  void serviceRoutes; // the routes import every entity, which declares its table
  const slug = migrationSlug(name);
  const schema = await migratedSchema((db) => migrate(db, ['system', 'data']));
  const written: string[] = [];
  for (const plan of planMigrations(declaredTables(), schema)) {
    const folder = path.join(root, 'src/database/migrations', plan.set);
    const file = path.join(folder, `${nextNumber(folder)}-${slug}.ts`);
    fs.mkdirSync(folder, { recursive: true });
    fs.writeFileSync(file, migrationSource(plan, `npx svc make:migration ${name}`));
    written.push(file);
  }
  formatted(written, root);
  return written;
}

export const makeMigration: Command = {
  summary: 'Write the migration that brings the database to the entity declarations',
  usage: '<name>',
  arguments: {
    '<name>':
      'what the migration does, e.g. create_suppliers (the file is NNNN-create-suppliers.ts)',
  },
  examples: ['npx svc make:migration create_suppliers'],
  async run({ positionals }) {
    const [name] = positionals;
    if (!name) throw new CliError('make:migration needs a name, e.g. create_suppliers');
    const written = await writeMigrations(name);
    process.stdout.write(
      `${JSON.stringify({ written: written.map((f) => path.relative(REPOSITORY_ROOT, f)) })}\n`,
    );
    process.stderr.write(
      written.length === 0
        ? 'Nothing to migrate: the declarations and the migrations agree.\n'
        : `Wrote ${written.map((f) => path.relative(REPOSITORY_ROOT, f)).join(', ')}: read it, then run \`npm run build\` and \`npx svc migrate\`.\n`,
    );
  },
};
