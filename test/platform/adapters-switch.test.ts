import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { createBuilding, createLocation, createProvider } from '../helpers/factories.js';
import { resetAllFaults, simulatorsOf, type SimulatedAdapters } from '../../src/adapters/index.js';
import { AdapterError } from '../../src/adapters/types.js';
import { newId, randomAlnum } from '../../src/lib/ids.js';

let t: TestApp;
let sim: SimulatedAdapters;
let providerId: string;
let buildingId: string;

beforeAll(async () => {
  t = await buildTestApp();
  sim = simulatorsOf(t.deps.adapters);
  const p = await createProvider(t.db);
  providerId = p.id;
  buildingId = (await createBuilding(t.db, providerId, { units: [] })).id;
});
afterAll(() => t.close());
afterEach(() => {
  resetAllFaults(sim);
  for (const a of [sim.switchController, sim.billingSystem, sim.cardProcessor, sim.sms]) a.faults.timeoutMs = 5_000;
});

/** Rejects with an AdapterError of that system and failure (returns it for more checks). */
async function expectAdapterError(p: Promise<unknown>, system: AdapterError['system'], failure: AdapterError['failure']) {
  const err = await p.then(
    () => {
      throw new Error('expected the call to fail');
    },
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(AdapterError);
  expect(err).toMatchObject({ system, failure });
  return err as AdapterError;
}

async function location(switchId = 'sw-01', port: string | null = 'ge-0/0/7') {
  const loc = await createLocation(t.db, providerId, buildingId, null, { port });
  await t.db.updateTable('locations').set({ switch_id: switchId, vlan_id: 120 }).where('id', '=', loc.id).execute();
  return loc.id;
}

const spec = (locationId: string, operationKey = `op-${randomAlnum(10)}`) => ({
  operationKey,
  locationId,
  switchId: 'sw-01',
  port: 'ge-0/0/7',
  vlanId: 120,
  downloadMbps: 250,
  uploadMbps: 50,
  macAddress: 'AA-BB-CC-DD-EE-01',
});

const opsOf = (locationId: string) =>
  t.db
    .selectFrom('sim_switch_operations')
    .select(['operation_key', 'action', 'result'])
    .where('location_id', '=', locationId)
    .orderBy('applied_at')
    .execute();

describe('switch controller simulator', () => {
  it('persists the provisioned port in sim_switch_ports (VLAN, bandwidth, MAC normalised)', async () => {
    const loc = await location();
    await sim.switchController.provisionPort(spec(loc, 'prov-1'));
    const port = await sim.switchController.getPort(loc);
    expect(port).toMatchObject({
      mode: 'provisioned',
      switch_id: 'sw-01',
      port: 'ge-0/0/7',
      vlan_id: 120,
      download_mbps: 250,
      upload_mbps: 50,
      mac_address: 'aa:bb:cc:dd:ee:01',
      operations: 1,
      last_operation_key: 'prov-1',
    });
    expect(await opsOf(loc)).toEqual([{ operation_key: 'prov-1', action: 'provision_port', result: {} }]);
  });

  it('applies an operation key once: a retried job repeating it is a no-op that does not count', async () => {
    const loc = await location();
    await sim.switchController.provisionPort(spec(loc, 'prov-a'));
    await sim.switchController.provisionPort({ ...spec(loc, 'prov-a'), downloadMbps: 999 });
    expect(await sim.switchController.getPort(loc)).toMatchObject({ operations: 1, download_mbps: 250 });
  });

  it('stays idempotent when another operation came between the first try and the retry', async () => {
    const loc = await location();
    await sim.switchController.provisionPort(spec(loc, 'prov-x'));
    await sim.switchController.setCaptivePortal({ operationKey: 'suspend-x', locationId: loc });
    await sim.switchController.provisionPort(spec(loc, 'prov-x')); // a late retry of the first job
    expect(await sim.switchController.getPort(loc)).toMatchObject({
      mode: 'captive_portal',
      operations: 2,
      last_operation_key: 'suspend-x',
    });
  });

  it('settles two concurrent calls with one key as one operation', async () => {
    const loc = await location();
    const results = await Promise.allSettled([
      sim.switchController.provisionPort(spec(loc, 'race')),
      sim.switchController.provisionPort(spec(loc, 'race')),
    ]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'fulfilled']);
    expect(await sim.switchController.getPort(loc)).toMatchObject({ operations: 1 });
    expect(await opsOf(loc)).toHaveLength(1);
  });

  it('refuses a key reused for another action, and leaves the port alone', async () => {
    const loc = await location();
    await sim.switchController.provisionPort(spec(loc, 'same-key'));
    const err = await expectAdapterError(sim.switchController.resetPort({ operationKey: 'same-key', locationId: loc }), 'switch', 'failed');
    expect(err.message).toMatch(/already used for provision_port/);
    expect(await sim.switchController.getPort(loc)).toMatchObject({ mode: 'provisioned', operations: 1 });
  });

  it('refuses unknown locations, locations without a switch port and bad specs, persisting nothing', async () => {
    const unknown = newId();
    await expectAdapterError(sim.switchController.provisionPort(spec(unknown)), 'switch', 'failed');
    await expectAdapterError(sim.switchController.setCaptivePortal({ operationKey: 'k1', locationId: unknown }), 'switch', 'failed');
    await expectAdapterError(sim.switchController.provisionPort(spec('not-a-uuid')), 'switch', 'failed');
    const noPort = await location('sw-01', null);
    await expectAdapterError(sim.switchController.provisionPort({ ...spec(noPort), port: null }), 'switch', 'failed');
    const loc = await location();
    await expectAdapterError(sim.switchController.provisionPort({ ...spec(loc), vlanId: 5000 }), 'switch', 'failed');
    await expectAdapterError(sim.switchController.provisionPort({ ...spec(loc), downloadMbps: 0 }), 'switch', 'failed');
    await expectAdapterError(sim.switchController.provisionPort({ ...spec(loc), macAddress: 'nope' }), 'switch', 'failed');
    await expectAdapterError(sim.switchController.provisionPort({ ...spec(loc), operationKey: '' }), 'switch', 'failed');
    for (const id of [unknown, noPort, loc]) {
      expect(await sim.switchController.getPort(id)).toBeNull();
      expect(await opsOf(id)).toEqual([]);
    }
  });

  it('moves a port to captive portal (suspend) and resets it (end of service), clearing VLAN, bandwidth and MAC', async () => {
    const loc = await location();
    await sim.switchController.provisionPort(spec(loc));
    await sim.switchController.setCaptivePortal({ operationKey: `cp-${loc}`, locationId: loc });
    expect(await sim.switchController.getPort(loc)).toMatchObject({ mode: 'captive_portal', vlan_id: 120, operations: 2 });
    await sim.switchController.resetPort({ operationKey: `reset-${loc}`, locationId: loc });
    expect(await sim.switchController.getPort(loc)).toMatchObject({
      mode: 'reset',
      vlan_id: null,
      download_mbps: null,
      upload_mbps: null,
      mac_address: null,
      operations: 3,
    });
  });

  it('applies a bandwidth change on a regular switch ({applied: true})', async () => {
    const loc = await location('sw-07');
    await sim.switchController.provisionPort(spec(loc));
    expect(
      await sim.switchController.updateBandwidth({ operationKey: 'bw-1', locationId: loc, downloadMbps: 500, uploadMbps: 100 }),
    ).toEqual({ applied: true });
    expect(await sim.switchController.getPort(loc)).toMatchObject({
      download_mbps: 500,
      upload_mbps: 100,
      pending_download_mbps: null,
      operations: 2,
    });
  });

  it("holds a bandwidth change for operator confirmation on a 'legacy-' switch ({applied: false}), the same answer on a repeat", async () => {
    const loc = await location('legacy-berlin-3');
    await sim.switchController.provisionPort({ ...spec(loc), switchId: 'legacy-berlin-3' });
    const first = await sim.switchController.updateBandwidth({
      operationKey: 'bw-legacy',
      locationId: loc,
      downloadMbps: 500,
      uploadMbps: 100,
    });
    const again = await sim.switchController.updateBandwidth({
      operationKey: 'bw-legacy',
      locationId: loc,
      downloadMbps: 500,
      uploadMbps: 100,
    });
    expect(first).toEqual({ applied: false });
    expect(again).toEqual({ applied: false });
    expect(await sim.switchController.getPort(loc)).toMatchObject({
      download_mbps: 250,
      upload_mbps: 50,
      pending_download_mbps: 500,
      pending_upload_mbps: 100,
      operations: 2,
    });
  });

  it('unreachable: AdapterError unreachable, nothing applied, and the key still works afterwards', async () => {
    const loc = await location();
    sim.switchController.faults.set('unreachable');
    expect(sim.switchController.faults.mode).toBe('unreachable');
    await expectAdapterError(sim.switchController.provisionPort(spec(loc, 'k-unreach')), 'switch', 'unreachable');
    expect(await sim.switchController.getPort(loc)).toBeNull();
    sim.switchController.faults.reset();
    await sim.switchController.provisionPort(spec(loc, 'k-unreach'));
    expect(await sim.switchController.getPort(loc)).toMatchObject({ operations: 1 });
  });

  it('failing: AdapterError failed, nothing applied', async () => {
    const loc = await location();
    sim.switchController.faults.set('failing');
    await expectAdapterError(
      sim.switchController.updateBandwidth({ operationKey: 'bw-f', locationId: loc, downloadMbps: 10, uploadMbps: 10 }),
      'switch',
      'failed',
    );
    expect(await opsOf(loc)).toEqual([]);
  });

  it('slow within the timeout: answers after the delay', async () => {
    const loc = await location();
    sim.switchController.faults.set('slow', { delayMs: 150 });
    const started = Date.now();
    await sim.switchController.provisionPort(spec(loc));
    expect(Date.now() - started).toBeGreaterThanOrEqual(140);
    expect(await sim.switchController.getPort(loc)).toMatchObject({ operations: 1 });
  });

  it('slow beyond the timeout: AdapterError timeout; the switch still applies it late, and the retry with the same key adds nothing', async () => {
    const loc = await location();
    sim.switchController.faults.timeoutMs = 100;
    sim.switchController.faults.set('slow', { delayMs: 300, times: 1 });
    await expectAdapterError(sim.switchController.provisionPort(spec(loc, 'k-late')), 'switch', 'timeout');
    await new Promise((r) => setTimeout(r, 450));
    expect(await sim.switchController.getPort(loc)).toMatchObject({ operations: 1, last_operation_key: 'k-late' });
    expect(sim.switchController.faults.mode).toBe('none'); // times: 1 used up
    await sim.switchController.provisionPort(spec(loc, 'k-late'));
    expect(await sim.switchController.getPort(loc)).toMatchObject({ operations: 1 });
  });
});

