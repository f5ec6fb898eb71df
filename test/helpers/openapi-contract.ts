// The contract check of issue 17 item 4: a real answer of svc is compared with what
// GET /api/openapi.json says of it. The operation is found by method and path template (a
// concrete path before a templated one, as OpenAPI matches), the response object by status
// (through `$ref` into components/responses), and the parsed JSON body is validated against its
// `application/json` schema with Ajv (JSON Schema 2020-12, the dialect of OpenAPI 3.1), the whole
// document added as one schema so `#/components/schemas/...` refs resolve inside it. Documented
// headers marked `required` must be sent. A status the operation does not document fails with
// the method, path, status and body.
import assert from 'node:assert/strict';
import { Validator } from '@seriousme/openapi-schema-validator';
import Ajv2020 from 'ajv/dist/2020.js';
import type { Reply } from './test-server.js';

type Json = Record<string, any>;

// ajv is CommonJS: under NodeNext its default import is the module, whose export is the class.
const Ajv = Ajv2020 as unknown as typeof Ajv2020.default;

const DOCUMENT_ID = 'openapi.json';
const METHODS = new Set(['get', 'head', 'post', 'put', 'patch', 'delete', 'options', 'trace']);

/** RFC 6901: `~` -> `~0`, `/` -> `~1`. */
export function pointerOf(...tokens: string[]): string {
  return tokens.map((t) => `/${t.replace(/~/g, '~0').replace(/\//g, '~1')}`).join('');
}

const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/i;

/** Formats the document uses, checked simply (ajv-formats is not a dependency). */
const FORMATS = {
  'date-time': (value: string) => DATE_TIME.test(value) && !Number.isNaN(Date.parse(value)),
  email: (value: string) => /^[^\s@]+@[^\s@]+$/.test(value),
  uri: (value: string) => /^[a-z][a-z0-9+.-]*:\S*$/i.test(value),
  password: () => true,
};

const show = (reply: Reply) => reply.text.slice(0, 600);

export interface Matched {
  /** The path template, e.g. `/api/import-templates/{import_template}`. */
  readonly template: string;
  readonly operation: Json;
  /** The JSON pointer of the operation in the document. */
  readonly pointer: string;
}

export class Contract {
  /** `METHOD template status` of every answer checked so far. */
  readonly checked = new Set<string>();
  private readonly ajv: InstanceType<typeof Ajv>;
  private readonly templates: { template: string; pattern: RegExp; params: number }[];

