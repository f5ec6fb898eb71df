import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { type ErrorBag, type Lookup, validateAll } from '../../src/engine/validation/validator.js';
import { summaryMessage } from '../../src/errors.js';
import { parseRules, type RuleSet } from '../../src/model/rules.js';
import { attributeName } from '../../src/support/attribute-name.js';

type Row = Record<string, unknown>;
interface Call {
  kind: 'exists' | 'taken';
  table: string;
  column: string;
  values: unknown[];
}

/** In-memory Lookup over `tables`, recording every call so batching can be asserted. */
class FakeLookup implements Lookup {
  readonly calls: Call[] = [];
  constructor(private readonly tables: Record<string, Row[]> = {}) {}

  async exists(table: string, column: string, values: unknown[]): Promise<Set<string>> {
    this.calls.push({ kind: 'exists', table, column, values });
    const have = new Set(this.rows(table).map((r) => String(r[column])));
    return new Set(values.map(String).filter((v) => have.has(v)));
  }

  async taken(table: string, column: string, values: unknown[]): Promise<Map<string, string[]>> {
    this.calls.push({ kind: 'taken', table, column, values });
    const wanted = new Set(values.map(String));
    const out = new Map<string, string[]>();
    for (const r of this.rows(table)) {
      const v = String(r[column]);
      if (wanted.has(v)) out.set(v, [...(out.get(v) ?? []), String(r.id)]);
    }
    return out;
  }

  private rows(table: string): Row[] {
    return this.tables[table] ?? [];
  }
}

const db = {
  users: [
    { id: 1, login: 'alice', email: 'alice@example.com' },
    { id: 2, login: 'bob', email: 'bob@example.com' },
  ],
  groups: [{ id: 10 }, { id: 11 }],
};

function validate(
  rules: RuleSet,
  data: Row,
  lookup: Lookup = new FakeLookup(db),
): Promise<ErrorBag> {
  return validateAll([{ data, rules: parseRules(rules) }], lookup);
}

/** Errors for a single field `f` with the given rules and value. */
async function errorsFor(rules: string[], value: unknown): Promise<string[] | undefined> {
  return (await validate({ f: rules }, value === undefined ? {} : { f: value })).f;
}

describe('spec example', () => {
  it('reports every field and summarises the rest', async () => {
    const errors = await validate(
      {
        title: ['required', 'max:200'],
        database_name: ['required'],
        mapping_json: ['required', 'json'],
      },
      { title: '' },
    );
    assert.deepEqual(errors, {
      title: ['The title field is required.'],
      database_name: ['The database name field is required.'],
      mapping_json: ['The mapping json field is required.'],
    });
    assert.equal(summaryMessage(errors), 'The title field is required. (and 2 more errors)');
  });
});

describe('required / nullable / sometimes', () => {
  it('fails on undefined, null, blank strings and empty arrays', async () => {
    for (const value of [undefined, null, '', '   ', ' \t\n\u00a0\u3000\ufeff', [], {}]) {
      assert.deepEqual(
        await errorsFor(['required'], value),
        ['The f field is required.'],
        String(value),
      );
    }
    // What trim() keeps is not blank: a zero-width space is no whitespace.
    assert.equal(await errorsFor(['required'], '\u200b'), undefined);
  });

  it('accepts falsy but present values', async () => {
    for (const value of [0, false, '0', 'x', [1]]) {
      assert.equal(await errorsFor(['required'], value), undefined, String(value));
    }
  });

  it('bails after a failed required', async () => {
    assert.deepEqual(await errorsFor(['required', 'string', 'min:3', 'json'], null), [
      'The f field is required.',
    ]);
  });

  it('skips other rules when the value is absent, null or blank and not required', async () => {
    for (const value of [undefined, null, '', '  ']) {
      assert.equal(await errorsFor(['integer', 'min:5', 'email'], value), undefined, String(value));
    }
    assert.equal(await errorsFor(['nullable', 'integer'], null), undefined);
  });

  it('sometimes skips an absent key but validates a present one', async () => {
    assert.equal(await errorsFor(['sometimes', 'required', 'string'], undefined), undefined);
    assert.deepEqual(await errorsFor(['sometimes', 'required', 'string'], ''), [
      'The f field is required.',
    ]);
    assert.deepEqual(await errorsFor(['sometimes', 'required', 'string'], 5), [
      'The f field must be a string.',
    ]);
  });
});

