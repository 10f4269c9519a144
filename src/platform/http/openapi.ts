import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
import { jsonSchemaTransform, jsonSchemaTransformObject } from 'fastify-type-provider-zod';
import type { OpenAPIV3_1 } from 'openapi-types';

/** One published API: its routes live under `prefix`, and it gets its own OpenAPI document. */
export interface ApiDescription {
  prefix: string;
  title: string;
  version: string;
  description: string;
  securitySchemes: Record<string, OpenAPIV3_1.SecuritySchemeObject>;
}

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
    transform: jsonSchemaTransform,
    transformObject: jsonSchemaTransformObject,
  });

  for (const api of apis) {
    let cached: OpenAPIV3_1.Document | undefined;
    app.get(`${api.prefix}/openapi.json`, { schema: { hide: true } }, async () => {
      cached ??= sliceDocument(app.swagger() as OpenAPIV3_1.Document, api, publicBaseUrl);
      return cached;
    });
  }

  await app.register(swaggerUi, {
    routePrefix: '/docs',
    uiConfig: {
      urls: apis.map((api) => ({ name: api.title, url: `${api.prefix}/openapi.json` })),
      deepLinking: true,
    },
    staticCSP: true,
  });
}

function sliceDocument(full: OpenAPIV3_1.Document, api: ApiDescription, publicBaseUrl: string): OpenAPIV3_1.Document {
  const paths: OpenAPIV3_1.PathsObject = {};
  for (const [path, item] of Object.entries(full.paths ?? {})) {
    if (path.startsWith(`${api.prefix}/`)) paths[path.slice(api.prefix.length)] = item;
  }
  return {
    ...full,
    info: { title: api.title, version: api.version, description: api.description },
    servers: [{ url: `${publicBaseUrl}${api.prefix}` }],
    paths,
    components: { ...full.components, securitySchemes: api.securitySchemes },
  };
}
