// Where a DATABASE_URL points, said without its password: what the start-up summary and every
// CLI command print, so an operator sees which database was opened.

/** `sqlite:/abs/file`, or the URL with its password left out (`postgres://svc@db:5432/svc`). */
export function databaseLocation(url: string): string {
  if (url.startsWith('sqlite:')) return url;
  try {
    const parsed = new URL(url);
    parsed.password = '';
    return parsed.toString();
  } catch {
    // Not a URL: say only its scheme rather than risk printing a secret.
    return `${url.split(':')[0]}:…`;
  }
}

/** The engine's name as people say it. */
export function databaseEngine(url: string): string {
  if (url.startsWith('sqlite:')) return 'SQLite';
  if (/^postgres(ql)?:/.test(url)) return 'PostgreSQL';
  if (/^(mysql|mariadb):/.test(url)) return 'MySQL/MariaDB';
  return url.split(':')[0] ?? url;
}
