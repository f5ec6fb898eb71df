// Statements on a PostgreSQL or MariaDB server over a connection of their own: how the benchmark
// (copy-dataset.mjs) and the soak (soak/server.mjs) make and drop the databases they run on.
import mysql from 'mysql2/promise';
import pg from 'pg';

/** Runs `statements` in order on the server at `url` ('postgres' or 'mysql'). */
export async function runOnServer(engine, url, statements) {
  if (engine === 'postgres') {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      for (const s of statements) await client.query(s);
    } finally {
      await client.end();
    }
    return;
  }
  const connection = await mysql.createConnection(url);
  try {
    for (const s of statements) await connection.query(s);
  } finally {
    await connection.end();
  }
}

/** Drops database `name`, sessions still on it included (PostgreSQL refuses otherwise). */
export const dropDatabase = (engine, name) =>
  engine === 'postgres'
    ? `drop database if exists ${name} with (force)`
    : `drop database if exists ${name}`;
