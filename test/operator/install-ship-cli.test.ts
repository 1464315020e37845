// Issue 28 §2 through the operator CLI: `install ship <subscription_id> --carrier … --tracking …` marks
// the install job SHIPPED as the platform operator (any provider), mails the tracking reference and
// records the audit entry with the actor system/ops-cli.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runOps } from '../../src/cli/ops-program.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { mailsTo } from '../billing/fixtures.js';
import { createWorld, installJobOf, subscriber, type World } from '../provisioning/fixtures.js';

let t: TestApp;
let w: World;
let unit = 0;
beforeAll(async () => {
  t = await buildTestApp();
  w = await createWorld(t);
});
afterAll(() => t.close());

async function ops(...argv: string[]) {
  let out = '';
  let err = '';
  const code = await runOps(argv, async () => t.services, { out: (s) => void (out += s), err: (s) => void (err += s) });
  return { code, out, err, json: () => JSON.parse(out) };
}

/** A second-line order: a PENDING_INSTALL subscription whose install job is CREATED (a CPE shipment). */
async function order() {
  const person = subscriber();
  const r = await t.app.inject({
    method: 'POST',
    url: '/provisioning/provider-initiated',
    headers: w.hdr,
    payload: { plan_version_id: w.plan.id, delivery_mode: 'home_drop', unit_id: w.second.units[unit++]!.id, subscriber: person },
  });
  expect(r.statusCode).toBe(201);
  return { id: r.json().subscription_id as string, email: person.email };
}

describe('npm run ops -- install ship', () => {
  it('marks the job SHIPPED, mails the tracking reference, audits as system/ops-cli; a replay mails nothing', async () => {
    const o = await order();
    const r = await ops('install', 'ship', o.id, '--carrier', 'DHL', '--tracking', 'JJD0001234567', '--json');
    expect(r.code).toBe(0);
    const job = (await installJobOf(t, o.id))!;
    expect(r.json()).toEqual({
      subscription_id: o.id,
      install_job_id: job.id,
      status: 'SHIPPED',
      kind: 'cpe_shipment',
      carrier: 'DHL',
      tracking_reference: 'JJD0001234567',
      shipped_at: t.clock.now().toISOString(),
      mailed: true,
    });
    expect(job).toMatchObject({ status: 'SHIPPED', carrier: 'DHL', tracking_reference: 'JJD0001234567' });
    const mails = (await mailsTo(t, o.email)).filter((m) => m.tag === 'installation_shipped');
    expect(mails).toHaveLength(1);
    expect(mails[0]!.text).toContain('JJD0001234567');
    const audit = await t.db
      .selectFrom('audit_entries')
      .select(['actor_type', 'actor', 'provider_id'])
      .where('action', '=', 'install.ship')
      .where('entity_id', '=', o.id)
      .execute();
    expect(audit).toEqual([{ actor_type: 'system', actor: 'ops-cli', provider_id: w.provider.id }]);
    const again = await ops('install', 'ship', o.id, '--carrier', 'DHL', '--tracking', 'JJD0001234567');
    expect(again.code).toBe(0);
    expect(again.out).toContain('no second mail');
    expect((await mailsTo(t, o.email)).filter((m) => m.tag === 'installation_shipped')).toHaveLength(1);
  });

  it('refuses another reference (409), an unknown or malformed subscription, a blank or too long carrier: exit 1, nothing changed', async () => {
    const o = await order();
    await ops('install', 'ship', o.id, '--carrier', 'UPS', '--tracking', '1Z999AA10123456784');
    const other = await ops('install', 'ship', o.id, '--carrier', 'UPS', '--tracking', 'OTHER', '--json');
    expect(other.code).toBe(1);
    expect(JSON.parse(other.err).error).toMatchObject({ status: 409, code: 'conflict' });
    expect((await installJobOf(t, o.id))!.tracking_reference).toBe('1Z999AA10123456784');
    const unknown = await ops('install', 'ship', '00000000-0000-4000-8000-000000000000', '--carrier', 'DHL', '--tracking', 'X1');
    expect(unknown).toMatchObject({ code: 1, err: 'error: Subscription not found\n' });
    expect(await ops('install', 'ship', 'not-a-uuid', '--carrier', 'DHL', '--tracking', 'X1')).toMatchObject({
      code: 1,
      err: 'error: subscription_id: Invalid UUID\n',
    });
    const fresh = await order();
    expect((await ops('install', 'ship', fresh.id, '--carrier', ' ', '--tracking', 'X1')).code).toBe(1);
    expect((await ops('install', 'ship', fresh.id, '--carrier', 'D'.repeat(101), '--tracking', 'X1')).code).toBe(1);
    expect((await installJobOf(t, fresh.id))!.status).toBe('CREATED');
    expect((await ops('install', 'ship', fresh.id, '--carrier', 'DHL')).code).toBe(2);
  });
});
