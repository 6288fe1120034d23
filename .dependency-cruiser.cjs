// The Worker's layers, checked by `npm run check` (scripts/check-layers.ts). Each layer imports
// only from layers below it, `type` imports included; nothing forms a cycle, between files or
// between folders of src/. docs/architecture.md names the same layers.
//
//   lib       src/lib/: leaves, no project import at all
//   leaves    src/{log,time,expiry,config,errors,schemas}.ts: configuration, the error table, shared zod fields
//   storage   src/storage/: all SQL and R2 keys; rows in, rows out
//   contracts *-contract.ts, src/env.ts, src/limiter/scopes.ts: the types Durable Objects and the Worker share
//   services  every other module of a feature folder: rules, Durable Objects and their clients, no HTTP
//   http      src/http/: what routes share (OpenAPI helpers, route declarations, validation, request deps)
//   middleware src/middleware/: request context, authentication, _perf, Idempotency-Key
//   routes    routes.ts and *-routes.ts of each feature, its OpenAPI additions, pages
//   api       src/api/: the versions' tables of contents and their OpenAPI documents
//   app       src/app.ts, src/index.ts
// The browser's code (src/web/) and the typed client (src/client/) are not part of the Worker.

const LIB = '^src/lib/';
const LEAVES = '^src/(log|time|expiry|config|errors|schemas)[.]ts$';
const STORAGE = '^src/storage/';
const CONTRACTS = '(-contract[.]ts$|^src/env[.]ts$|^src/limiter/scopes[.]ts$)';
const HTTP = '^src/http/';
const MIDDLEWARE = '^src/middleware/';
const ROUTES = '(^src/[^/]+/[a-z-]*routes[.]ts$|^src/[^/]+/openapi[.]ts$|^src/pages/|^src/share/page[.]ts$)';
const API = '^src/api/';
const APP = '^src/(app|index)[.]ts$';
const BROWSER = '^src/(web|client)/';
/** Every module of a feature folder that is none of the above: its rules and objects. */
const SERVICES = `^src/(?!(lib|storage|http|middleware|api|web|client)/)[^/]+/`;

const ABOVE_LEAVES = [STORAGE, CONTRACTS, SERVICES, HTTP, MIDDLEWARE, ROUTES, API, APP];

/** A rule: modules matching `from` must not import modules matching any of `to` (minus `except`). */
const forbid = (name, comment, from, to, except) => ({
  name,
  comment,
  severity: 'error',
  from: { path: from, ...(except?.from ? { pathNot: except.from } : {}) },
  to: { path: `(${to.join('|')})`, ...(except?.to ? { pathNot: except.to } : {}) },
});

module.exports = {
  forbidden: [
    {
      name: 'no-cycle',
      comment: 'No module reaches itself again through its imports (type imports count).',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    forbid('lib-is-a-leaf', 'src/lib/ imports nothing of the project.', LIB, ['^src/(?!lib/)']),
    forbid(
      'leaves-stay-leaves',
      'Configuration, errors and shared fields import only lib/ and each other.',
      LEAVES,
      ABOVE_LEAVES,
    ),
    forbid('storage-knows-no-feature', 'SQL and R2 helpers import only lib/ and the leaves.', STORAGE, [
      CONTRACTS,
      SERVICES,
      HTTP,
      MIDDLEWARE,
      ROUTES,
      API,
      APP,
    ]),
    forbid(
      'contracts-are-types',
      'Contracts and env.ts import only contracts, storage types, lib/ and the leaves.',
      CONTRACTS,
      [SERVICES, HTTP, MIDDLEWARE, ROUTES, API, APP],
      { to: CONTRACTS },
    ),
    forbid(
      'events-import-no-feature',
      'Features emit events; events/ knows none of them.',
      '^src/events/',
      [SERVICES],
      {
        to: '^src/events/',
      },
    ),
    forbid(
      'services-know-no-http',
      'Rules and objects import no HTTP layer: no http/, middleware/, routes or api/.',
      SERVICES,
      [HTTP, MIDDLEWARE, ROUTES, API, APP],
      { from: `(${ROUTES}|${CONTRACTS})` },
    ),
    forbid('http-below-routes', 'http/ serves routes and middleware; it imports neither.', HTTP, [
      MIDDLEWARE,
      ROUTES,
      API,
      APP,
    ]),
    forbid('middleware-below-routes', 'Middleware imports no route, api/ or app.', MIDDLEWARE, [ROUTES, API, APP]),
    forbid('routes-below-api', 'A feature’s routes never import the assembly (api/) or the app.', ROUTES, [API, APP]),
    forbid('api-below-app', 'api/ assembles routes; only the app mounts it.', API, [APP]),
    forbid(
      'worker-holds-no-keys',
      'The Worker checks age headers and lengths only (src/lib/age/: errors, format, length, io); what works with keys stays with clients.',
      '^src/(?!(web|client|lib/age)/)',
      ['^src/lib/age/(index|recipients|stream|meta|identity)[.]ts$', 'node_modules/(age-encryption|@noble/ciphers)/'],
    ),
    forbid(
      'browser-code-apart',
      'The web app and the typed client use no Worker internals beyond lib/, the zod schemas (their types) and event types.',
      BROWSER,
      [STORAGE, HTTP, MIDDLEWARE, API, APP, '^src/(?!(web|client|lib|events)/)[^/]+/'],
      { to: '/schemas[.]ts$' },
    ),
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.js', '.mjs'] },
    exclude: { path: '(^test/|^bench/|^scripts/)' },
  },
};
