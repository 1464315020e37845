// Issue 29 §4: production never builds a simulator. The switch controller and billing system are
// required at start (one refusal line naming each setting) and are reached over their published
// contracts at the configured URLs.
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { runningSimulatorServers, SIMULATOR_PLUGINS, simulatorsOf, startSimulatorServer } from '../../src/adapters/index.js';
import { ConfigError, loadConfig } from '../../src/config.js';
import { buildTestApp } from '../helpers/app.js';
import { createBuilding, createLocation, createProvider } from '../helpers/factories.js';
import { freePort } from '../helpers/processes.js';
import { productionEnv } from '../helpers/production.js';

function refusals(env: Record<string, string>): string[] {
  try {
    loadConfig(env);
    return [];
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return (err as Error).message.split('\n');
  }
}
const secret = () => `whsec_${randomBytes(32).toString('base64')}`;

describe('production refuses to run without the switch controller and billing system', () => {
  it('no switch URL: refused with one line naming SWITCH_URL (and the same for each missing setting)', () => {
    expect(refusals(productionEnv({ SWITCH_URL: '' }))).toEqual([
      expect.stringMatching(
        /^invalid configuration: SWITCH_URL: required when NODE_ENV=production \(no switch controller simulator runs in production\); set the https base URL/,
      ),
    ]);
    expect(
      refusals(productionEnv({ SWITCH_SECRET: '', BILLING_URL: '', BILLING_SECRET: '' })).map((l) => /: ([A-Z_]+):/.exec(l)?.[1]),
    ).toEqual(['SWITCH_SECRET', 'BILLING_URL', 'BILLING_SECRET']);
  });

  it('http, loopback without TEST_ALLOW_LOOPBACK, a short secret and SIMULATOR_FAULTS are refused', () => {
    expect(refusals(productionEnv({ SWITCH_URL: 'http://switch.example.net/v1' }))).toEqual([
      'invalid configuration: SWITCH_URL: must be an https:// URL when NODE_ENV=production (requests carry subscriber and port data)',
    ]);
    expect(refusals(productionEnv({ BILLING_URL: 'https://127.0.0.1:8443/' }))).toEqual([
      "invalid configuration: BILLING_URL: must not point at this machine (loopback) when NODE_ENV=production; set the billing system's https URL",
    ]);
    expect(refusals(productionEnv({ SWITCH_SECRET: 'whsec_c2hvcnQ=' }))[0]).toMatch(
      /^invalid configuration: SWITCH_SECRET: must hold at least 32 random bytes/,
    );
    expect(refusals(productionEnv({ SIMULATOR_FAULTS: 'switch=unreachable' }))).toEqual([
      'invalid configuration: SIMULATOR_FAULTS: must not be set when NODE_ENV=production (no simulator runs); unset it',
    ]);
  });

  it('outside production a URL without its secret is refused; neither set means the simulators', () => {
    expect(refusals({ NODE_ENV: 'development', SWITCH_URL: 'http://127.0.0.1:9000/switch' })).toEqual([
      'invalid configuration: SWITCH_SECRET: required when SWITCH_URL is set (the secret the switch controller checks)',
    ]);
    expect(refusals({ NODE_ENV: 'development' })).toEqual([]);
  });
});

describe('a production-mode app', () => {
  it('never starts a simulator: its switch calls go, signed with SWITCH_SECRET, to the SWITCH_URL it was given', async () => {
    const port = await freePort();
    const secrets = { switch: secret(), billing: secret() };
    const before = runningSimulatorServers();
    const t = await buildTestApp({
      env: productionEnv({
        TEST_ALLOW_LOOPBACK: 'true',
        VITEST: process.env.VITEST ?? 'true',
        SWITCH_URL: `http://127.0.0.1:${port}/switch`,
        SWITCH_SECRET: secrets.switch,
        BILLING_URL: `http://127.0.0.1:${port}/billing`,
        BILLING_SECRET: secrets.billing,
      }),
    });
    try {
      expect(runningSimulatorServers()).toBe(before);
      expect(t.app.simulators).toBeNull();
      expect(() => simulatorsOf(t.deps.adapters)).toThrow(/not the embedded simulators/);
      expect(() => t.deps.adapters.switchController.faults.set('unreachable')).toThrow(/needs the simulator server/);

      // The test's own stand-in of the provider's switch controller, on the configured URL.
      const server = await startSimulatorServer({ db: t.db, clock: t.clock, port, plugins: SIMULATOR_PLUGINS, secrets });
      try {
        const p = await createProvider(t.db);
        const b = await createBuilding(t.db, p.id, { units: [] });
        const loc = await createLocation(t.db, p.id, b.id, null, { port: 'ge-0/0/3' });
        await t.deps.adapters.switchController.resetPort({ operationKey: 'prod-reset-1', locationId: loc.id });
        expect(server.requests.at(-1)).toMatchObject({ system: 'switch', method: 'POST', path: `/ports/${loc.id}/reset`, status: 200 });
        expect(await t.deps.adapters.billingSystem.listCreditNotes(p.id)).toEqual([]);
        expect(server.requests.at(-1)).toMatchObject({ system: 'billing', status: 200 });
      } finally {
        await server.close();
      }
    } finally {
      await t.close();
    }
  });
});
