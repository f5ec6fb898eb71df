// The error catalog and its documentation (issue 16), in the manner of Fastify's
// test/internals/errors.test.js, which checks that every error of lib/errors.js is in
// docs/Reference/Errors.md and that every error there exists. Here the catalog is `errors` of
// src/errors.ts and the documentation is the table under docs/api.md "## Errors":
//
//   | status | code | when | body | headers |
//   | 401 | `BEARER_UNAUTHENTICATED` | ... | `{error: "<reason>"}` | `WWW-Authenticate: Bearer` |
//
// A body is written `{key, key: "literal", key: {...}}`: its top-level keys must be the keys the
// error sends, and a quoted literal must equal the sent string, `<...>` standing for any text.
// Several shapes may be given in one cell (each in its own backticks); every call matches one of
// them and every shape is matched by some call. Headers are `Name: value` spans, all of them.
// Only src/errors.ts is imported: other files under src/ are read as text, wherever they move.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { errors, HttpError } from '../../src/errors.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const ERROR_DOC = path.join(ROOT, 'docs', 'api.md');
const SRC = path.join(ROOT, 'src');
const CATALOG = path.join(SRC, 'errors.ts');
const SECTION = '## Errors';
const COLUMNS = ['status', 'code', 'when', 'body', 'headers'] as const;

type Catalog = typeof errors;
type Name = keyof Catalog;

/**
 * Arguments to call each entry with, one tuple per call; a call per shape docs/api.md documents.
 * An entry not listed (a new one) is called with one 'sample' string per declared parameter.
 */
const SAMPLES: { readonly [K in Name]?: readonly Parameters<Catalog[K]>[] } = {
  validation: [
    [
      {
        title: ['The title field is required.'],
        database_name: ['The database name field is required.'],
      },
    ],
  ],
  badRequest: [['The request body must be a JSON object.'], ['Some message of Fastify.']],
  bodyTooLarge: [[1_048_576]],
  bodyTooDeep: [[64]],
  unsupportedMediaType: [['text/plain']],
  bearerUnauthenticated: [[], ['Invalid token.']],
  bearerForbidden: [['The user is inactive.']],
  missingAbility: [['import-templates.read']],
  sessionForbidden: [['The unit is inactive.']],
  pusherUnknownApp: [['other-app']],
  pusherUnauthenticated: [['Invalid auth_signature.']],
  pusherInvalidEvent: [['The body is not valid JSON.']],
  // MAX_MESSAGE_BYTES of the real-time protocol, which docs/api.md states as 10240.
  pusherEventTooLarge: [[10_240]],
  driverUnauthenticated: [['Invalid signature.']],
  driverStatementRefused: [['near "selec": syntax error']],
  unitDatabaseUnavailable: [['east']],
  server: [
    [],
    [
      {
        message: 'transformer exploded',
        exception: 'TypeError',
        trace: ['at title (src/app.ts:1:1)'],
      },
    ],
  ],
};

interface Made {
  readonly name: Name;
  readonly args: readonly unknown[];
  readonly error: HttpError;
}

/** Every entry of the catalog called with its sample arguments. */
function madeErrors(): Made[] {
  return (Object.keys(errors) as Name[]).flatMap((name) => {
    const make = errors[name] as (...args: unknown[]) => unknown;
    const samples = (SAMPLES[name] as readonly (readonly unknown[])[] | undefined) ?? [
      Array.from({ length: make.length }, () => 'sample'),
    ];
    return samples.map((args) => {
      const error = make(...args);
      assert.ok(
        error instanceof HttpError,
        `errors.${name}(${JSON.stringify(args).slice(1, -1)}) does not return an HttpError`,
      );
      return { name, args, error };
    });
  });
}

const call = (made: Made) => `errors.${made.name}(${JSON.stringify(made.args).slice(1, -1)})`;

// ---- the docs/api.md table ----------------------------------------------------------------------

interface Shape {
  readonly text: string;
  readonly keys: readonly string[];
  /** Keys documented with a quoted string, as a pattern of the sent string. */
  readonly literals: ReadonlyMap<string, RegExp>;
}

interface Row {
  readonly line: number;
  readonly status: number;
  readonly code: string;
  readonly when: string;
  readonly shapes: readonly Shape[];
  /** Lower-case header name -> value. */
  readonly headers: Readonly<Record<string, string>>;
}

/** The cells of a table line; `\|` is a pipe inside a cell. */
function cells(line: string): string[] {
  return line
    .trim()
    .replace(/^\|/, '')
    .replace(/(?<!\\)\|$/, '')
    .split(/(?<!\\)\|/)
    .map((cell) => cell.trim());
}