  constructor(readonly document: Json) {
    this.ajv = new Ajv({ strict: false, allErrors: true, formats: FORMATS });
    this.ajv.addSchema(document, DOCUMENT_ID);
    this.templates = Object.keys(document.paths ?? {})
      .map((template) => ({
        template,
        pattern: new RegExp(
          `^${template
            .split(/\{[^}]+\}/)
            .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
            .join('[^/]+')}$`,
        ),
        params: (template.match(/\{/g) ?? []).length,
      }))
      .sort((a, b) => a.params - b.params);
  }

  /** The document, validated against the OpenAPI 3.1 schema, as the server answers it. */
  static async load(baseUrl: string): Promise<Contract> {
    const response = await fetch(`${baseUrl}/api/openapi.json`);
    assert.equal(response.status, 200, 'GET /api/openapi.json');
    const document = (await response.json()) as Json;
    await assertValidOpenApi(document);
    return new Contract(document);
  }

  /** The operation for a method and a request target (query and a trailing slash ignored). */
  find(method: string, target: string): Matched | undefined {
    const lower = method.toLowerCase();
    const path = new URL(target, 'http://x').pathname.replace(/(.)\/$/, '$1');
    for (const { template, pattern } of this.templates) {
      if (!pattern.test(path)) continue;
      const operation = this.document.paths[template]?.[lower];
      if (operation && METHODS.has(lower))
        return { template, operation, pointer: pointerOf('paths', template, lower) };
    }
    return undefined;
  }

  /** Follows `$ref`s inside the document; returns the object and its pointer. */
  private deref(value: Json, pointer: string): { value: Json; pointer: string } {
    let current = value;
    let at = pointer;
    for (let hops = 0; typeof current?.$ref === 'string'; hops++) {
      assert.ok(hops < 10, `a $ref loop at ${at}`);
      const ref: string = current.$ref;
      assert.ok(ref.startsWith('#/'), `${at}: only local $refs are followed (${ref})`);
      at = ref.slice(1);
      current = at
        .split('/')
        .slice(1)
        .map((t) => t.replace(/~1/g, '/').replace(/~0/g, '~'))
        .reduce<Json>((node, token) => node?.[token], this.document);
      assert.ok(current !== undefined, `${ref} resolves to nothing in the document`);
    }
    return { value: current, pointer: at };
  }

  /** Validates `value` against the schema at `pointer` of the document; returns the errors. */
  errorsAt(pointer: string, value: unknown): string[] {
    const validate = this.ajv.getSchema(`${DOCUMENT_ID}#${pointer}`);
    assert.ok(validate, `no schema at ${pointer}`);
    if (validate(value)) return [];
    return (validate.errors ?? []).map(
      (e: { instancePath: string; message?: string; params: unknown }) =>
        `${e.instancePath || '(body)'} ${e.message ?? ''} ${JSON.stringify(e.params)}`,
    );
  }

  /**
   * Checks one answer against the document: its operation exists, documents the status, sends
   * the documented required headers, and the JSON body validates against the response schema.
   */
  check(method: string, target: string, reply: Reply): Matched {
    const where = `${method} ${target} -> ${reply.status}`;
    const matched = this.find(method, target);
    assert.ok(matched, `${where}: no operation in the document (body ${show(reply)})`);
    const { operation, template } = matched;
    const status = String(reply.status);
    const responses: Json = operation.responses ?? {};
    const key = [status, `${status[0]}XX`, 'default'].find((k) => k in responses);
    assert.ok(
      key,
      `${method} ${template}: status ${status} is not documented (documented: ${Object.keys(
        responses,
      ).join(', ')}); request ${method} ${target}, body ${show(reply)}`,
    );
    const response = this.deref(
      responses[key],
      pointerOf('paths', template, method.toLowerCase(), 'responses', key),
    );
    this.checkHeaders(where, response.value, reply);
    this.checkBody(where, response.value, response.pointer, method, reply);
    this.checked.add(`${method.toUpperCase()} ${template} ${status}`);
    return matched;
  }

  /** An answer to a route svc does not serve: no operation matches, and it is RouteNotFound. */
  checkUnmatched(method: string, target: string, reply: Reply): void {
    const where = `${method} ${target} -> ${reply.status}`;
    assert.equal(this.find(method, target), undefined, `${where}: the document has this operation`);
    assert.equal(reply.status, 404, `${where}: body ${show(reply)}`);
    const name = 'RouteNotFound';
    const response = this.document.components?.responses?.[name];
    assert.ok(response, `${where}: components/responses/${name} is not in the document`);
    this.checkHeaders(where, response, reply);
    this.checkBody(where, response, pointerOf('components', 'responses', name), method, reply);
    this.checked.add(`${method.toUpperCase()} (unmatched) ${reply.status}`);
  }

  /** The documented header of the answer's response (after `$ref`), or undefined. */
  documentedHeader(
    method: string,
    target: string,
    status: number,
    header: string,
  ): Json | undefined {
    const matched = this.find(method, target);
    const response = matched?.operation.responses?.[String(status)];
    if (!matched || !response) return undefined;
    const { value } = this.deref(response, matched.pointer);
    const headers: Json = value.headers ?? {};
    const name = Object.keys(headers).find((h) => h.toLowerCase() === header.toLowerCase());
    return name ? this.deref(headers[name], '').value : undefined;
  }

  private checkHeaders(where: string, response: Json, reply: Reply): void {
    for (const [name, raw] of Object.entries<Json>(response.headers ?? {})) {
      if (name.toLowerCase() === 'content-type') continue;
      const header = this.deref(raw, '').value;
      const value = reply.headers.get(name);
      if (header.required === true)
        assert.ok(value !== null, `${where}: the documented required header ${name} is missing`);
      if (value !== null && header.schema?.type === 'string' && header.schema.enum)
        assert.ok(header.schema.enum.includes(value), `${where}: ${name}: ${value}`);
    }
  }

  private checkBody(
    where: string,
    response: Json,
    pointer: string,
    method: string,
    reply: Reply,
  ): void {
    const content: Json | undefined = response.content;
    if (method.toUpperCase() === 'HEAD' || reply.text === '') {
      assert.equal(reply.text, '', `${where}: a HEAD answer has no body`);
      return;
    }
    assert.ok(content, `${where}: the response documents no body, but one came: ${show(reply)}`);
    const type = (reply.headers.get('content-type') ?? '').split(';')[0]?.trim() ?? '';
    assert.ok(
      type in content,
      `${where}: content type ${type} is not documented (documented: ${Object.keys(content).join(', ')})`,
    );
    if (type !== 'application/json') return;
    assert.ok(reply.body !== undefined, `${where}: the body is not JSON: ${show(reply)}`);
    assert.ok(content[type].schema, `${where}: no schema for ${type}`);
    const errors = this.errorsAt(`${pointer}${pointerOf('content', type, 'schema')}`, reply.body);
    assert.deepStrictEqual(
      errors,
      [],
      `${where}: the body does not match the schema at ${pointer}: ${show(reply)}`,
    );
  }
}

/** Asserts the document is a valid OpenAPI 3.1 document (@seriousme/openapi-schema-validator). */
export async function assertValidOpenApi(document: unknown): Promise<void> {
  const validator = new Validator();
  const result = await validator.validate(document as Parameters<Validator['validate']>[0]);
  assert.deepStrictEqual(
    { valid: result.valid, version: validator.version },
    { valid: true, version: '3.1' },
    `the document is not a valid OpenAPI 3.1 document: ${JSON.stringify(result.errors ?? [], null, 1).slice(0, 2000)}`,
  );
}
