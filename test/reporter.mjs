// The node:test reporter of test/run.mjs (issue 20): a progress line per test file as it
// finishes, each failure as it happens (test, file, error), and at the end a JSON summary
// (passed, failed, skipped tests; skipped suites with their reasons) written to
// SVC_TEST_SUMMARY for run.mjs to total per engine.
import { writeFileSync } from 'node:fs';
import path from 'node:path';

const ROOT = process.cwd();
const total = Number(process.env.SVC_TEST_FILES ?? 0);

const rel = (file) => (file ? path.relative(ROOT, file) : '(unknown file)');
const isFile = (data) => data.nesting === 0 && data.file !== undefined && data.name === data.file;

function errorText(error) {
  const cause = error?.cause ?? error;
  // An assertion whose message is empty still says what it compared.
  const message =
    cause?.message ||
    (cause && typeof cause === 'object' && 'actual' in cause
      ? `${cause.code ?? 'assertion'}: expected ${JSON.stringify(cause.expected)}, got ${JSON.stringify(cause.actual)}`
      : String(cause));
  return message
    .split('\n')
    .slice(0, 30)
    .map((line) => `      ${line}`)
    .join('\n');
}

export default async function* reporter(source) {
  const summary = {
    passed: 0,
    failed: 0,
    skipped: 0,
    todo: 0,
    skippedSuites: [],
    failures: [],
    // Per file, its seconds: the totals name the slowest (the CI run's time is kept in check).
    seconds: {},
  };
  const files = new Map();
  const fileOf = (file) => {
    let entry = files.get(file);
    if (!entry) {
      entry = { passed: 0, failed: 0, skipped: 0, started: Date.now() };
      files.set(file, entry);
    }
    return entry;
  };
  let done = 0;
  for await (const event of source) {
    const { type, data } = event;
    if (type === 'test:dequeue' && isFile(data)) fileOf(data.file).started = Date.now();
    if (type === 'test:pass' || type === 'test:fail') {
      if (isFile(data)) {
        // A file that could not even load (a syntax error, a failed import) fails as a whole.
        if (type === 'test:fail' && files.get(data.file)?.failed === 0) {
          fileOf(data.file).failed += 1;
          summary.failed += 1;
          summary.failures.push({ file: rel(data.file), name: '(the file itself)' });
          yield `  ✖ ${rel(data.file)}: the file failed\n${errorText(data.details?.error)}\n`;
        }
        continue;
      }
      const suite = data.details?.type === 'suite';
      const entry = fileOf(data.file);
      if (suite) {
        if (data.skip !== undefined)
          summary.skippedSuites.push({
            file: rel(data.file),
            name: data.name,
            reason: typeof data.skip === 'string' ? data.skip : 'skipped',
          });
        continue;
      }
      if (data.todo !== undefined) summary.todo += 1;
      else if (data.skip !== undefined) {
        summary.skipped += 1;
        entry.skipped += 1;
      } else if (type === 'test:pass') {
        summary.passed += 1;
        entry.passed += 1;
      } else {
        summary.failed += 1;
        entry.failed += 1;
        const error = errorText(data.details?.error);
        // The summary repeats the error's first lines: a CI log may keep only its tail.
        summary.failures.push({
          file: rel(data.file),
          name: data.name,
          error: error.split('\n').slice(0, 6).join('\n'),
        });
        yield `  ✖ ${data.name}\n    in ${rel(data.file)}\n${error}\n`;
      }
    }
    if (type === 'test:complete' && isFile(data)) {
      done += 1;
      const entry = fileOf(data.file);
      const seconds = ((Date.now() - entry.started) / 1000).toFixed(1);
      summary.seconds[rel(data.file)] = Number(seconds);
      const mark = entry.failed > 0 ? '✖' : '✔';
      const counts = [`${entry.passed} passed`];
      if (entry.failed > 0) counts.push(`${entry.failed} failed`);
      if (entry.skipped > 0) counts.push(`${entry.skipped} skipped`);
      yield `[${String(done).padStart(String(total).length)}/${total}] ${mark} ${rel(data.file)}  ${counts.join(', ')}  ${seconds} s\n`;
    }
  }
  if (process.env.SVC_TEST_SUMMARY)
    writeFileSync(process.env.SVC_TEST_SUMMARY, JSON.stringify(summary));
}