const spans = (cell: string): string[] => [...cell.matchAll(/`([^`]+)`/g)].map((m) => m[1] ?? '');

/** Splits at `separator` outside brackets and quoted strings. */
function splitTopLevel(text: string, separator: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let quoted = false;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c === '\\') i++;
      else if (c === '"') quoted = false;
    } else if (c === '"') quoted = true;
    else if (c === '{' || c === '[') depth++;
    else if (c === '}' || c === ']') depth--;
    else if (c === separator && depth === 0) {
      parts.push(text.slice(start, i));
      start = i + 1;
    }
  }
  assert.ok(depth === 0 && !quoted, `unbalanced body shape: ${text}`);
  parts.push(text.slice(start));
  return parts.map((p) => p.trim()).filter((p) => p !== '');
}

/** A documented string as a pattern: `<...>` is any non-empty text, the rest is literal. */
function literalPattern(text: string): RegExp {
  const parts = text.split(/<[^<>]+>/).map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  return new RegExp(`^${parts.join('.+')}$`, 's');
}

function parseShape(text: string, where: string): Shape {
  const keys: string[] = [];
  const literals = new Map<string, RegExp>();
  for (const entry of splitTopLevel(text.slice(1, -1), ',')) {
    const match = /^([A-Za-z_][\w]*)\s*(?::\s*([\s\S]+))?$/.exec(entry);
    assert.ok(match, `${where}: cannot read "${entry}" in the body ${text}`);
    const key = match[1] ?? '';
    keys.push(key);
    const value = match[2];
    if (value?.startsWith('"')) {
      let literal: unknown;
      try {
        literal = JSON.parse(value);
      } catch {
        assert.fail(`${where}: ${value} is not one quoted string in the body ${text}`);
      }
      literals.set(key, literalPattern(String(literal)));
    }
  }
  return { text, keys: keys.sort(), literals };
}

let table: Row[] | undefined;

/** The rows of the first table under docs/api.md "## Errors". */
function readmeRows(): Row[] {
  if (table) return table;
  const lines = readFileSync(ERROR_DOC, 'utf8').split('\n');
  const heading = lines.indexOf(SECTION);
  assert.notEqual(heading, -1, `docs/api.md has no "${SECTION}" section`);
  let first = heading + 1;
  while (
    first < lines.length &&
    !lines[first]?.startsWith('|') &&
    !/^#{1,6} /.test(lines[first] ?? '')
  )
    first++;
  assert.ok(lines[first]?.startsWith('|'), `docs/api.md "${SECTION}" has no table`);
  const header = cells(lines[first] ?? '').map((c) => c.toLowerCase());
  assert.deepEqual(header, [...COLUMNS], `docs/api.md "${SECTION}": the table's columns`);
  const at = (row: string[], column: (typeof COLUMNS)[number]) =>
    row[COLUMNS.indexOf(column)] ?? '';
  const rows: Row[] = [];
  for (let i = first + 2; i < lines.length && lines[i]?.startsWith('|'); i++) {
    const where = `docs/api.md:${i + 1}`;
    const row = cells(lines[i] ?? '');
    assert.equal(
      row.length,
      COLUMNS.length,
      `${where}: ${row.length} cells, not ${COLUMNS.length}`,
    );
    const status = at(row, 'status');
    assert.match(status, /^\d{3}$/, `${where}: the status is not a number`);
    const code = /^`([A-Z][A-Z0-9_]*)`$/.exec(at(row, 'code'))?.[1];
    assert.ok(code, `${where}: the code is not one \`UPPER_SNAKE\` code`);
    const shapes = spans(at(row, 'body'))
      .filter((span) => span.startsWith('{'))
      .map((span) => parseShape(span, where));
    assert.ok(shapes.length > 0, `${where}: no \`{...}\` body shape`);
    const headers: Record<string, string> = {};
    for (const span of spans(at(row, 'headers'))) {
      const header = /^([A-Za-z][A-Za-z0-9-]*): (.+)$/.exec(span);
      assert.ok(header, `${where}: "${span}" is not a \`Name: value\` header`);
      headers[(header[1] ?? '').toLowerCase()] = header[2] ?? '';
    }
    rows.push({
      line: i + 1,
      status: Number(status),
      code,
      when: at(row, 'when'),
      shapes,
      headers,
    });
  }
  table = rows;
  return rows;
}

function bodyMatches(body: Readonly<Record<string, unknown>>, shape: Shape): boolean {
  const keys = Object.keys(body).sort();
  if (keys.length !== shape.keys.length || keys.some((key, i) => key !== shape.keys[i]))
    return false;
  return [...shape.literals].every(
    ([key, pattern]) => typeof body[key] === 'string' && pattern.test(body[key]),
  );
}

// ---- the sources ---------------------------------------------------------------------------

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) return sourceFiles(full);
    return /\.(ts|mts|cts|js|mjs)$/.test(name) ? [full] : [];
  });
}

