// Test data of the provisioning tests: a provider with buildings of every line type.
import type { TestApp } from '../helpers/app.js';
import { createBuilding, createLocation, createPlanVersion, createProvider, createUser } from '../helpers/factories.js';
import { newId, randomAlnum } from '../../src/lib/ids.js';

export type World = Awaited<ReturnType<typeof createWorld>>;

/** One provider with a plan and one building per line type (first-line with ported locations). */
export async function createWorld(t: TestApp, o: { webhookUrl?: string | null } = {}) {
  const provider = await createProvider(t.db, { webhookUrl: o.webhookUrl ?? null });
  const plan = await createPlanVersion(t.db, provider.id, { down: 500, up: 100 });
  const plan2 = await createPlanVersion(t.db, provider.id, { down: 1000, up: 200 });
  const units = ['1A', '1B', '2A', '2B', '3A', '3B'];
  const first = await createBuilding(t.db, provider.id, { lineType: 'first_line', units });
  const second = await createBuilding(t.db, provider.id, { lineType: 'second_line', units });
  const third = await createBuilding(t.db, provider.id, { lineType: 'third_line', units });
  const unclassified = await createBuilding(t.db, provider.id, { lineType: null, units });
  // Ports of the first-line building: one per unit (captive-portal locations).
  const ports = [];
  for (const u of first.units) ports.push(await createLocation(t.db, provider.id, first.id, u.id));
  const hdr = { 'x-api-key': provider.apiKey };
  const whs = { 'x-webhook-secret': provider.webhookSecret };
  return { provider, plan, plan2, first, second, third, unclassified, ports, hdr, whs };
}

export const subscriber = (email = `sub-${randomAlnum(8)}@example.test`) => ({
  email,
  first_name: 'Erika',
  last_name: 'Mustermann',
  phone: '030 1234567',
});

/** A checkout session row as the checkout module stores it. */
export async function createSession(
  t: TestApp,
  o: {
    providerId: string;
    planVersionId: string;
    buildingId?: string | null;
    unitId?: string | null;
    locationId?: string | null;
    mac?: string | null;
    status?: 'pending' | 'redirected' | 'completed' | 'expired' | 'cancelled';
    createdAt?: Date;
    userId?: string | null;
    partnerReference?: string | null;
  },
) {
  const id = newId();
  const created = o.createdAt ?? t.clock.now();
  await t.db
    .insertInto('checkout_sessions')
    .values({
      id,
      provider_id: o.providerId,
      plan_version_id: o.planVersionId,
      building_id: o.buildingId ?? null,
      unit_id: o.unitId ?? null,
      location_id: o.locationId ?? null,
      mac_address: o.mac ?? null,
      status: o.status ?? 'redirected',
      user_id: o.userId ?? null,
      partner_reference: o.partnerReference ?? null,
      created_at: created,
      updated_at: created,
      redirected_at: (o.status ?? 'redirected') === 'redirected' ? created : null,
    })
    .execute();
  return { id };
}

/** A dashboard JWT of provider staff (or a platform admin). */
export async function staffToken(t: TestApp, providerId: string | null, role: 'service_provider' | 'platform_admin' = 'service_provider') {
  const u = await createUser(t.db, { role, spRole: role === 'service_provider' ? 'support' : null, providerId });
  const tok = await t.services.auth.issueJwt({
    id: u.id,
    role,
    sp_role: role === 'service_provider' ? 'support' : null,
    provider_id: providerId,
  });
  return { authorization: `Bearer ${tok.access_token}`, userId: u.id };
}

export const webhookTypes = async (t: TestApp, subscriptionId: string) =>
  await t.db
    .selectFrom('webhook_deliveries')
    .select(['event_type', 'payload'])
    .where('subscription_id', '=', subscriptionId)
    .orderBy('seq')
    .execute();

export const subscriptionRow = (t: TestApp, id: string) =>
  t.db.selectFrom('subscriptions').selectAll().where('id', '=', id).executeTakeFirstOrThrow();

export const installJobOf = (t: TestApp, subscriptionId: string) =>
  t.db.selectFrom('install_jobs').selectAll().where('subscription_id', '=', subscriptionId).executeTakeFirst();

export const portJobsOf = (t: TestApp, subscriptionId: string) =>
  t.db
    .selectFrom('jobs')
    .selectAll()
    .where('subscription_id', '=', subscriptionId)
    .where('kind', '=', 'provisioning.port')
    .orderBy('created_at')
    .execute();

/** Runs due jobs, moving the clock past retry backoffs, until nothing is due for `rounds` steps. */
export async function drainWithRetries(t: TestApp, rounds = 10, stepMs = 2 * 3_600_000) {
  for (let i = 0; i < rounds; i++) {
    await t.deps.jobs.drain();
    t.clock.advance(stepMs);
  }
  await t.deps.jobs.drain();
}
