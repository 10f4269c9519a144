import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
import { jsonSchemaTransform, jsonSchemaTransformObject } from 'fastify-type-provider-zod';
import type { OpenAPIV3_1 } from 'openapi-types';
import type { z } from 'zod';
import type { RouteAccess } from './route-access.ts';
import { declarePublic } from './route-registry.ts';
import { errorBodyFor } from './schemas.ts';

/** One published API: its routes live under `prefix`, and it gets its own OpenAPI document. */
export interface ApiDescription {
  prefix: string;
  title: string;
  version: string;
  description: string;
  securitySchemes: Record<string, OpenAPIV3_1.SecuritySchemeObject>;
  /**
   * The security scheme each kind of route access of this API is documented with, by the kind's key
   * (`{ notesPermission: 'NotesApiKey' }`): an operation's `security` follows from its route's
   * `config.access` (`[]` when public), so access is declared once.
   */
  securityByAccess: Record<string, string>;
}

/**
 * A request body Fastify neither parses nor validates itself (an upload read part by part, a raw
 * body streamed to disk), documented for clients all the same: declared in the route config,
 * `config: { openapiBody }`, since a `schema.body` would be validated. The route still checks it.
 */
export interface DocumentedRequestBody {
  /** Its media type, e.g. `multipart/form-data`. */
  contentType: string;
  /** Its schema; for a multipart body one property per part (a file part: `z.string().meta({ format: 'binary' })`). */
  schema: z.ZodType;
  /** OpenAPI Encoding Objects by part, e.g. `{ metadata: { contentType: 'application/json' } }` for a part holding JSON text. */
  encoding?: Record<string, OpenAPIV3_1.EncodingObject>;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The OpenAPI request body of a route whose body Fastify does not validate (see DocumentedRequestBody). */
    openapiBody?: DocumentedRequestBody;
  }
}

// @fastify/swagger copies a route schema's `x-` keys into the operation: the encoding travels
// there, and sliceDocument moves it into the request body, where OpenAPI wants it.
const ENCODING_KEY = 'x-vetflow-body-encoding';

// Route schemas are zod; @fastify/swagger collects every route once, through the zod transform,
// and each API's document is the slice of paths under its prefix, re-based on its own server URL
// so paths read as in the API description (`/notes/{id}` on `{base_url}` = .../notes/v1).
export async function registerOpenApi(app: FastifyInstance, apis: ApiDescription[], publicBaseUrl: string) {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: { title: 'vetflow', version: '1.0.0', description: 'All vetflow routes. See the per-API documents.' },
      servers: [{ url: publicBaseUrl }],
      components: {
        securitySchemes: Object.assign({}, ...apis.map((api) => api.securitySchemes)),
      },
    },
    transform: (input) => withSecurity(jsonSchemaTransform(withDocumentedBody(input)), input.route.config?.access, apis),
    transformObject: jsonSchemaTransformObject,
  });

  for (const api of apis) {
    let cached: OpenAPIV3_1.Document | undefined;
    app.get(`${api.prefix}/openapi.json`, { config: { access: 'public' }, schema: { hide: true } }, async () => {
      cached ??= sliceDocument(app.swagger() as OpenAPIV3_1.Document, api, publicBaseUrl);
      return cached;
    });
  }

  await app.register(async (scope) => {
    declarePublic(scope);
    await scope.register(swaggerUi, {
      routePrefix: '/docs',
      uiConfig: {
        urls: apis.map((api) => ({ name: api.title, url: `${api.prefix}/openapi.json` })),
        deepLinking: true,
      },
      staticCSP: true,
    });
  });
}

type Transformed = ReturnType<typeof jsonSchemaTransform>;
type TransformInput = Parameters<typeof jsonSchemaTransform>[0];

// For the document only: the route's own schema (what Fastify validates) has no body.
function withDocumentedBody(input: TransformInput): TransformInput {
  const body = input.route.config?.openapiBody;
  if (!body) return input;
  const encoding = body.encoding ? { [ENCODING_KEY]: { [body.contentType]: body.encoding } } : {};
  return { ...input, schema: { ...input.schema, body: body.schema, consumes: [body.contentType], ...encoding } } as TransformInput;
}

/** The encoding a documented body declared, moved from the operation's `x-` key into its request body. */
function withBodyEncoding<Operation extends object>(operation: Operation): Operation {
  const { [ENCODING_KEY]: encodings, ...rest } = operation as Operation & {
    [ENCODING_KEY]?: Record<string, Record<string, OpenAPIV3_1.EncodingObject>>;
    requestBody?: OpenAPIV3_1.RequestBodyObject;
  };
  const body = rest.requestBody;
  if (!encodings || !body) return operation;
  const content = Object.fromEntries(
    Object.entries(body.content).map(([type, media]) => [type, encodings[type] ? { ...media, encoding: encodings[type] } : media]),
  );
  return { ...rest, requestBody: { ...body, content } } as unknown as Operation;
}

// A route schema that states `security` itself keeps it (logout: public, but it reads the session
// cookie when there is one); every other operation's follows from the route's declared access.
function withSecurity(result: Transformed, access: RouteAccess | undefined, apis: ApiDescription[]): Transformed {
  const schema = result.schema as Record<string, unknown> | undefined;
  if (!schema || schema.hide || schema.security !== undefined || access === undefined) return result;
  return { ...result, schema: { ...schema, security: securityOf(access, apis) } } as Transformed;
}

