// svc migrate: apply pending migrations and report them as JSON: both sets on DATABASE_URL, the
// data set on every DB_CONNECTIONS database (DESIGN.md 3.5), each entry's report under its name.
import { connectDatabase } from '../../database/connect.js';
import { migrate as runMigrations } from '../../database/migrator.js';
import { UnitDatabases } from '../../database/unit-databases.js';
import { announceDatabase, cliConfig } from '../cli-config.js';
import type { Command } from '../command.js';

export const migrate: Command = {
  summary: 'Apply pending database migrations (DATABASE_URL and every DB_CONNECTIONS entry)',
  usage: '',
  examples: ['npx svc migrate'],
  async run() {
    const config = cliConfig();
    announceDatabase(config);
    const database = connectDatabase(config.databaseUrl, config);
    try {
      const reports = await runMigrations(database.db, ['system', 'data']);
      const units = await UnitDatabases.open(database, config, config);
      await units.close();
      const applied = [...reports, ...Object.values(units.reports).flat()].flatMap(
        (r) => r.applied,
      ).length;
      const connections =
        Object.keys(units.reports).length > 0 ? { connections: units.reports } : {};
      process.stdout.write(`${JSON.stringify({ migrations: reports, ...connections })}\n`);
      process.stderr.write(`Migrations current (${applied} applied now).\n`);
    } finally {
      await database.close();
    }
  },
};
