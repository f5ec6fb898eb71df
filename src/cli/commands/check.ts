// svc check: every resource against the databases it uses, as `svc serve` checks them before it
// serves (issue 36), without migrating or changing anything: the migrations that have not run,
// then each problem with the resource it is in and its fix (stderr; stdout: the same as JSON).
// Exit 1 when there is any.
import { serviceRoutes } from '../../app/routes.js';
import { connectDatabase } from '../../database/connect.js';
import { UnitDatabases } from '../../database/unit-databases.js';
import { checkedDatabases, checkSchema, reportText } from '../../engine/definition/schema-check.js';
import { announceDatabase, cliConfig } from '../cli-config.js';
import type { Command } from '../command.js';

export const check: Command = {
  summary:
    'Check every resource against its databases (tables, columns, types, lengths, foreign keys, rule tables, migrations run); changes nothing',
  usage: '',
  examples: ['npx svc check'],
  async run() {
    const config = cliConfig();
    announceDatabase(config);
    const database = connectDatabase(config.databaseUrl, config);
    try {
      const units = await UnitDatabases.open(database, config, config, false);
      try {
        const resources = serviceRoutes.map((route) => route.resource);
        const report = await checkSchema(resources, checkedDatabases(database, units));
        const databases = 1 + units.databases().length;
        // Machine-readable on stdout (DESIGN.md 3.1), the same words as `svc serve` on stderr.
        process.stdout.write(
          `${JSON.stringify({ resources: resources.length, databases, pending: report.pending, problems: report.problems })}\n`,
        );
        const text = reportText(report);
        if (text !== null) {
          process.stderr.write(`${text}\n`);
          return 1;
        }
        process.stderr.write(
          `${resources.length} resources match their ${databases === 1 ? 'database' : `${databases} databases`}; every migration has run.\n`,
        );
        return 0;
      } finally {
        await units.close();
      }
    } finally {
      await database.close();
    }
  },
};
