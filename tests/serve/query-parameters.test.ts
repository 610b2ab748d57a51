import Fastify from 'fastify';
import { expect, test } from 'vitest';
import { QUERY_PARAMETERS } from '../../src/serve/query-parameters.js';
import { serveRoutes } from '../../src/serve/serve-routes.js';
import type { ServeDeps } from '../../src/serve/serve-options.js';

test('every route of serve says which query parameters it reads, and the table names no route that is gone', async () => {
  const app = Fastify();
  const routes: string[] = [];
  app.addHook('onRoute', (route) => {
    for (const method of [route.method].flat()) if (method !== 'HEAD') routes.push(`${method} ${route.url}`);
  });
  for (const register of serveRoutes) await register(app, { ledger: {}, clock: () => 0 } as unknown as ServeDeps);
  await app.ready();
  expect(routes.sort()).toEqual(Object.keys(QUERY_PARAMETERS).sort());
  await app.close();
});
