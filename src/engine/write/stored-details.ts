// The stored rows of the detail relations a payload touches: one statement per relation. They
// decide which payload ids belong to this master and what a partial row update merges with.
import { param, runCached } from '../../database/query-cache.js';
import type { Connections } from '../../model/connections.js';
import type { Row } from '../../model/entity.js';
import type { Resource } from '../definition/define-resource.js';
import type { Payload } from './payload.js';
import type { StoredDetails } from './validate-write.js';

export async function loadStoredDetails(
  connections: Connections,
  resource: Resource,
  masterKey: unknown,
  payload: Payload,
): Promise<StoredDetails> {
  const stored = new Map<string, Map<string, Row>>();
  for (const { name } of payload.details) {
    const relation = resource.details.get(name);
    if (!relation) continue;
    const target = relation.target();
    const db = connections[target.storage];
    const rows = await runCached<Row>(
      db,
      `stored-details:${target.table}:${relation.foreignKey}`,
      () => db.selectFrom(target.table).select(target.columns).where(relation.foreignKey, '=', param('key')),
      { key: masterKey },
    );
    stored.set(name, new Map(rows.map((row) => [String(row[target.primaryKey]), row])));
  }
  return stored;
}
