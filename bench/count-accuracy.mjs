#!/usr/bin/env node
// count=estimated against count=exact on a bench database (issue 21): for a few filters, the
// exact total, the estimate and its error, one line each. Runs svc in-process (dist/).
//   node bench/count-accuracy.mjs <DATABASE_URL> [DATA_DIR]
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const dist = (p) => import(path.join(ROOT, 'dist', p));
const [url, dataDir = '/tmp/svc-bench/data'] = process.argv.slice(2);
const [{ loadConfig }, { startService }, { createToken }, { grantableAbilities }] =
  await Promise.all([
    dist('config/config.js'),
    dist('service.js'),
    dist('auth/tokens/token-service.js'),
    dist('app/routes.js'),
  ]);
const svc = await startService(
  loadConfig({ ...process.env, DATABASE_URL: url, DATA_DIR: dataDir, LOG_LEVEL: 'error' }),
  { logger: false },
);
const user = await svc.database.db
  .selectFrom('user_units')
  .select(['user_id', 'unit_id'])
  .executeTakeFirstOrThrow();
const { token } = await createToken(svc.database, grantableAbilities(), {
  userId: user.user_id,
  unitId: user.unit_id,
  name: 'count accuracy',
  abilities: ['import-templates.read'],
  expiresAt: null,
});
const FILTERS = {
  'no filter': {},
  'active = Y': { active: { '=': 'Y' } },
  "title like '%ab%'": { title: { like: '%ab%' } },
  "active = Y and title like '%ab%' (L2)": { active: { '=': 'Y' }, title: { like: '%ab%' } },
  "database_name = 'crm'": { database_name: { '=': 'crm' } },
  'database_name in (crm, hr), active = N': {
    database_name: { in: ['crm', 'hr'] },
    active: { '=': 'N' },
  },
  "code like 'TPL-00%'": { code: { like: 'TPL-00%' } },
};
const total = async (filters, count) => {
  const res = await svc.app.inject({
    url: `/api/import-templates?per_page=1&count=${count}&filters=${encodeURIComponent(JSON.stringify(filters))}`,
    headers: { authorization: `Bearer ${token}` },
  });
  const { meta } = res.json();
  return meta;
};
console.log('| filter | exact | estimated | error |\n|---|---:|---:|---:|');
for (const [name, filters] of Object.entries(FILTERS)) {
  const exact = (await total(filters, 'exact')).total;
  const meta = await total(filters, 'estimated');
  const error = meta.total_estimated
    ? `${(((meta.total - exact) / exact) * 100).toFixed(1)} %`
    : 'exact (at or below the threshold)';
  console.log(`| ${name} | ${exact} | ${meta.total} | ${error} |`);
}
await svc.close();
