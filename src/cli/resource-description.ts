// The one-line description `svc make:resource` reads (docs/development.md), and the entity and
// resource sources it writes from it. A description is fields separated by spaces:
//
//   <field>:<type>[(<arguments>)][<modifiers>]
//
// types: string(<length>) text email url integer number boolean flag (Y/N) json enum(<a>,<b>,..)
// belongsTo(<table>) (the field names the relation; its key is <field>_id, or created_by when
// `owner`) and hasMany(<fields>) (detail rows, described the same way inside the parentheses).
// modifiers: ! (required), unique, index, title (names the record), owner, hidden.
import { CliError } from './cli-error.js';

export interface DescribedField {
  readonly name: string;
  readonly type: string;
  readonly args: readonly string[];
  readonly required: boolean;
  readonly modifiers: ReadonlySet<string>;
  /** hasMany: the detail rows' fields. */
  readonly fields: readonly DescribedField[];
}

const TYPES = [
  'string',
  'text',
  'email',
  'url',
  'integer',
  'number',
  'boolean',
  'flag',
  'json',
  'enum',
  'belongsTo',
  'hasMany',
];
const MODIFIERS = ['unique', 'index', 'title', 'owner', 'hidden'];

/** Splits on spaces outside parentheses. */
function tokens(text: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let current = '';
  for (const ch of text) {
    if (ch === '(') depth += 1;
    if (ch === ')') depth -= 1;
    if (depth < 0) throw new CliError(`unbalanced ")" in "${text}"`);
    if (/\s/.test(ch) && depth === 0) {
      if (current) out.push(current);
      current = '';
    } else current += ch;
  }
  if (depth !== 0) throw new CliError(`unbalanced "(" in "${text}"`);
  if (current) out.push(current);
  return out;
}

export function parseDescription(text: string): DescribedField[] {
  const fields = tokens(text).map(parseField);
  if (fields.length === 0) throw new CliError('the description names no field');
  const names = new Set<string>();
  for (const f of fields) {
    if (names.has(f.name)) throw new CliError(`field "${f.name}" is described twice`);
    names.add(f.name);
  }
  return fields;
}

function parseField(token: string): DescribedField {
  const match = /^([a-z][a-z0-9_]*):([a-zA-Z]+)(?:\((.*)\))?(.*)$/s.exec(token);
  if (!match) throw new CliError(`"${token}" is not <field>:<type>[(<arguments>)][!][modifiers]`);
  const [, name = '', type = '', inner, rest = ''] = match;
  if (!TYPES.includes(type))
    throw new CliError(`"${token}": unknown type "${type}" (types: ${TYPES.join(', ')})`);
  const words = rest.split(/[!,\s]+/).filter(Boolean);
  for (const word of words)
    if (!MODIFIERS.includes(word))
      throw new CliError(`"${token}": unknown modifier "${word}" (! ${MODIFIERS.join(' ')})`);
  const nested = type === 'hasMany';
  if ((type === 'enum' || type === 'belongsTo' || nested) && !inner)
    throw new CliError(`"${token}": ${type} needs its arguments in parentheses`);
  return {
    name,
    type,
    args: nested || inner === undefined ? [] : inner.split(',').map((a) => a.trim()),
    required: rest.includes('!'),
    modifiers: new Set(words),
    fields: nested ? parseDescription(inner ?? '') : [],
  };
}

const quoted = (values: readonly string[]) => `[${values.map((v) => `'${v}'`).join(', ')}]`;

/** The key column of a belongsTo field. */
export const keyOf = (f: DescribedField) =>
  f.modifiers.has('owner') ? 'created_by' : `${f.name}_id`;

/** One field's declaration (fields.ts), e.g. `name: field.string(120).required().title(),`. */
function declaration(f: DescribedField, title: string | null): string {
  const base: Record<string, () => string> = {
    string: () => `field.string(${f.args[0] || 255})`,
    text: () => 'field.text()',
    email: () => 'field.email()',
    url: () => 'field.url()',
    integer: () => 'field.integer()',
    number: () => 'field.number()',
    boolean: () => 'field.boolean()',
    flag: () => "field.flag('Y')",
    json: () => 'field.json()',
    enum: () => `field.enum(${quoted(f.args)})`,
    belongsTo: () => `field.belongsTo('${f.args[0]}')`,
  };
  const chain = [base[f.type]?.() ?? ''];
  if (f.required) chain.push('required()');
  if (f.modifiers.has('unique')) chain.push('unique()');
  // The title orders the list (defaultOrder): indexed unless unique already.
  if (f.modifiers.has('index') || (f.name === title && !f.modifiers.has('unique')))
    chain.push('index()');
  if (f.modifiers.has('hidden')) chain.push('hidden()');
  if (f.modifiers.has('owner')) chain.push('owner()');
  if (f.name === title) chain.push('title()');
  if (f.type === 'belongsTo') chain.push(`relation('${f.name}')`);
  const name = f.type === 'belongsTo' ? keyOf(f) : f.name;
  return `${name}: ${chain.join('.')},`;
}