function securityOf(access: RouteAccess, apis: ApiDescription[]): OpenAPIV3_1.SecurityRequirementObject[] {
  if (access === 'public') return [];
  for (const kind of Object.keys(access)) {
    const scheme = apis.map((api) => api.securityByAccess[kind]).find((name) => name !== undefined);
    if (scheme) return [{ [scheme]: [] }];
  }
  throw new Error(`No security scheme documents the route access ${JSON.stringify(access)}`);
}

// What holds for every operation of both APIs, stated once in each document.
const COMMON_RULES =
  '\n\nText anywhere in a request (body, query, path, headers, multipart fields and file names, JSON metadata) ' +
  'must be valid Unicode without NUL (`\\u0000`): such text is refused before it is stored, with 422 `VALIDATION_ERROR` ' +
  '(body, query string) or 400 `INVALID_PARAMETER` (path, headers) naming it in `details.field`. ' +
  'Every operation may answer 503 `SERVICE_UNAVAILABLE` with `Retry-After` (seconds) while the database is unreachable: ' +
  'retry after that pause. Every error, including those for malformed URLs (400), headers over 16 kB (431) and malformed ' +
  'multipart bodies (400), has the flat error body with `request_id`, echoed in `X-Request-Id`.';

// The 503 every operation can give while the database is away, documented on each. Its body schema
// is created here so the full document always has it.
errorBodyFor(503);
const UNAVAILABLE: OpenAPIV3_1.ResponseObject = {
  description: 'The database is unreachable; retry after `Retry-After` seconds (`SERVICE_UNAVAILABLE`).',
  headers: { 'Retry-After': { description: 'Seconds to wait before retrying', schema: { type: 'integer' } } },
  content: { 'application/json': { schema: { $ref: '#/components/schemas/Error503' } } },
};

// What a served document adds to each operation swagger built: the 503, and a documented body's encoding.
function servedItem(item: OpenAPIV3_1.PathItemObject | undefined): OpenAPIV3_1.PathItemObject | undefined {
  if (!item) return item;
  const methods = ['get', 'put', 'post', 'delete', 'patch'] as const;
  const copy: OpenAPIV3_1.PathItemObject = { ...item };
  for (const method of methods) {
    const operation = item[method] && withBodyEncoding(item[method]);
    if (operation?.responses && !operation.responses['503'])
      copy[method] = { ...operation, responses: { ...operation.responses, 503: UNAVAILABLE } } as typeof operation;
    else if (operation) copy[method] = operation;
    const current = copy[method] as Record<string, unknown> | undefined;
    if (current?.[OPTIONAL_BODY]) {
      const { [OPTIONAL_BODY]: _optional, requestBody, ...rest } = current;
      copy[method] = {
        ...rest,
        ...(requestBody ? { requestBody: { ...(requestBody as object), required: false } } : {}),
      } as typeof operation;
    }
  }
  return copy;
}

/**
 * A route schema marked `[OPTIONAL_BODY]: true` takes a JSON body or none (DELETE /notes/{id} with
 * an optional reason): @fastify/swagger writes every body as required, the documents say it is not.
 */
export const OPTIONAL_BODY = 'x-optional-body';

// The project's licence (package.json), stated in each document for integrators' tools.
const LICENSE: OpenAPIV3_1.LicenseObject = { name: 'MIT', url: 'https://opensource.org/licenses/MIT' };

function sliceDocument(full: OpenAPIV3_1.Document, api: ApiDescription, publicBaseUrl: string): OpenAPIV3_1.Document {
  const paths: OpenAPIV3_1.PathsObject = {};
  for (const [path, item] of Object.entries(full.paths ?? {})) {
    if (path.startsWith(`${api.prefix}/`)) paths[path.slice(api.prefix.length)] = servedItem(item);
  }
  return {
    ...full,
    info: { title: api.title, version: api.version, description: `${api.description}${COMMON_RULES}`, license: LICENSE },
    servers: [{ url: `${publicBaseUrl}${api.prefix}` }],
    paths,
    components: { schemas: schemasUsedBy(paths, full.components?.schemas ?? {}), securitySchemes: api.securitySchemes },
  };
}

// Only the schemas this API's operations reach (through any chain of $refs): the registry behind
// the full document holds both APIs' schemas, and each document carries its own.
function schemasUsedBy(
  paths: OpenAPIV3_1.PathsObject,
  all: Record<string, OpenAPIV3_1.SchemaObject>,
): Record<string, OpenAPIV3_1.SchemaObject> {
  const used: Record<string, OpenAPIV3_1.SchemaObject> = {};
  const visit = (node: unknown): void => {
    // Objects and arrays alike: an array's entries are its items.
    if (node === null || typeof node !== 'object') return;
    for (const [key, value] of Object.entries(node)) {
      const name = key === '$ref' && typeof value === 'string' ? value.match(/^#\/components\/schemas\/(.+)$/)?.[1] : undefined;
      if (name !== undefined) {
        const schema = all[name];
        if (schema === undefined || used[name]) continue;
        used[name] = schema;
        visit(schema);
      } else visit(value);
    }
  };
  visit(paths);
  return Object.fromEntries(Object.entries(used).sort(([a], [b]) => a.localeCompare(b)));
}
