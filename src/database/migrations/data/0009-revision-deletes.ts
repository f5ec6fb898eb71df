// The deleted records of a resource (GET /api/<resource>/deleted, DESIGN.md 3.11): their delete
// revisions, newest first, by one range of this index.
import type { Db } from '../../db.js';
import { columnTypes } from '../column-types.js';

export async function up(db: Db): Promise<void> {
  await db.schema
    .createIndex('svc_revisions_action_index')
    .on('svc_revisions')
    .columns(['resource', 'action', 'change_id'])
    .execute();
}

export async function down(db: Db): Promise<void> {
  await columnTypes(db).dropIndex('svc_revisions_action_index', 'svc_revisions').execute();
}