describe('type rules', () => {
  const cases: Array<[string, string, unknown[], unknown[]]> = [
    ['string', 'The f field must be a string.', ['a', '1'], [1, true, ['a'], { a: 1 }]],
    [
      'integer',
      'The f field must be an integer.',
      [5, -3, '42', '-7', 5.0],
      [5.5, '5.5', '1e3', 'abc', true, false, ' 5'],
    ],
    [
      'numeric',
      'The f field must be a number.',
      [1.5, -2, '3', '-0.5', '1e3', '.5'],
      ['abc', true, 'NaN', '1,5', Infinity],
    ],
    [
      'boolean',
      'The f field must be true or false.',
      [true, false, 0, 1, '0', '1'],
      ['true', 'yes', 2, -1],
    ],
    ['array', 'The f field must be an array.', [[], [1, 2], { a: 1 }], ['a', 1, true]],
    [
      'json',
      'The f field must be a valid JSON string.',
      ['{"a":1}', '[]', '1', '"x"', 'null'],
      ['{a:1}', "{'a':1}", { a: 1 }, 5],
    ],
    [
      'email',
      'The f field must be a valid email address.',
      ['a@b.co', 'first.last+tag@sub.example.org', 'root@localhost'],
      ['a', 'a@', '@b.com', 'a b@c.com', 'a@b..com', 'a@@b.com', 5],
    ],
    [
      'date',
      'The f field must be a valid date.',
      ['2024-02-29', '2024-01-01T10:00:00Z', '2024-01-01 10:00:00', '2024-05-06T07:08:09+02:00'],
      ['2023-02-29', '2024-02-30', '2024-13-01', 'nope', 20240101, true],
    ],
  ];
  for (const [rule, message, good, bad] of cases) {
    it(`${rule}: accepts valid and rejects invalid values with the exact message`, async () => {
      for (const value of good)
        assert.equal(
          await errorsFor([rule], value),
          undefined,
          `${rule} should accept ${JSON.stringify(value)}`,
        );
      for (const value of bad)
        assert.deepEqual(
          await errorsFor([rule], value),
          [message],
          `${rule} should reject ${JSON.stringify(value)}`,
        );
    });
  }

  it('in: compares as strings, message "The selected ... is invalid."', async () => {
    assert.equal(await errorsFor(['in:Y,N'], 'Y'), undefined);
    assert.equal(await errorsFor(['in:1,2'], 2), undefined);
    assert.deepEqual(await errorsFor(['in:Y,N'], 'y'), ['The selected f is invalid.']);
    assert.equal(await errorsFor(['array', 'in:a,b'], ['a', 'b']), undefined);
    assert.deepEqual(await errorsFor(['array', 'in:a,b'], ['a', 'c']), [
      'The selected f is invalid.',
    ]);
  });
});

describe('min / max', () => {
  it('counts characters for strings (code points)', async () => {
    assert.equal(await errorsFor(['string', 'max:3'], 'abc'), undefined);
    assert.equal(await errorsFor(['max:3'], 'héé'), undefined);
    assert.equal(await errorsFor(['max:2'], '😀😀'), undefined);
    assert.deepEqual(await errorsFor(['max:2'], '😀😀😀'), [
      'The f field must not be greater than 2 characters.',
    ]);
    // A lone surrogate is one character, as mb_strlen and [...text] count it.
    assert.equal(await errorsFor(['max:2'], '\ud83d\ud83d'), undefined);
    assert.deepEqual(await errorsFor(['max:1'], '\ud83d\ud83d'), [
      'The f field must not be greater than 1 characters.',
    ]);
    assert.deepEqual(await errorsFor(['string', 'max:3'], 'abcd'), [
      'The f field must not be greater than 3 characters.',
    ]);
    assert.deepEqual(await errorsFor(['string', 'min:3'], 'ab'), [
      'The f field must be at least 3 characters.',
    ]);
  });

  it('compares the value when the field is integer/numeric', async () => {
    assert.equal(await errorsFor(['integer', 'max:10'], 10), undefined);
    assert.equal(await errorsFor(['numeric', 'min:1.5'], '1.5'), undefined);
    assert.deepEqual(await errorsFor(['integer', 'max:10'], 11), [
      'The f field must not be greater than 10.',
    ]);
    assert.deepEqual(await errorsFor(['integer', 'max:10'], '11'), [
      'The f field must not be greater than 10.',
    ]);
    assert.deepEqual(await errorsFor(['numeric', 'min:1.5'], 1.4), [
      'The f field must be at least 1.5.',
    ]);
    // Without a numeric rule a number is measured by its length, as in Laravel.
    assert.equal(await errorsFor(['max:3'], 999), undefined);
    assert.deepEqual(await errorsFor(['max:3'], 1000), [
      'The f field must not be greater than 3 characters.',
    ]);
  });

  it('counts items for arrays', async () => {
    assert.equal(await errorsFor(['array', 'max:2'], [1, 2]), undefined);
    assert.deepEqual(await errorsFor(['array', 'max:2'], [1, 2, 3]), [
      'The f field must not have more than 2 items.',
    ]);
    assert.deepEqual(await errorsFor(['array', 'min:2'], [1]), [
      'The f field must have at least 2 items.',
    ]);
  });
});

