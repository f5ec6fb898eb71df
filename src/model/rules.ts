// Rule strings ('max:200', 'exists:groups,id') are parsed once at boot so a
// typo in a resource definition fails fast instead of on the first request.

export type RuleSet = Record<string, readonly string[]>;

type SimpleName =
  | 'string'
  | 'integer'
  | 'numeric'
  | 'boolean'
  | 'array'
  | 'json'
  | 'email'
  | 'date'
  | 'url';

/** Rules that only test the value itself. */
export type PureRule =
  | { readonly name: SimpleName }
  | { readonly name: 'max' | 'min'; readonly limit: number; readonly raw: string }
  | { readonly name: 'in'; readonly values: readonly string[] };

/** Rules answered by the database, in one batched lookup per table/column. */
export type DbRule =
  | {
      readonly name: 'exists';
      readonly table: string;
      readonly column: string;
      readonly lookup: string;
    }
  | {
      readonly name: 'unique';
      readonly table: string;
      readonly column: string;
      readonly ignoreId: string | null;
      /** Laravel's extra where clause: only rows with this column value count (null: IS NULL). */
      readonly where: UniqueWhere | null;
      readonly lookup: string;
    };

export interface UniqueWhere {
  readonly column: string;
  readonly value: string | null;
}

export type CheckRule = PureRule | DbRule;

export interface FieldRules {
  readonly field: string;
  /** Checks in declared order; required/nullable/sometimes become the flags below. */
  readonly checks: readonly CheckRule[];
  readonly required: boolean;
  /** Skip the whole field when its key is absent from the data. */
  readonly sometimes: boolean;
  /** integer/numeric present: min/max compare the value, not its length. */
  readonly numeric: boolean;
  /** array present: min/max messages talk about items. */
  readonly array: boolean;
}

export type ParsedRuleSet = readonly FieldRules[];

type Modifier = 'required' | 'nullable' | 'sometimes';
export type ParsedRule = CheckRule | { readonly name: Modifier };

const SIMPLE: readonly string[] = [
  'string',
  'integer',
  'numeric',
  'boolean',
  'array',
  'json',
  'email',
  'date',
  'url',
] satisfies SimpleName[];
// nullable is accepted for Laravel compatibility; null already skips non-required rules here.
const MODIFIERS: readonly string[] = ['required', 'nullable', 'sometimes'] satisfies Modifier[];

const isSimple = (name: string): name is SimpleName | Modifier =>
  SIMPLE.includes(name) || MODIFIERS.includes(name);
const isCheck = (rule: ParsedRule): rule is CheckRule => !MODIFIERS.includes(rule.name);

const parsedSets = new Map<string, ParsedRuleSet>();
const PARSED_SETS_LIMIT = 1000;

/** The last sets asked for, compared field by field: a repeated set costs no string at all. */
const recent: Array<{
  readonly fields: readonly string[];
  readonly rules: RuleSet;
  readonly parsed: ParsedRuleSet;
}> = [];
const RECENT_LIMIT = 16;

function sameRules(
  fields: readonly string[],
  rules: RuleSet,
  other: RuleSet,
  otherFields: readonly string[],
): boolean {
  if (fields.length !== otherFields.length) return false;
  for (let f = 0; f < fields.length; f += 1) {
    const field = fields[f] as string;
    if (field !== otherFields[f]) return false;
    const list = rules[field] ?? [];
    const otherList = other[field] ?? [];
    if (list.length !== otherList.length) return false;
    for (let i = 0; i < list.length; i += 1) if (list[i] !== otherList[i]) return false;
  }
  return true;
}

/** Parsed once per distinct rule set: entities build their rules anew for every write. */
export function parseRules(rules: RuleSet): ParsedRuleSet {
  const fields = Object.keys(rules);
  for (const entry of recent)
    if (sameRules(entry.fields, entry.rules, rules, fields)) return entry.parsed;
  const signature = JSON.stringify(rules);
  let parsed = parsedSets.get(signature);
  if (!parsed) {
    parsed = Object.entries(rules).map(([field, list]) => parseField(field, list));
    if (parsedSets.size >= PARSED_SETS_LIMIT) parsedSets.clear();
    parsedSets.set(signature, parsed);
  }
  // A copy: the caller's object is its own to change.
  const copy: RuleSet = {};
  for (const field of fields) copy[field] = [...(rules[field] ?? [])];
  recent.unshift({ fields, rules: copy, parsed });
  if (recent.length > RECENT_LIMIT) recent.pop();
  return parsed;
}