describe('fault control', () => {
  it('applies a fault to `times` calls, then answers normally again', async () => {
    sim.sms.faults.set('failing', { times: 2 });
    await expectAdapterError(sim.sms.send({ to: '+4930123456', text: 'a' }), 'sms', 'failed');
    expect(sim.sms.faults.mode).toBe('failing');
    await expectAdapterError(sim.sms.send({ to: '+4930123456', text: 'b' }), 'sms', 'failed');
    expect(sim.sms.faults.mode).toBe('none');
    await sim.sms.send({ to: '+4930123456', text: 'c' });
    expect(sim.sms.sent.at(-1)).toMatchObject({ text: 'c' });
  });

  it("set('none') and reset() clear a fault; bad options are refused", () => {
    sim.cardProcessor.faults.set('unreachable');
    sim.cardProcessor.faults.set('none');
    expect(sim.cardProcessor.faults.mode).toBe('none');
    sim.cardProcessor.faults.set('slow', { delayMs: 10 });
    sim.cardProcessor.faults.reset();
    expect(sim.cardProcessor.faults.mode).toBe('none');
    expect(() => sim.cardProcessor.faults.set('slow', { delayMs: -1 })).toThrow(RangeError);
    expect(() => sim.cardProcessor.faults.set('failing', { times: 0 })).toThrow(RangeError);
  });

  it('keeps each simulator’s faults to itself', async () => {
    sim.billingSystem.faults.set('unreachable');
    await sim.sms.send({ to: '+4930123456', text: 'still works' });
    expect(sim.switchController.faults.mode).toBe('none');
  });
});
