import fc from 'fast-check';

// fast-check arbitraries from the OpenAPI documents the app serves: values that mostly fit each
// schema (so requests get past validation and reach services and SQL) mixed with hostile ones
// (NUL, lone surrogates, SQL, huge, wrong types) at every position.

export type JsonSchema = {
  $ref?: string;
  type?: string | string[];
  format?: string;
  enum?: unknown[];
  const?: unknown;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  allOf?: JsonSchema[];
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  nullable?: boolean;
};

export interface OpenApiDocument {
  servers?: { url: string }[];
  paths: Record<string, Record<string, Operation>>;
  components?: { schemas?: Record<string, JsonSchema> };
}

export interface Operation {
  parameters?: { name: string; in: 'path' | 'query' | 'header' | 'cookie'; required?: boolean; schema?: JsonSchema }[];
  requestBody?: { content?: Record<string, { schema?: JsonSchema }> };
  security?: Record<string, string[]>[];
}

const anyCodeUnit = fc.integer({ min: 0, max: 0xffff }).map((code) => String.fromCharCode(code));

/** Strings a hostile client sends: what Postgres cannot store, injections, odd Unicode, sizes. */
export const hostileString: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(
    '\u0000',
    'a\u0000b',
    '\ud800',
    'x\udc00y',
    '\udbff\u0000',
    "' OR '1'='1",
    '"; DROP TABLE notes; --',
    '%00',
    '%zz',
    '../../etc/passwd',
    '\u202eevil',
    '😀🐶',
    '',
    ' ',
    'null',
    '-1',
    '1e309',
    '0x10',
    '2026-02-30',
    'NaN',
  ),
  fc.string({ unit: anyCodeUnit, maxLength: 24 }),
  fc.string({ unit: 'grapheme', maxLength: 24 }),
  fc.string({ minLength: 90, maxLength: 130 }),
  fc.string({ minLength: 400, maxLength: 2_000 }),
);

const hostileScalar: fc.Arbitrary<unknown> = fc.oneof(
  hostileString,
  fc.constantFrom(null, true, false, 0, -1, 2 ** 31, 2 ** 53 + 1, 1.5, -0.0001, [], {}),
);

export function resolve(schema: JsonSchema, document: OpenApiDocument): JsonSchema {
  let current = schema;
  for (let hops = 0; current.$ref && hops < 10; hops++) {
    const name = current.$ref.split('/').pop() ?? '';
    current = document.components?.schemas?.[name] ?? {};
  }
  return current;
}

/** Values for `schema`: well-formed about three times in four, hostile otherwise. */
export function valueFor(schema: JsonSchema | undefined, document: OpenApiDocument, depth = 0): fc.Arbitrary<unknown> {
  if (!schema || depth > 4) return hostileScalar;
  return fc.oneof({ weight: 3, arbitrary: fitting(resolve(schema, document), document, depth) }, { weight: 1, arbitrary: hostileScalar });
}

function fitting(schema: JsonSchema, document: OpenApiDocument, depth: number): fc.Arbitrary<unknown> {
  const variants = schema.anyOf ?? schema.oneOf;
  if (variants && variants.length > 0) return fc.oneof(...variants.map((variant) => valueFor(variant, document, depth + 1)));
  if (schema.allOf && schema.allOf.length > 0) return valueFor(schema.allOf[0], document, depth + 1);
  if (schema.const !== undefined) return fc.constant(schema.const);
  if (schema.enum) return fc.constantFrom(...schema.enum);
  const type = Array.isArray(schema.type) ? schema.type.find((candidate) => candidate !== 'null') : schema.type;
  switch (type) {
    case 'string':
      return stringFor(schema);
    case 'integer':
      return fc.integer({ min: schema.minimum ?? -10, max: Math.min(schema.maximum ?? 1_000, 2 ** 31 - 1) });
    case 'number':
      return fc.double({ min: schema.minimum ?? -1_000, max: schema.maximum ?? 1_000, noNaN: true });
    case 'boolean':
      return fc.boolean();
    case 'array':
      return fc.array(valueFor(schema.items, document, depth + 1), { maxLength: 4 });
    case 'object':
      return objectFor(schema, document, depth);
    default:
      return hostileScalar;
  }
}

function stringFor(schema: JsonSchema): fc.Arbitrary<string> {
  switch (schema.format) {
    case 'uuid':
      return fc.uuid({ version: 4 });
    case 'date-time':
      return fc.date({ min: new Date('2020-01-01'), max: new Date('2030-01-01'), noInvalidDate: true }).map((date) => date.toISOString());
    case 'date':
      return fc
        .date({ min: new Date('2020-01-01'), max: new Date('2030-01-01'), noInvalidDate: true })
        .map((date) => date.toISOString().slice(0, 10));
    case 'email':
      return fc.emailAddress();
    case 'uri':
      return fc.constantFrom('http://127.0.0.1:9/hook', 'https://example.invalid/x', 'ftp://x');
    default:
      return fc.string({ minLength: schema.minLength ?? 0, maxLength: Math.min(schema.maxLength ?? 40, 200) });
  }
}

function objectFor(schema: JsonSchema, document: OpenApiDocument, depth: number): fc.Arbitrary<unknown> {
  const properties = Object.fromEntries(
    Object.entries(schema.properties ?? {}).map(([key, child]) => [key, valueFor(child, document, depth + 1)]),
  );
  const known = fc.record(properties, { requiredKeys: schema.required?.filter((key) => key in properties) ?? [] });
  // Now and then a key nobody declared, itself possibly hostile.
  const extra = fc.option(fc.tuple(hostileString, hostileScalar), { freq: 4 });
  return fc.tuple(known, extra).map(([value, added]) => (added ? { ...value, [added[0]]: added[1] } : value));
}

/** A value as it travels in a URL, percent-encoded even when it is not well-formed Unicode. */
export function encodeForUrl(value: unknown): string {
  const text = typeof value === 'string' ? value : (JSON.stringify(value) ?? '');
  if (text === '%zz') return text;
  if (text.isWellFormed()) return encodeURIComponent(text);
  // A lone surrogate has no UTF-8 form: send the bytes a careless encoder (CESU-8) would.
  return [...text]
    .map((char) =>
      char.isWellFormed() ? encodeURIComponent(char) : `%ED%${(0xa0 + ((char.charCodeAt(0) >> 6) & 0x1f)).toString(16).toUpperCase()}%80`,
    )
    .join('');
}