function parseField(field: string, list: readonly string[]): FieldRules {
  const names = new Set<string>();
  const checks: CheckRule[] = [];
  for (const raw of list) {
    const rule = parseRule(field, raw);
    names.add(rule.name);
    if (isCheck(rule)) checks.push(rule);
  }
  return {
    field,
    checks,
    required: names.has('required'),
    sometimes: names.has('sometimes'),
    numeric: names.has('integer') || names.has('numeric'),
    array: names.has('array'),
  };
}

export function parseRule(field: string, raw: string): ParsedRule {
  const colon = raw.indexOf(':');
  const name = (colon < 0 ? raw : raw.slice(0, colon)).trim().toLowerCase();
  const params = colon < 0 ? null : splitParams(raw.slice(colon + 1));
  const fail = (why: string): never => {
    throw new Error(`Invalid validation rule "${raw}" for field "${field}": ${why}`);
  };
  const expect = (max: number, usage: string): string[] => {
    if (params === null || params.length > max) fail(`expected ${usage}`);
    return params ?? [];
  };

  if (isSimple(name)) {
    if (params !== null) fail(`"${name}" takes no parameters`);
    return { name };
  }
  switch (name) {
    case 'max':
    case 'min': {
      const text = (expect(1, `${name}:N`)[0] ?? '').trim();
      const limit = Number(text);
      if (text === '' || !Number.isFinite(limit)) fail(`"${name}" needs a number`);
      return { name, limit, raw: text };
    }
    case 'in':
      return { name, values: expect(Infinity, 'in:a,b,...') };
    case 'exists': {
      const [table = '', column] = expect(2, 'exists:table[,column]');
      if (table === '') fail('missing table');
      // Laravel defaults the column to the attribute name.
      return { name, table, column: column || field, lookup: lookupKey(table, column || field) };
    }
    case 'unique': {
      // Laravel's form: unique:table,column,except,idColumn,whereColumn,whereValue (the id
      // column is always the entity's key here; a where value NULL means IS NULL).
      const usage = 'unique:table[,column[,ignoreId[,idColumn,whereColumn,whereValue]]]';
      const list = expect(6, usage);
      const [table = '', column, ignore, , whereColumn, whereValue] = list;
      if (table === '') fail('missing table');
      if (list.length > 3 && (list.length !== 6 || whereColumn === '')) fail(`expected ${usage}`);
      const ignoreId = ignore === undefined || ignore === '' || ignore === 'NULL' ? null : ignore;
      const where =
        whereColumn === undefined
          ? null
          : { column: whereColumn, value: whereValue === 'NULL' ? null : (whereValue ?? null) };
      return {
        name,
        table,
        column: column || field,
        ignoreId,
        where,
        lookup: where
          ? JSON.stringify([table, column || field, where.column, where.value])
          : lookupKey(table, column || field),
      };
    }
    default:
      return fail(`unknown rule "${name}"`);
  }
}

/** The batched lookup a database rule joins: one per table and column. */
function lookupKey(table: string, column: string): string {
  return JSON.stringify([table, column]);
}

// Laravel splits parameters with str_getcsv, so "in:\"a,b\",c" keeps the comma inside quotes.
function splitParams(text: string): string[] {
  const out: string[] = [];
  let cur = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (quoted && ch === '"' && text[i + 1] === '"') {
      cur += '"'; // doubled quote is an escaped quote
      i++;
    } else if (ch === '"' && (quoted || cur === '')) {
      quoted = !quoted;
    } else if (ch === ',' && !quoted) {
      out.push(cur);
      cur = '';
    } else {
      cur += ch;
    }
  }
  out.push(cur);
  return out;
}