describe('several failures on one field', () => {
  it('gives one message per failing rule, in rule order', async () => {
    assert.deepEqual(await errorsFor(['string', 'max:3', 'email'], 12345), [
      'The f field must be a string.',
      'The f field must not be greater than 3 characters.',
      'The f field must be a valid email address.',
    ]);
    assert.deepEqual(await errorsFor(['max:3', 'string'], 12345), [
      'The f field must not be greater than 3 characters.',
      'The f field must be a string.',
    ]);
  });
});

describe('attribute naming', () => {
  it('replaces underscores for top-level fields and keeps nested paths verbatim', () => {
    assert.equal(attributeName('mapping_json'), 'mapping json');
    assert.equal(attributeName('group_id', 'groups.0.'), 'groups.0.group_id');
  });

  it('uses the prefixed key and full path in messages of detail rows', async () => {
    const lookup = new FakeLookup(db);
    const rules = parseRules({
      group_id: ['required', 'integer', 'exists:groups,id'],
      user_name: ['required'],
    });
    const errors = await validateAll(
      [{ data: { group_id: 99 }, rules, prefix: 'groups.0.' }],
      lookup,
    );
    assert.deepEqual(errors, {
      'groups.0.group_id': ['The selected groups.0.group_id is invalid.'],
      'groups.0.user_name': ['The groups.0.user_name field is required.'],
    });
  });
});

describe('exists / unique', () => {
  it('exists passes for known values and fails for unknown ones', async () => {
    assert.equal(await errorsFor(['exists:users,id'], 1), undefined);
    assert.equal(await errorsFor(['exists:users,id'], '2'), undefined);
    assert.deepEqual(await errorsFor(['exists:users,id'], 3), ['The selected f is invalid.']);
    assert.deepEqual(await errorsFor(['array', 'exists:users,id'], [1, 3]), [
      'The selected f is invalid.',
    ]);
  });

  it('unique fails when another id holds the value, and honours ignoreId', async () => {
    assert.equal(await errorsFor(['unique:users,login'], 'carol'), undefined);
    assert.deepEqual(await errorsFor(['unique:users,login'], 'bob'), [
      'The f has already been taken.',
    ]);
    assert.equal(await errorsFor(['unique:users,login,2'], 'bob'), undefined);
    assert.deepEqual(await errorsFor(['unique:users,login,1'], 'bob'), [
      'The f has already been taken.',
    ]);
  });

  it('reports only the pure failure when a pure rule of the field failed', async () => {
    const errors = await validate(
      { login: ['unique:users,login', 'max:2'], email: ['email', 'unique:users'] },
      { login: 'bob' },
    );
    // max fails first, so no lookup is spent on login; email is absent.
    assert.deepEqual(errors, { login: ['The login field must not be greater than 2 characters.'] });
  });

  it('keeps database messages in rule order', async () => {
    assert.deepEqual(await errorsFor(['unique:users,login', 'exists:groups,id'], 'bob'), [
      'The f has already been taken.',
      'The selected f is invalid.',
    ]);
    assert.deepEqual(await errorsFor(['exists:groups,id', 'unique:users,login'], 'bob'), [
      'The selected f is invalid.',
      'The f has already been taken.',
    ]);
  });
});

