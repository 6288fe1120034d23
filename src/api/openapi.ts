import type { OpenAPIHono } from '@hono/zod-openapi';
import type { AppEnv } from '../env';
import type { ApiVersion } from '../files/records';
import { tagWithGuides } from '../http/guides';
import { HEADER_COMPONENTS } from '../http/openapi';
import { documentIdempotency } from '../idempotency/openapi';

const DESCRIPTION = `File sharing API. Every request needs \`Authorization: Bearer <API_KEY>\`.
Errors use \`{"error": string, "code": string}\`. Rate-limit headers (\`X-RateLimit-Limit\`,
\`X-RateLimit-Remaining\`, \`X-RateLimit-Reset\` in Unix seconds) are on every authenticated response.
A known path called with another method answers \`405 METHOD_NOT_ALLOWED\` with \`Allow\`; an unknown
path \`404 NOT_FOUND\`.`;

const withComponents = new WeakSet<object>();

/** The OpenAPI 3.1 document of one version, generated from the schemas its router validates with. */
export function openApiDocument(router: OpenAPIHono<AppEnv>, version: ApiVersion, origin: string) {
  if (!withComponents.has(router)) {
    router.openAPIRegistry.registerComponent('securitySchemes', 'apiKey', {
      type: 'http',
      scheme: 'bearer',
      description: 'An API key: esk_ followed by 43 characters',
    });
    for (const [name, header] of Object.entries(HEADER_COMPONENTS)) {
      router.openAPIRegistry.registerComponent('headers', name, header);
    }
    withComponents.add(router);
  }
  const document = router.getOpenAPI31Document({
    openapi: '3.1.0',
    info: {
      title: `edgeshare API ${version}`,
      version: version === 'v1' ? '1.0.0' : '2.0.0',
      description: DESCRIPTION,
    },
    servers: [{ url: `${origin}/api/${version}` }],
    security: [{ apiKey: [] }],
  });
  tagWithGuides(document, origin);
  return version === 'v2' ? documentIdempotency(document) : document;
}

/**
 * Adds a router's operations to a version's document without mounting it there: for a router
 * mounted beside the version's, at the same path (the public file-request paths, before
 * authentication). zod-openapi does this itself for a router mounted on the version's.
 */
export function documentBeside(version: OpenAPIHono<AppEnv>, router: OpenAPIHono<AppEnv>): void {
  for (const definition of router.openAPIRegistry.definitions) {
    if (definition.type !== 'route') throw new Error(`documentBeside merges routes only, not a ${definition.type}`);
    version.openAPIRegistry.registerPath(definition.route);
  }
}
