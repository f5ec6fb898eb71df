// The conformance kit (test/kit/conformance.ts) on the shipped resources: SPEC.md's rules read off
// each route's own definition, on the engine of the pass.
import { serviceRoutes } from '../../src/app/routes.js';
import { seedGroups, seedUsers, templatePayload } from '../helpers/seed.js';
import { conformance } from '../kit/conformance.js';

const routeOf = (path: string) => {
  const route = serviceRoutes.find((r) => r.path === path);
  if (!route) throw new Error(`no route ${path}`);
  return route;
};

conformance({
  route: routeOf('/api/import-templates'),
  sample: async (n, server) => {
    const groups = await seedGroups(server.db, [`kit g${n}a`, `kit g${n}b`]);
    const users = await seedUsers(server.db, [`kit${n}a`, `kit${n}b`]);
    return templatePayload({
      title: `Template ${n}`,
      code: `C${3 - n}`,
      database_name: `db${n % 2}`,
      groups: groups.map((group_id) => ({ group_id })),
      users: users.map((user_id) => ({ user_id })),
    });
  },
});

conformance({ route: routeOf('/api/companies'), sample: (n) => ({ name: `Kit company ${n}` }) });

conformance({ route: routeOf('/api/groups'), sample: (n) => ({ name: `Kit group ${n}` }) });

conformance({
  route: routeOf('/api/units'),
  sample: (n) => ({ name: `Kit unit ${n}`, company_id: 1, connection: n === 2 ? 'x' : null }),
});
