// The engine names none of the database's tricks (issue 33): no file of src/engine/ has an
// identifier or an import path that names a memo, a snapshot, a carried check, a lease or a
// credential. How a statement runs (memos, snapshots, sliced reads, the answer budget) is the
// statement runner's (src/database/statement-runner.ts); the credential check is auth's.
//
// The rule, exactly: every identifier (names declared or used, property names, imported and
// exported names) and every import or export path of a .ts file under src/engine/ is split into
// words (camelCase, snake_case, kebab-case, path separators and dots), and fails when a word is
// one of WORDS, case-insensitively. Comments and string literals are not looked at: they may
// explain what the engine leaves to others. `memory` or `release` are not words of the list.
//
// No file is let through (issue 33 item 2 emptied the list of those that still named one).
//   node scripts/engine-words.mjs     (npm run lint runs it)
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const WORDS =
  /^(memo|memos|memoi[sz]e|memoi[sz]ed|memoi[sz]ing|snapshot|snapshots|carry|carries|carried|carrying|lease|leases|credential|credentials)$/i;

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const engine = path.join(root, 'src', 'engine');

/** camelCase, PascalCase, snake_case, kebab-case, paths: the words of a name. */
function words(name) {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean);
}

function findings(file) {
  const text = fs.readFileSync(file, 'utf8');
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found = [];
  const check = (node, name) => {
    const word = words(name).find((w) => WORDS.test(w));
    if (!word) return;
    const { line } = source.getLineAndCharacterOfPosition(node.getStart(source));
    found.push(`${path.relative(root, file)}:${line + 1}: "${name}" names "${word}"`);
  };
  const visit = (node) => {
    if (ts.isIdentifier(node) || ts.isPrivateIdentifier(node)) check(node, node.text);
    else if (
      ts.isStringLiteral(node) &&
      (ts.isImportDeclaration(node.parent) ||
        ts.isExportDeclaration(node.parent) ||
        ts.isExternalModuleReference(node.parent) ||
        (ts.isLiteralTypeNode(node.parent) && ts.isImportTypeNode(node.parent.parent)) ||
        (ts.isCallExpression(node.parent) &&
          node.parent.expression.kind === ts.SyntaxKind.ImportKeyword))
    )
      check(node, node.text);
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

function tsFiles(dir) {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return tsFiles(full);
    return entry.name.endsWith('.ts') ? [full] : [];
  });
}

const problems = tsFiles(engine).flatMap(findings);
for (const line of problems) console.error(line);
if (problems.length > 0)
  console.error(
    `\nengine-words: src/engine/ names a memo, snapshot, carried check, lease or credential ` +
      `(${problems.length} above): leave it to the statement runner (src/database/) or auth; ` +
      'the rule is at the top of scripts/engine-words.mjs.',
  );
process.exit(problems.length > 0 ? 1 : 0);
