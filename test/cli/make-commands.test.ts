// svc make:migration and svc make:resource in a copy of the repository (the worked example of
// docs/development.md is test/docs/worked-example.test.ts): the shipped declarations agree with
// the shipped migrations, and a description the command cannot read is refused with its reason.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sqlitePassOnly } from '../helpers/engines.js';
import { copyRepository } from '../helpers/repository-copy.js';

/** The stderr of a command that must fail. */
function refusal(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    const failed = error as { status: number; stderr: string };
    assert.equal(failed.status, 2, failed.stderr);
    return failed.stderr;
  }
  assert.fail('the command succeeded');
}

describe('make:migration and make:resource', { skip: sqlitePassOnly('no database') }, () => {
  const copy = copyRepository();

  it('make:migration writes nothing while the declarations and the migrations agree', () => {
    const before = copy.sources();
    assert.deepEqual(JSON.parse(copy.svc(['make:migration', 'nothing'])), { written: [] });
    assert.deepEqual(copy.sources(), before);
  });

  it('make:migration writes the next migration of the set for a new column, index and table', () => {
    copy.svc(['make:resource', 'gadgets', 'label:string(40)!unique weight:integer']);
    const written: string[] = JSON.parse(copy.svc(['make:migration', 'create_gadgets'])).written;
    assert.equal(written.length, 1);
    const [file = ''] = written;
    assert.match(file, /^src\/database\/migrations\/data\/\d{4}-create-gadgets\.ts$/);
    const source = copy.sources().get(file.replace(/^src\//, '')) ?? '';
    assert.match(source, /createTable\('gadgets'\)/);
    assert.match(
      source,
      /addColumn\('label', 'varchar\(40\)', \(c\) => c\.notNull\(\)\.unique\(\)\)/,
    );
    assert.match(source, /addColumn\('weight', 'integer'\)/);
    assert.match(source, /dropTable\('gadgets'\)/);
  });

  it('make:resource refuses an unknown type, an unknown modifier and a name routed already', () => {
    assert.match(
      refusal(() => copy.svc(['make:resource', 'widgets', 'name:strng(20)'])),
      /unknown type "strng"/,
    );
    assert.match(
      refusal(() => copy.svc(['make:resource', 'widgets', 'name:string(20)!uniq'])),
      /unknown modifier "uniq"/,
    );
    assert.match(
      refusal(() => copy.svc(['make:resource', 'gadgets', 'name:string(20)'])),
      /exists already/,
    );
  });
});
