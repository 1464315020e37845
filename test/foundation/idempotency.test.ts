import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createTestDb, usingPostgres, type TestDb } from '../helpers/db.js';
import { fixedClock } from '../../src/lib/clock.js';
import { idempotent, registerIdempotencyStore } from '../../src/plugins/idempotency.js';
import { createIdempotencyService } from '../../src/modules/idempotency/idempotency.service.js';
import { useAgentErrors } from '../../src/plugins/error-handlers.js';

let testDb: TestDb;
let app: FastifyInstance;
const clock = fixedClock('2026-11-16T10:00:00Z');
let executions = 0;
let gate: Promise<void> | null = null;

beforeAll(async () => {
  testDb = await createTestDb();
  app = Fastify();
  app.decorate('services', { idempotency: createIdempotencyService({ db: testDb.handle.db, clock }) } as never);
  useAgentErrors(app);
  registerIdempotencyStore(app);
  const fakeKey = async (request: any) => {
    request.apiKey = { keyId: 'k', providerId: 'p', prefix: String(request.headers['x-test-key'] ?? 'aaaaaaaa'), features: [] };
  };
  app.post('/things', { preHandler: [fakeKey, idempotent] }, async (request, reply) => {
    executions++;
    if (gate) await gate;
    const body = request.body as { fail?: number; name?: string };
    if (body.fail) return reply.code(body.fail).send({ error: { code: 'x', message: 'failed' } });
    return reply.code(201).send({ id: executions, name: body.name });
  });
  await app.ready();
});
afterAll(async () => {
  await app.close();
  await testDb.drop();
});
beforeEach(() => {
  executions = 0;
  gate = null;
});

const post = (key: string | undefined, body: object, headers: Record<string, string> = {}) =>
  app.inject({ method: 'POST', url: '/things', payload: body, headers: { ...(key ? { 'idempotency-key': key } : {}), ...headers } });

describe('Idempotency-Key', () => {
  it('replays the stored status and body for the same key and body, running the handler once', async () => {
    const first = await post('k-1', { name: 'a' });
    const second = await post('k-1', { name: 'a' });
    expect(first.statusCode).toBe(201);
    expect(second.statusCode).toBe(201);
    expect(second.json()).toEqual(first.json());
    expect(second.headers['idempotent-replayed']).toBe('true');
    expect(executions).toBe(1);
    const row = await testDb.handle.db.selectFrom('idempotency_records').selectAll().where('key', '=', 'k-1').executeTakeFirstOrThrow();
    expect(row).toMatchObject({ status: 'done', response_status: 201, scope: 'key:aaaaaaaa' });
  });

  it('answers 422 for the same key with another body', async () => {
    await post('k-2', { name: 'a' });
    const r = await post('k-2', { name: 'b' });
    expect(r.statusCode).toBe(422);
    expect(r.json().error.code).toBe('idempotency_key_reused');
    expect(executions).toBe(1);
  });

  it('scopes keys to the credential: another key prefix runs its own request', async () => {
    await post('k-3', { name: 'a' });
    const r = await post('k-3', { name: 'a' }, { 'x-test-key': 'bbbbbbbb' });
    expect(r.statusCode).toBe(201);
    expect(executions).toBe(2);
  });

  it('answers 409 while the first request with the key is still running', async () => {
    let open!: () => void;
    gate = new Promise((r) => (open = r));
    const first = post('k-4', { name: 'a' });
    // wait until the first request has claimed the key
    for (let i = 0; i < 50 && executions === 0; i++) await new Promise((r) => setTimeout(r, 10));
    const second = await post('k-4', { name: 'a' });
    expect(second.statusCode).toBe(409);
    expect(second.json().error.code).toBe('idempotency_in_progress');
    open();
    expect((await first).statusCode).toBe(201);
  });

  it('releases the key after a 5xx so a retry runs again, and stores 4xx outcomes', async () => {
    expect((await post('k-5', { fail: 503 })).statusCode).toBe(503);
    expect((await post('k-5', { fail: 503 })).statusCode).toBe(503);
    expect(executions).toBe(2);
    await post('k-6', { fail: 409 });
    await post('k-6', { fail: 409 });
    expect(executions).toBe(3);
  });

  it('forgets a key after 24 hours', async () => {
    await post('k-7', { name: 'a' });
    clock.advance(24 * 3600_000 + 1000);
    const r = await post('k-7', { name: 'b' });
    clock.advance(-(24 * 3600_000 + 1000));
    expect(r.statusCode).toBe(201);
    expect(executions).toBe(2);
  });

  it('rejects a malformed key with 400', async () => {
    const r = await post('bad key with spaces', { name: 'a' });
    expect(r.statusCode).toBe(400);
    expect(executions).toBe(0);
  });

  it('runs the handler once under parallel requests with one key', async () => {
    const rs = await Promise.all(Array.from({ length: 8 }, () => post('k-par', { name: 'p' })));
    const codes = rs.map((r) => r.statusCode).sort();
    expect(executions).toBe(1);
    expect(codes.filter((c) => c === 201).length).toBeGreaterThanOrEqual(1);
    expect(codes.every((c) => c === 201 || c === 409)).toBe(true);
    // on real Postgres the requests truly overlap; embedded runs them one by one
    if (!usingPostgres()) expect(codes.every((c) => c === 201)).toBe(true);
  });
});
