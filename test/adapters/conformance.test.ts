// Issue 29 §3 "done when": the switch and billing simulators pass the conformance script a provider
// runs against their own endpoint, and every request the HTTP adapters send validates against the
// published OpenAPI documents (checked here with Ajv against the JSON files, independent of the zod
// schemas the simulator server checks them with).
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SIMULATOR_PLUGINS, simulatorsOf, startSimulatorServer, type SimulatorServer } from '../../src/adapters/index.js';
import { newContractSecret } from '../../src/adapters/contract-signing.js';
import { newId, randomAlnum } from '../../src/lib/ids.js';
import { CONTRACT_FILES, contractValidator, runConformance, type Check } from '../../scripts/conformance.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { createBuilding, createLocation, createProvider, createSubscriber } from '../helpers/factories.js';

let t: TestApp;
let server: SimulatorServer;
let locationId: string;
let subscriberId: string;
let providerId: string;

beforeAll(async () => {
  t = await buildTestApp();
  // Signed at the real time, as a provider's run would be: a server on the system clock.
  server = await startSimulatorServer({ db: t.db, plugins: SIMULATOR_PLUGINS });
  const p = await createProvider(t.db);
  providerId = p.id;
  const b = await createBuilding(t.db, p.id, { units: [] });
  locationId = (await createLocation(t.db, p.id, b.id, null, { port: 'ge-0/0/9' })).id;
  await t.db.updateTable('locations').set({ switch_id: 'sw-01', vlan_id: 120 }).where('id', '=', locationId).execute();
  subscriberId = (await createSubscriber(t.db, p.id)).id;
  await t.db
    .insertInto('credit_notes')
    .values({
      id: newId(),
      provider_id: p.id,
      subscriber_id: subscriberId,
      number: `CN-${randomAlnum(8)}`,
      state: 'open',
      amount_cents: 1250,
      currency: 'EUR',
      reason: 'outage credit',
      issued_at: new Date('2026-10-01T00:00:00Z'),
    })
    .execute();
});
afterAll(async () => {
  await server.close();
  await t.close();
});

const failures = (checks: Check[]) => checks.filter((c) => !c.ok).map((c) => `${c.name}: ${c.detail}`);

describe('conformance script (npm run conformance)', () => {
  it('the switch simulator passes every check', async () => {
    const checks = await runConformance({ system: 'switch', url: server.urlOf('switch'), secret: server.secretOf('switch'), locationId });
    expect(failures(checks)).toEqual([]);
    expect(checks.length).toBeGreaterThanOrEqual(11);
    // It ran for real: the port went through provision, bandwidth, captive portal and reset.
    expect((await simulatorsOf(t.deps.adapters).switchController.getPort(locationId))?.mode).toBe('reset');
  });

  it('the billing simulator passes every check, reading a real credit note', async () => {
    const checks = await runConformance({
      system: 'billing',
      url: server.urlOf('billing'),
      secret: server.secretOf('billing'),
      subscriberId,
    });
    expect(failures(checks)).toEqual([]);
    expect(checks.map((c) => c.name)).toContain('getCreditNote of a listed credit note answers it');
  });

  it('fails an implementation that does not check signatures, naming the check', async () => {
    // The script signs with a secret the server does not know: every signed request is refused, so
    // the "accepted" checks fail, and the wrong-signature check alone cannot pass a lax server.
    const checks = await runConformance({ system: 'billing', url: server.urlOf('billing'), secret: newContractSecret(), subscriberId });
    expect(failures(checks)).toContainEqual(expect.stringMatching(/^listCreditNotes answers 200 .*expected HTTP 200, got 401/));
  });
});

describe('the HTTP adapters send what the published contracts describe', () => {
  it('every request body validates against openapi/adapters/*.json; keyed operations carry Idempotency-Key; all are signed', async () => {
    const sim = simulatorsOf(t.deps.adapters);
    const own = t.app.simulators!;
    const validators = {
      switch: contractValidator(JSON.parse(readFileSync(CONTRACT_FILES.switch, 'utf8'))),
      billing: contractValidator(JSON.parse(readFileSync(CONTRACT_FILES.billing, 'utf8'))),
    };
    const calls: [keyof typeof validators, string, () => Promise<unknown>][] = [
      [
        'switch',
        'provisionPort',
        () =>
          sim.switchController.provisionPort({
            operationKey: 'doc-1',
            locationId,
            switchId: 'sw-01',
            port: 'ge-0/0/9',
            vlanId: 120,
            downloadMbps: 250,
            uploadMbps: 50,
            macAddress: 'AA-BB-CC-DD-EE-09',
          }),
      ],
      [
        'switch',
        'updateBandwidth',
        () => sim.switchController.updateBandwidth({ operationKey: 'doc-2', locationId, downloadMbps: 500, uploadMbps: 100 }),
      ],
      ['switch', 'setCaptivePortal', () => sim.switchController.setCaptivePortal({ operationKey: 'doc-3', locationId })],
      ['switch', 'resetPort', () => sim.switchController.resetPort({ operationKey: 'doc-4', locationId })],
      ['billing', 'listCreditNotes', () => sim.billingSystem.listCreditNotes(subscriberId)],
      [
        'billing',
        'getCreditNote',
        async () => sim.billingSystem.getCreditNote((await sim.billingSystem.listCreditNotes(subscriberId))[0]!.id),
      ],
      [
        'billing',
        'rescheduleNextInvoice',
        () => sim.billingSystem.rescheduleNextInvoice({ subscriptionId: newId(), sendDate: '2026-12-05' }),
      ],
    ];
    for (const [system, operationId, call] of calls) {
      await call();
      const req = own.requests.at(-1)!;
      const { path, method, op } = validators[system].operation(operationId);
      expect(req, operationId).toMatchObject({ system, method, status: 200 });
      expect(req.path).toMatch(new RegExp(`^${path.replace(/\{\w+\}/g, '[^/]+')}$`));
      expect(validators[system].request(operationId, req.body ? JSON.parse(req.body) : undefined), operationId).toBeNull();
      expect(Boolean(req.headers['idempotency-key']), operationId).toBe(Boolean(op.requestBody));
      for (const h of ['webhook-id', 'webhook-timestamp', 'webhook-signature']) expect(req.headers[h], `${operationId} ${h}`).toBeTruthy();
    }
    expect(providerId).toBeTruthy();
  });
});