/** The `errors.<name>` used under src/ outside the catalog, comments left out. */
function usedNames(): Map<string, string> {
  const used = new Map<string, string>();
  for (const file of sourceFiles(SRC)) {
    if (path.resolve(file) === CATALOG) continue;
    const code = readFileSync(file, 'utf8')
      .replace(/\/\*[\s\S]*?\*\//g, '')
      .replace(/(^|\s)\/\/.*$/gm, '$1');
    for (const match of code.matchAll(/(?<![\w$.'"`/])errors\s*\.\s*([A-Za-z_$][\w$]*)/g)) {
      const name = match[1] ?? '';
      if (!used.has(name)) used.set(name, path.relative(ROOT, file));
    }
  }
  return used;
}

// ---- the rules -----------------------------------------------------------------------------

describe('the error catalog (src/errors.ts) and the error table of docs/api.md', () => {
  it('every error in the catalog is documented in the error table of docs/api.md', () => {
    const documented = new Set(readmeRows().map((row) => row.code));
    const missing = madeErrors()
      .filter((made) => !documented.has(made.error.code))
      .map((made) => `${made.error.code} (${call(made)})`);
    assert.deepEqual([...new Set(missing)], [], `errors without a row in docs/api.md "${SECTION}"`);
  });

  it('every documented row gives the status, body shape and headers its error sends', () => {
    const rows = new Map(readmeRows().map((row) => [row.code, row]));
    const problems: string[] = [];
    const matchedShapes = new Set<Shape>();
    const calledCodes = new Set<string>();
    for (const made of madeErrors()) {
      const { error } = made;
      const row = rows.get(error.code);
      if (!row) continue; // the rule above
      calledCodes.add(error.code);
      const where = `docs/api.md:${row.line} ${error.code}`;
      if (row.when === '') problems.push(`${where}: says nothing in "when"`);
      if (row.status !== error.status)
        problems.push(`${where}: status ${row.status}, but ${call(made)} sends ${error.status}`);
      const matching = row.shapes.filter((shape) => bodyMatches(error.body, shape));
      if (matching.length === 0) {
        problems.push(
          `${where}: ${call(made)} sends ${JSON.stringify(error.body)}, documented ${row.shapes.map((s) => s.text).join(' or ')}`,
        );
      }
      for (const shape of matching) matchedShapes.add(shape);
      const sent = Object.fromEntries(
        Object.entries(error.headers).map(([name, value]) => [name.toLowerCase(), value]),
      );
      try {
        assert.deepEqual(row.headers, sent);
      } catch {
        problems.push(
          `${where}: headers ${JSON.stringify(row.headers)}, but ${call(made)} sends ${JSON.stringify(sent)}`,
        );
      }
    }
    for (const row of readmeRows()) {
      if (!calledCodes.has(row.code)) continue;
      for (const shape of row.shapes) {
        if (!matchedShapes.has(shape))
          problems.push(
            `docs/api.md:${row.line} ${row.code}: no call sends the documented body ${shape.text}`,
          );
      }
    }
    assert.deepEqual(problems, []);
  });

  it('every code in the error table of docs/api.md is an error of the catalog', () => {
    const codes = new Set(madeErrors().map((made) => made.error.code));
    const unknown = readmeRows()
      .filter((row) => !codes.has(row.code))
      .map((row) => `docs/api.md:${row.line} ${row.code}`);
    assert.deepEqual(
      unknown,
      [],
      'rows of docs/api.md "## Errors" for codes the catalog does not have',
    );
  });

  it('every code in the error table of docs/api.md has one row only', () => {
    const seen = new Map<string, number>();
    const twice: string[] = [];
    for (const row of readmeRows()) {
      const earlier = seen.get(row.code);
      if (earlier !== undefined)
        twice.push(`${row.code} at docs/api.md:${earlier} and docs/api.md:${row.line}`);
      else seen.set(row.code, row.line);
    }
    assert.deepEqual(twice, []);
  });

  it('every error in the catalog has a stable, unique code and a 4xx or 5xx status', () => {
    const problems: string[] = [];
    const codeOf = new Map<Name, string>();
    const nameOf = new Map<string, Name>();
    for (const made of madeErrors()) {
      const { name, error } = made;
      if (!/^[A-Z][A-Z0-9_]*$/.test(error.code))
        problems.push(`${call(made)}: code "${error.code}" is not UPPER_SNAKE_CASE`);
      if (!Number.isInteger(error.status) || error.status < 400 || error.status > 599) {
        problems.push(`${call(made)}: status ${String(error.status)} is not a number in 400..599`);
      }
      const earlier = codeOf.get(name);
      if (earlier !== undefined && earlier !== error.code)
        problems.push(
          `errors.${name}: codes ${earlier} and ${error.code} depending on its arguments`,
        );
      codeOf.set(name, error.code);
      const owner = nameOf.get(error.code);
      if (owner !== undefined && owner !== name)
        problems.push(`${error.code}: the code of both errors.${owner} and errors.${name}`);
      nameOf.set(error.code, name);
    }
    assert.deepEqual(problems, []);
  });

  it('every error in the catalog is raised somewhere under src/', () => {
    const used = usedNames();
    const dead = (Object.keys(errors) as Name[])
      .filter((name) => !used.has(name))
      .map((name) => `errors.${name}`);
    assert.deepEqual(dead, [], 'catalog entries no file under src/ (but src/errors.ts) uses');
  });
});
