// Issue 29 §3: the HTTP adapters' transport. Requests are signed so that the standardwebhooks library
// verifies them (what a provider would use); no answer, a timeout and every non-2xx map to the
// AdapterError kinds the 502/503 paths and job retries already handle.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createContractClient } from '../../src/adapters/contract-client.js';
import { contractKey, contractPayload, contractSignatureProblem, newContractSecret } from '../../src/adapters/contract-signing.js';
import { createHttpBillingSystem } from '../../src/adapters/billing.http.js';
import { createHttpSwitchController } from '../../src/adapters/switch.http.js';
import { AdapterError } from '../../src/adapters/types.js';
import { systemClock } from '../../src/lib/clock.js';
import { freePort } from '../helpers/processes.js';

type Handler = (req: IncomingMessage, body: string, res: ServerResponse) => void;
let server: Server;
let base: string;
let handler: Handler;
const seen: { method: string; url: string; headers: IncomingMessage['headers']; body: string }[] = [];
const secret = newContractSecret();
const LOC = '0193a3c4-5d6e-7f80-9a1b-2c3d4e5f6a7b';

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      seen.push({ method: req.method!, url: req.url!, headers: req.headers, body });
      handler(req, body, res);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/oss/v1`;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

const json = (res: ServerResponse, status: number, body: unknown) => {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
};
const client = (url = base, timeoutMs = 2000) =>
  createContractClient({ system: 'switch', baseUrl: url, secret, clock: systemClock, timeoutMs });

async function failure(p: Promise<unknown>) {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(AdapterError);
  return err as AdapterError;
}

describe('contract request signing', () => {
  it('a request is signed as the standardwebhooks library signs <METHOD> <path>, Idempotency-Key and body (path relative to the base URL)', async () => {
    handler = (_req, _body, res) => json(res, 200, { operation_key: 'job-1', location_id: LOC, action: 'reset_port', applied: true });
    await createHttpSwitchController({ client: client() }).resetPort({ operationKey: 'job-1', locationId: LOC });
    const r = seen.at(-1)!;
    expect(r).toMatchObject({ method: 'POST', url: `/oss/v1/ports/${LOC}/reset`, body: '{}' });
    expect(r.headers['idempotency-key']).toBe('job-1');
    const payload = contractPayload({ method: 'POST', path: `/ports/${LOC}/reset`, idempotencyKey: 'job-1', body: '{}' });
    // The library's sign() over the payload gives the header's signature (its verify() would also JSON.parse the payload).
    const signAt = (p: string) =>
      new Webhook(secret).sign(String(r.headers['webhook-id']), new Date(Number(r.headers['webhook-timestamp']) * 1000), p);
    expect(r.headers['webhook-signature']).toBe(signAt(payload));
    // The same signature does not cover another port, operation or key.
    for (const other of [
      { method: 'POST', path: `/ports/${LOC}/captive-portal`, idempotencyKey: 'job-1', body: '{}' },
      { method: 'POST', path: `/ports/${LOC}/reset`, idempotencyKey: 'job-2', body: '{}' },
    ]) {
      expect(signAt(contractPayload(other))).not.toBe(r.headers['webhook-signature']);
      expect(contractSignatureProblem([contractKey(secret)], other, r.headers, new Date())).toBe('no signature matches');
    }
    expect(
      contractSignatureProblem(
        [contractKey(secret)],
        { method: 'POST', path: `/ports/${LOC}/reset`, idempotencyKey: 'job-1', body: '{}' },
        r.headers,
        new Date(),
      ),
    ).toBeNull();
    expect(
      contractSignatureProblem(
        [contractKey(secret)],
        { method: 'POST', path: `/ports/${LOC}/reset`, idempotencyKey: 'job-1', body: '{}' },
        r.headers,
        new Date(Date.now() + 6 * 60_000),
      ),
    ).toMatch(/outside the 5-minute window/);
  });
});

describe('HTTP adapter failures map to AdapterError kinds', () => {
  const sw = () => createHttpSwitchController({ client: client() });
  const provision = (s = sw()) =>
    s.provisionPort({ operationKey: 'k', locationId: LOC, switchId: 's', port: 'p', vlanId: 7, downloadMbps: 1, uploadMbps: 1 });

  it('nobody listening: unreachable', async () => {
    const dead = createHttpSwitchController({ client: client(`http://127.0.0.1:${await freePort()}`) });
    expect(await failure(provision(dead))).toMatchObject({ system: 'switch', failure: 'unreachable' });
  });

  it('the connection dropped without an answer: unreachable', async () => {
    handler = (req) => req.socket.destroy();
    expect(await failure(provision())).toMatchObject({ failure: 'unreachable' });
  });

  it('no answer within the timeout: timeout', async () => {
    handler = () => undefined; // never answers
    const slow = createHttpSwitchController({ client: client(base, 150) });
    expect(await failure(provision(slow))).toMatchObject({ failure: 'timeout', message: 'switch controller did not answer within 150 ms' });
  });

  it('5xx: failed, "answered with an error" with the code; 4xx: failed, "refused"; 3xx is not followed', async () => {
    handler = (_r, _b, res) => json(res, 503, { error: { code: 'unavailable', message: 'maintenance' } });
    expect(await failure(provision())).toMatchObject({
      failure: 'failed',
      message: 'switch controller answered with an error',
      detail: 'provisionPort, HTTP 503 unavailable: maintenance',
    });
    handler = (_r, _b, res) => json(res, 409, { error: { code: 'idempotency_key_reused', message: 'k was used for reset_port' } });
    expect(await failure(provision())).toMatchObject({
      failure: 'failed',
      message: expect.stringMatching(/refused the request .*HTTP 409.*reset_port/),
    });
    handler = (_r, _b, res) => {
      res.writeHead(302, { location: 'http://example.invalid/' });
      res.end();
    };
    expect(await failure(provision())).toMatchObject({ failure: 'failed', message: expect.stringMatching(/HTTP 302/) });
  });

  it('a 200 outside the contract: failed (nothing is taken from it)', async () => {
    handler = (_r, _b, res) => json(res, 200, { ok: true });
    expect(await failure(provision())).toMatchObject({ failure: 'failed', message: expect.stringMatching(/outside the contract/) });
  });

  it('an operation key that cannot be a header is refused before sending', async () => {
    const before = seen.length;
    const err = await failure(sw().resetPort({ operationKey: 'a b\n', locationId: LOC }));
    expect(err).toMatchObject({ failure: 'failed' });
    expect(seen.length).toBe(before);
  });

  it('billing: a 404 credit note is null; ids that cannot exist are answered without a call', async () => {
    const billing = createHttpBillingSystem({
      client: createContractClient({ system: 'billing', baseUrl: base, secret, clock: systemClock }),
    });
    handler = (_r, _b, res) => json(res, 404, { error: { code: 'not_found', message: 'no such credit note' } });
    expect(await billing.getCreditNote('CN-2026-0001')).toBeNull();
    expect(seen.at(-1)!.url).toBe('/oss/v1/credit-notes/CN-2026-0001');
    const before = seen.length;
    expect(await billing.getCreditNote('../admin')).toBeNull();
    expect(await billing.listCreditNotes('not-a-uuid')).toEqual([]);
    expect(seen.length).toBe(before);
  });
});
