// svc migrate: apply pending migrations and report them as JSON.
import { loadConfig } from '../../config/config.js';
import { connectDatabase } from '../../database/connect.js';
import { migrate as runMigrations } from '../../database/migrator.js';
import type { Command } from '../command.js';

export const migrate: Command = {
  summary: 'Apply pending database migrations',
  async run() {
    const config = loadConfig();
    const database = connectDatabase(config.databaseUrl, config);
    try {
      const reports = await runMigrations(database.db, ['system', 'data']);
      process.stdout.write(`${JSON.stringify({ migrations: reports })}\n`);
      process.stderr.write(`Migrations current (${reports.flatMap((r) => r.applied).length} applied now).\n`);
    } finally {
      await database.close();
    }
  },
};
