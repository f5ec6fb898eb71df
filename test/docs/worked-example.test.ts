// docs/development.md "Adding a resource", built exactly as written into a copy of the
// repository: its `npx svc make:...` commands run through the real CLI, its file blocks written
// over what they scaffolded, in the page's order; then the page's own test (the conformance kit)
// runs on the copy, on the engine of the pass. The supplier costs at most 40 lines of its own
// and touches nothing outside src/app/ and its migration folder.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { it } from 'node:test';
import { ROOT } from '../helpers/cli.js';
import { copyRepository } from '../helpers/repository-copy.js';

const PAGE = fs.readFileSync(path.join(ROOT, 'docs/development.md'), 'utf8');
const SECTION = PAGE.slice(PAGE.indexOf('## Adding a resource'), PAGE.indexOf('## Layout'));

/** The page's steps in order: a command line, or a file block (its first line names the file). */
type Step = { readonly command: string[] } | { readonly file: string; readonly text: string };

/** Splits a shell line into words, keeping "quoted" ones whole. */
function words(line: string): string[] {
  return [...line.matchAll(/"([^"]*)"|(\S+)/g)].map((m) => m[1] ?? m[2] ?? '');
}

function steps(): Step[] {
  const out: Step[] = [];
  for (const [, lang, body = ''] of SECTION.matchAll(/```(\w+)\n([\s\S]*?)```/g)) {
    if (lang === 'sh') {
      for (const line of body.split('\n'))
        if (line.startsWith('npx svc ')) out.push({ command: words(line).slice(2) });
    } else {
      const first = /^\/\/ ((?:src|test)\/\S+\.ts)\n/.exec(body);
      if (first?.[1]) out.push({ file: first[1], text: body.slice(first[0].length) });
    }
  }
  return out;
}

/** Lines of code (not blank, not a comment) of a text. */
const codeLines = (text: string) =>
  text.split('\n').filter((line) => line.trim() !== '' && !line.trim().startsWith('//'));

const copy = copyRepository();
const before = copy.sources();

const doc = steps();
for (const step of doc) {
  if ('command' in step) {
    // `npm run build` is what `npx svc` needs; the copy runs the CLI from its sources instead.
    copy.svc(step.command);
  } else if (step.file.startsWith('src/')) {
    fs.writeFileSync(path.join(copy.root, step.file), step.text);
  }
}
const afterwards = copy.sources();
const changed = [...afterwards.keys()].filter((file) => afterwards.get(file) !== before.get(file));

it('the page runs make:resource and make:migration, and writes the entity and the resource', () => {
  assert.deepEqual(
    doc.filter((s) => 'command' in s).map((s) => ('command' in s ? s.command[0] : '')),
    ['make:resource', 'make:migration'],
  );
  assert.deepEqual(
    doc.filter((s) => 'file' in s).map((s) => ('file' in s ? s.file : '')),
    [
      'src/app/entities/supplier.ts',
      'src/app/resources/suppliers.ts',
      'test/resources/suppliers.test.ts',
    ],
  );
});

it('the supplier touches only src/app/ and its migration folder, in at most 40 lines of its own', () => {
  const [entity, resource, routes, migration, ...others] = changed.sort();
  assert.deepEqual(
    [entity, resource, routes, others],
    ['app/entities/supplier.ts', 'app/resources/suppliers.ts', 'app/routes.ts', []],
  );
  assert.match(migration ?? '', /^database\/migrations\/data\/\d{4}-create-suppliers\.ts$/);
  const routeLines = codeLines(afterwards.get('app/routes.ts') ?? '').filter(
    (line) => !codeLines(before.get('app/routes.ts') ?? '').includes(line),
  );
  const own =
    codeLines(afterwards.get('app/entities/supplier.ts') ?? '').length +
    codeLines(afterwards.get('app/resources/suppliers.ts') ?? '').length +
    routeLines.length;
  assert.ok(own <= 40, `the supplier takes ${own} lines`);
});

it('the supplier is described in /api/openapi.json and /app/resources, with its abilities', async () => {
  const helpers = await import(path.join(copy.root, 'test/helpers/test-server.ts'));
  const server = await helpers.startTestServer();
  try {
    const document = (await server.get('/api/openapi.json')).body;
    assert.deepEqual(document.paths['/api/suppliers'].get['x-abilities'], ['suppliers.read']);
    assert.ok(document.paths['/api/suppliers/{supplier}'].patch);
    const { SessionClient } = await import(path.join(copy.root, 'test/helpers/session-client.ts'));
    const described = await (await new SessionClient(server.url).signIn()).get('/app/resources');
    assert.equal(described.status, 200, described.text);
    const supplier = described.body.data.find((r: { name: string }) => r.name === 'suppliers');
    assert.deepEqual(
      supplier.details.map((d: { name: string }) => d.name),
      ['contacts', 'addresses'],
    );
  } finally {
    await server.close();
  }
});

// The page's own test, on the copy (its kit, its routes, its migrations).
const test = doc.find((s) => 'file' in s && s.file.startsWith('test/'));
assert.ok(test && 'file' in test);
fs.writeFileSync(path.join(copy.root, test.file), test.text);
await import(path.join(copy.root, test.file));