describe('batching', () => {
  it('makes exactly one lookup per table/column across master and detail rows', async () => {
    const lookup = new FakeLookup(db);
    const master = parseRules({
      owner_id: ['required', 'integer', 'exists:users,id'],
      login: ['unique:users,login'],
    });
    const detail = parseRules({
      user_id: ['required', 'integer', 'exists:users,id'],
      group_id: ['exists:groups,id'],
    });
    const errors = await validateAll(
      [
        { data: { owner_id: 1, login: 'new' }, rules: master },
        { data: { user_id: 2, group_id: 10 }, rules: detail, prefix: 'members.0.' },
        { data: { user_id: 7, group_id: 10 }, rules: detail, prefix: 'members.1.' },
      ],
      lookup,
    );
    assert.deepEqual(errors, {
      'members.1.user_id': ['The selected members.1.user_id is invalid.'],
    });

    const usersId = lookup.calls.filter(
      (c) => c.kind === 'exists' && c.table === 'users' && c.column === 'id',
    );
    assert.equal(usersId.length, 1);
    assert.deepEqual(usersId[0]?.values, [1, 2, 7]);
    const groupsId = lookup.calls.filter((c) => c.table === 'groups');
    assert.equal(groupsId.length, 1);
    assert.deepEqual(groupsId[0]?.values, [10], 'duplicate values are sent once');
    assert.equal(lookup.calls.length, 3, 'users.id exists, groups.id exists, users.login taken');
  });

  it('makes no lookup when there is nothing to look up', async () => {
    const lookup = new FakeLookup(db);
    await validate(
      { user_id: ['exists:users,id'], login: ['unique:users,login'] },
      { user_id: null },
      lookup,
    );
    assert.equal(lookup.calls.length, 0);
  });

  it('does not look up a value that failed another rule of the field', async () => {
    const lookup = new FakeLookup(db);
    const errors = await validate(
      { user_id: ['integer', 'exists:users,id'] },
      { user_id: 'abc' },
      lookup,
    );
    assert.deepEqual(errors, { user_id: ['The user id field must be an integer.'] });
    assert.equal(lookup.calls.length, 0);
  });
});

describe('error bag order', () => {
  it('follows unit order, then field order of the rules', async () => {
    const rules = parseRules({ b: ['required'], a: ['required'] });
    const errors = await validateAll(
      [
        { data: {}, rules },
        { data: {}, rules, prefix: 'rows.0.' },
      ],
      new FakeLookup(),
    );
    assert.deepEqual(Object.keys(errors), ['b', 'a', 'rows.0.b', 'rows.0.a']);
  });
});

describe('summaryMessage', () => {
  it('returns the lone message unchanged', () => {
    assert.equal(summaryMessage({ a: ['The a field is required.'] }), 'The a field is required.');
  });

  it('uses the singular for one more error', () => {
    assert.equal(summaryMessage({ a: ['First.', 'Second.'] }), 'First. (and 1 more error)');
  });

  it('counts all remaining messages across all fields', () => {
    assert.equal(
      summaryMessage({ a: ['First.', 'Second.'], b: ['Third.'], c: ['Fourth.'] }),
      'First. (and 3 more errors)',
    );
  });

  it('falls back to the generic Laravel text for an empty bag', () => {
    assert.equal(summaryMessage({}), 'The given data was invalid.');
  });
});

describe('parseRules', () => {
  it('throws a clear error on an unknown rule', () => {
    assert.throws(
      () => parseRules({ title: ['required', 'strnig'] }),
      /Invalid validation rule "strnig" for field "title": unknown rule "strnig"/,
    );
    assert.throws(
      () => parseRules({ title: ['required|max:200'] }),
      /unknown rule "required\|max"/,
    );
  });

  it('throws on malformed parameters', () => {
    assert.throws(() => parseRules({ a: ['max'] }), /expected max:N/);
    assert.throws(() => parseRules({ a: ['max:ten'] }), /"max" needs a number/);
    assert.throws(() => parseRules({ a: ['required:1'] }), /takes no parameters/);
    assert.throws(() => parseRules({ a: ['exists:'] }), /missing table/);
    assert.throws(() => parseRules({ a: ['unique:t,c,1,id'] }), /expected unique:table/);
  });

  it('parses parameters into a typed form', () => {
    const [field] = parseRules({
      login: [
        'required',
        'string',
        'max:200',
        'in:"a,b",c',
        'exists:users',
        'unique:users,login,5',
      ],
    });
    assert.deepEqual(field, {
      field: 'login',
      required: true,
      sometimes: false,
      numeric: false,
      array: false,
      checks: [
        { name: 'string' },
        { name: 'max', limit: 200, raw: '200' },
        { name: 'in', values: ['a,b', 'c'] },
        // lookup: the batched statement a database rule joins, one per table and column
        { name: 'exists', table: 'users', column: 'login', lookup: '["users","login"]' },
        {
          name: 'unique',
          table: 'users',
          column: 'login',
          ignoreId: '5',
          where: null,
          lookup: '["users","login"]',
        },
      ],
    });
  });
});
