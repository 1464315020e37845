// Issue 29 §3: the simulators are an HTTP server implementing the published contracts. It checks the
// signature of every request (401, nothing applied), refuses replays and requests outside the
// contract (400), takes faults through its own control route, and mounts any system given as a
// plugin entry.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  SIMULATOR_PLUGINS,
  simulatorsOf,
  startSimulatorServer,
  type SimulatorPlugin,
  type SimulatorServer,
} from '../../src/adapters/index.js';
import { contractKey, signContractRequest } from '../../src/adapters/contract-signing.js';
import { createContractClient } from '../../src/adapters/contract-client.js';
import { createHttpSwitchController } from '../../src/adapters/switch.http.js';
import { AdapterError } from '../../src/adapters/types.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { createBuilding, createLocation, createProvider } from '../helpers/factories.js';

let t: TestApp;
let server: SimulatorServer;
let locationId: string;

/** A stand-in of another system, registered by one more entry of the plugin list. */
const echo: SimulatorPlugin = {
  name: 'echo',
  signed: false,
  async plugin(app) {
    app.get('/ping', async () => ({ pong: true }));
  },
};

beforeAll(async () => {
  t = await buildTestApp();
  server = await startSimulatorServer({ db: t.db, clock: t.clock, plugins: [...SIMULATOR_PLUGINS, echo] });
  const p = await createProvider(t.db);
  const b = await createBuilding(t.db, p.id, { units: [] });
  locationId = (await createLocation(t.db, p.id, b.id, null, { port: 'ge-0/0/1' })).id;
  await t.db.updateTable('locations').set({ switch_id: 'sw-01', vlan_id: 120 }).where('id', '=', locationId).execute();
});
afterAll(async () => {
  await server.close();
  await t.close();
});

const ops = () => t.db.selectFrom('sim_switch_operations').select('operation_key').where('location_id', '=', locationId).execute();

/** A raw signed request to the switch simulator (signature computed by this test, then tampered as asked). */
async function raw(
  path: string,
  body: string,
  o: { key?: string; secret?: string; headers?: Record<string, string>; signedPath?: string } = {},
) {
  const signed = signContractRequest(
    contractKey(o.secret ?? server.secretOf('switch')),
    { method: 'POST', path: o.signedPath ?? path, idempotencyKey: o.key ?? 'raw-1', body },
    t.clock.now(),
  );
  const headers = { 'content-type': 'application/json', 'idempotency-key': o.key ?? 'raw-1', ...signed, ...o.headers };
  const res = await fetch(`${server.urlOf('switch')}${path}`, { method: 'POST', headers, body });
  return { status: res.status, body: (await res.json()) as any, headers };
}

describe('simulator server', () => {
  it('the test app itself runs the HTTP adapters against a simulator server of its own', async () => {
    const sim = simulatorsOf(t.deps.adapters);
    await sim.switchController.setCaptivePortal({ operationKey: 'app-own-1', locationId });
    expect(await sim.switchController.getPort(locationId)).toMatchObject({ mode: 'captive_portal', last_operation_key: 'app-own-1' });
  });

  it('refuses a wrong secret, a signature over another path and a stale timestamp with 401, applying nothing', async () => {
    const path = `/ports/${locationId}/reset`;
    const wrong = await raw(path, '{}', { secret: `whsec_${Buffer.alloc(32, 7).toString('base64')}` });
    expect(wrong).toMatchObject({ status: 401, body: { error: { code: 'unauthorized', message: 'no signature matches' } } });
    const moved = await raw(path, '{}', { signedPath: `/ports/${locationId}/captive-portal` });
    expect(moved.status).toBe(401);
    const stale = await raw(path, '{}', { headers: { 'webhook-timestamp': String(Math.floor(t.clock.now().getTime() / 1000) - 600) } });
    expect(stale.body.error.message).toMatch(/outside the 5-minute window/);
    expect((await ops()).map((o) => o.operation_key)).not.toContain('raw-1');
  });

  it('refuses a replayed webhook-id (401) though the signature is right', async () => {
    const path = `/ports/${locationId}/captive-portal`;
    const first = await raw(path, '{}', { key: 'replay-1' });
    expect(first.status).toBe(200);
    const again = await fetch(`${server.urlOf('switch')}${path}`, { method: 'POST', headers: first.headers, body: '{}' });
    expect(again.status).toBe(401);
    expect(await again.json()).toEqual({ error: { code: 'unauthorized', message: 'webhook-id seen before (replay)', retryable: false } });
  });

  it('answers a body outside the contract with 400 invalid_request', async () => {
    const r = await raw(`/ports/${locationId}/bandwidth`, JSON.stringify({ download_mbps: 0, upload_mbps: 10, extra: 1 }), {
      key: 'bad-1',
    });
    expect(r.status).toBe(400);
    expect(r.body.error.code).toBe('invalid_request');
    expect((await ops()).map((o) => o.operation_key)).not.toContain('bad-1');
  });

  it('takes faults through POST /_control/faults (bearer token), as the adapter then sees them', async () => {
    const control = (body: unknown, token = server.controlToken) =>
      fetch(`${server.url}/_control/faults`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
        body: JSON.stringify(body),
      });
    expect((await control({ system: 'switch', mode: 'unreachable' }, 'wrong')).status).toBe(401);
    expect((await control({ system: 'nope', mode: 'unreachable' })).status).toBe(404);
    expect((await control({ system: 'switch', mode: 'sideways' })).status).toBe(400);
    const set = await control({ system: 'switch', mode: 'unreachable', times: 1 });
    expect(await set.json()).toEqual({ system: 'switch', mode: 'unreachable' });
    const read = await fetch(`${server.url}/_control/faults`, { headers: { authorization: `Bearer ${server.controlToken}` } });
    expect(((await read.json()) as any).faults).toEqual({
      switch: { mode: 'unreachable' },
      billing: { mode: 'none' },
      echo: { mode: 'none' },
    });

    const client = createContractClient({
      system: 'switch',
      baseUrl: server.urlOf('switch'),
      secret: server.secretOf('switch'),
      clock: t.clock,
    });
    const sw = createHttpSwitchController({ client });
    const err = await sw.resetPort({ operationKey: 'ctl-1', locationId }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AdapterError);
    expect(err).toMatchObject({ failure: 'unreachable' });
    await sw.resetPort({ operationKey: 'ctl-1', locationId }); // times: 1 used up
    expect((await ops()).map((o) => o.operation_key)).toContain('ctl-1');
  });

  it('mounts another system from its plugin entry under its own prefix', async () => {
    expect(await (await fetch(`${server.urlOf('echo')}/ping`)).json()).toEqual({ pong: true });
    server.faultsOf('echo').set('failing', { times: 1 });
    expect((await fetch(`${server.urlOf('echo')}/ping`)).status).toBe(500);
  });

  it('bound to every interface (SIMULATOR_HOST=0.0.0.0, a container publishing its port), it is called through loopback', async () => {
    const open = await startSimulatorServer({ db: t.db, clock: t.clock, host: '0.0.0.0', plugins: [echo] });
    try {
      expect(open.urlOf('echo')).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/echo$/);
      expect(await (await fetch(`${open.urlOf('echo')}/ping`)).json()).toEqual({ pong: true });
    } finally {
      await open.close();
    }
  });
});