/** The field that names a record: the one marked `title`, else the first string. */
export function titleOf(fields: readonly DescribedField[]): string | null {
  const marked = fields.find((f) => f.modifiers.has('title'));
  return (marked ?? fields.find((f) => f.type === 'string'))?.name ?? null;
}

function entries(fields: readonly DescribedField[], indent: string, top: boolean): string[] {
  const title = top ? titleOf(fields) : null;
  const lines: string[] = [];
  for (const f of fields) {
    if (f.type !== 'hasMany') lines.push(`${indent}${declaration(f, title)}`);
  }
  if (top) lines.push(`${indent}...timestamps(),`);
  for (const f of fields.filter((d) => d.type === 'hasMany')) {
    lines.push(`${indent}${f.name}: details({`);
    lines.push(...entries(f.fields, `${indent}  `, false));
    lines.push(`${indent}}),`);
  }
  return lines;
}

export interface ResourceNames {
  /** The route's name and path segment: `suppliers`, `purchase-orders`. */
  readonly name: string;
  readonly table: string;
  /** `supplier`, `purchaseOrder`: the entity's variable; `Supplier`: its name. */
  readonly entityVar: string;
  readonly entityName: string;
  /** `suppliers`, `purchaseOrders`: the resource's variable. */
  readonly resourceVar: string;
  /** `supplier`, `purchase-order`: the entity file's name. */
  readonly entityFile: string;
}

export function entitySource(names: ResourceNames, fields: readonly DescribedField[]): string {
  const hasDetails = fields.some((f) => f.type === 'hasMany');
  return `// ${names.entityName}: made by \`npx svc make:resource ${names.name}\`; edit it (docs/development.md).
import { ${hasDetails ? 'details, ' : ''}entity } from '../../model/declare-entity.js';
import { field, timestamps } from '../../model/fields.js';

export const ${names.entityVar} = entity('${names.entityName}', '${names.table}', {
${entries(fields, '  ', true).join('\n')}
});
`;
}

export function resourceSource(names: ResourceNames, fields: readonly DescribedField[]): string {
  const title = titleOf(fields);
  const scalar = fields.filter((f) => f.type !== 'hasMany' && !f.modifiers.has('hidden'));
  // Filters on what a person looks a record up by: its title, keys, choices and flags.
  const searchable = scalar
    .filter(
      (f) =>
        f.name === title ||
        f.modifiers.has('unique') ||
        f.modifiers.has('index') ||
        ['enum', 'flag', 'boolean', 'belongsTo'].includes(f.type),
    )
    .map((f) => (f.type === 'belongsTo' ? keyOf(f) : f.name));
  const sortable = [...(title ? [title] : []), 'created_at', 'updated_at'];
  const related = fields.filter((f) => f.type === 'belongsTo').map((f) => f.name);
  const detail = fields.filter((f) => f.type === 'hasMany').map((f) => f.name);
  const settings = [
    `model: ${names.entityVar},`,
    `searchable: ${quoted(searchable)},`,
    `sortable: ${quoted(sortable)},`,
    ...(related.length > 0 ? [`with: ${quoted(related)},`] : []),
    ...(detail.length > 0 ? [`details: ${quoted(detail)},`] : []),
    `defaultOrder: '${title ?? 'id'} asc',`,
  ];
  return `// /api/${names.name}: made by \`npx svc make:resource\`; edit it (docs/development.md).
import { defineResource } from '../../engine/definition/define-resource.js';
import { ${names.entityVar} } from '../entities/${names.entityFile}.js';

export const ${names.resourceVar} = defineResource({
${settings.map((s) => `  ${s}`).join('\n')}
});
`;
}
