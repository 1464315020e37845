// The check every test app runs (test/helpers/declared-errors.ts): a route that answers a 4xx code
// its OpenAPI does not list fails the test file that made the call. Here on a bare Fastify app, so
// the rule is seen working without a database.
import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { holdDeclaredErrors } from '../helpers/declared-errors.js';

async function appAnswering(declaredErrors: Record<string, string[] | null>, status: number, code: string) {
  const app = Fastify();
  const undeclared = holdDeclaredErrors(app);
  app.get('/agent/thing', { config: { declaredErrors } }, async (_request, reply) =>
    reply.code(status).send({ error: { code, message: 'x', request_id: 'r' } }),
  );
  await app.ready();
  await app.inject({ method: 'GET', url: '/agent/thing' });
  await app.close();
  return undeclared();
}

describe('answers are held to what the route declares', () => {
  it('a listed code passes', async () => {
    expect(await appAnswering({ 404: ['customer_not_found'] }, 404, 'customer_not_found')).toEqual([]);
  });

  it('a code its status does not list is reported with the route', async () => {
    expect(await appAnswering({ 404: ['customer_not_found'] }, 404, 'not_found')).toEqual([
      'GET /agent/thing answered 404 not_found, a code its 404 does not list (it lists customer_not_found)',
    ]);
  });

  it('a status the route does not declare is reported', async () => {
    expect(await appAnswering({ 404: ['customer_not_found'] }, 409, 'conflict')).toEqual([
      'GET /agent/thing answered 409 conflict, a status it does not declare',
    ]);
  });

  it("a status declared without a list (the limiter's 429) takes any code; a 5xx is not held", async () => {
    expect(await appAnswering({ 429: null }, 429, 'rate_limited')).toEqual([]);
    expect(await appAnswering({}, 503, 'service_unavailable')).toEqual([]);
  });
});
