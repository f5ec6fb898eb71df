// svc make:resource <name> "<description>": scaffolds an entity, a resource and its route line
// in src/app/ from a one-line description of fields and detail rows (cli/resource-description.ts
// has the syntax), so a new master-detail resource is one command plus edits.
import fs from 'node:fs';
import path from 'node:path';
import { singular } from '../../model/declare-entity.js';
import { CliError } from '../cli-error.js';
import type { Command } from '../command.js';
import {
  entitySource,
  parseDescription,
  type ResourceNames,
  resourceSource,
} from '../resource-description.js';
import { formatted, REPOSITORY_ROOT } from './make-migration.js';

const camel = (kebab: string) =>
  kebab.replace(/[-_]([a-z0-9])/g, (_, c: string) => c.toUpperCase());

export function resourceNames(name: string): ResourceNames {
  if (!/^[a-z][a-z0-9]*(-[a-z0-9]+)*$/.test(name))
    throw new CliError(`"${name}" is no resource name: plural, lower case, words joined by -`);
  const one = singular(name);
  const entityVar = camel(one);
  return {
    name,
    table: name.replace(/-/g, '_'),
    entityVar,
    entityName: entityVar.charAt(0).toUpperCase() + entityVar.slice(1),
    resourceVar: camel(name),
    entityFile: one,
  };
}

/** Adds the resource's import and route line to src/app/routes.ts's serviceRoutes. */
function addRoute(routesFile: string, names: ResourceNames): void {
  const text = fs.readFileSync(routesFile, 'utf8');
  const start = text.indexOf('export const serviceRoutes');
  const end = text.indexOf('\n];', start);
  if (start < 0 || end < 0) throw new CliError(`${routesFile} has no serviceRoutes list to add to`);
  const imports = [...text.matchAll(/^import .*;$/gm)];
  const last = imports[imports.length - 1];
  const at = last?.index === undefined ? 0 : last.index + last[0].length;
  const line = `import { ${names.resourceVar} } from './resources/${names.name}.js';`;
  const route = `  resourceRoute('${names.name}', ${names.resourceVar}),`;
  fs.writeFileSync(
    routesFile,
    `${text.slice(0, at)}\n${line}${text.slice(at, end)}\n${route}${text.slice(end)}`,
  );
}

/** Writes the entity, the resource and the route line under `root`; answers the files written. */
export function writeResource(name: string, description: string, root = REPOSITORY_ROOT): string[] {
  const names = resourceNames(name);
  const fields = parseDescription(description);
  const app = path.join(root, 'src/app');
  const entityFile = path.join(app, 'entities', `${names.entityFile}.ts`);
  const resourceFile = path.join(app, 'resources', `${names.name}.ts`);
  const routesFile = path.join(app, 'routes.ts');
  for (const file of [entityFile, resourceFile])
    if (fs.existsSync(file)) throw new CliError(`${path.relative(root, file)} exists already`);
  if (fs.readFileSync(routesFile, 'utf8').includes(`resourceRoute('${name}',`))
    throw new CliError(`src/app/routes.ts routes ${name} already`);
  fs.writeFileSync(entityFile, entitySource(names, fields));
  fs.writeFileSync(resourceFile, resourceSource(names, fields));
  addRoute(routesFile, names);
  const written = [entityFile, resourceFile, routesFile];
  formatted(written, root);
  return written;
}

export const makeResource: Command = {
  summary: 'Scaffold an entity, a resource and its route from a one-line description',
  usage: '<name> "<description>"',
  arguments: {
    '<name>':
      'the plural path name, e.g. suppliers (/api/suppliers, abilities suppliers.read/.write)',
    '<description>':
      'fields as <field>:<type>[(<arguments>)][!][modifiers], space-separated; types string(<n>) text email url integer number boolean flag json enum(<a>,<b>) belongsTo(<table>) hasMany(<fields>); modifiers ! (required) unique index title owner hidden',
  },
  examples: [
    'npx svc make:resource suppliers "name:string(120)! tax_id:string(20)!unique country:enum(NL,BE,DE) active:flag creator:belongsTo(users)owner contacts:hasMany(name:string(120)! email:email)"',
  ],
  async run({ positionals }) {
    const [name, description, ...extra] = positionals;
    if (!name || !description || extra.length > 0)
      throw new CliError('make:resource needs a name and one quoted description');
    const written = writeResource(name, description);
    const shown = written.map((f) => path.relative(REPOSITORY_ROOT, f));
    process.stdout.write(`${JSON.stringify({ written: shown })}\n`);
    process.stderr.write(
      `Wrote ${shown.join(', ')}. Edit them, then \`npm run build\` and \`npx svc make:migration create_${name.replace(/-/g, '_')}\`.\n`,
    );
  },
};
