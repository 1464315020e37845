import type { Config } from '../../config.js';
import type { Db } from '../../db/database.js';
import type { Clock } from '../../lib/clock.js';
import { conflict, forbidden, serviceUnavailable, unprocessable } from '../../lib/errors.js';
import { newId } from '../../lib/ids.js';
import { formatCents } from '../../lib/money.js';
import * as repo from './checkout.repository.js';
import { findProvider } from '../providers/index.js';
import type { SessionViewRow } from './checkout.repository.js';
import {
  assertNotGone,
  gateSessionAt,
  isPastTtl,
  sessionExpiredError,
  sessionExpiresAt,
  sessionNotFoundError,
  SESSION_TTL_MS,
} from './checkout.sessions.js';

export interface CreateSessionInput {
  provider_id: string;
  plan_version_id: string;
  location_hash?: string | null;
  unit_id?: string | null;
  building_id?: string | null;
  mac_address?: string | null;
  partner_reference?: string | null;
}

export interface PatchSessionInput {
  plan_version_id?: string;
  partner_reference?: string | null;
}

/** Appends `session_id` to the provider's checkout address, before any fragment, with `&` when it already has a query. */
function checkoutUrlFor(base: string, sessionId: string): string {
  const hash = base.indexOf('#');
  const head = hash >= 0 ? base.slice(0, hash) : base;
  const fragment = hash >= 0 ? base.slice(hash) : '';
  const sep = !head.includes('?') ? '?' : head.endsWith('?') || head.endsWith('&') ? '' : '&';
  return `${head}${sep}session_id=${encodeURIComponent(sessionId)}${fragment}`;
}

/** The fake payment page the server serves in sandbox mode; the demo provider's external_checkout_url. */
export const sandboxCheckoutUrl = (config: Pick<Config, 'publicBaseUrl'>) => `${config.publicBaseUrl}/sandbox/checkout`;

const normaliseMac = (mac: string) => mac.toUpperCase().replace(/-/g, ':');

const invalid = (field: string, message: string) => unprocessable(`${field}: ${message}`);

function brandingOf(raw: unknown) {
  const b = (raw && typeof raw === 'object' ? raw : {}) as Record<string, unknown>;
  const s = (v: unknown) => (typeof v === 'string' && v.length > 0 ? v : null);
  return { display_name: s(b.display_name), logo_url: s(b.logo_url), primary_color: s(b.primary_color), support_phone: s(b.support_phone) };
}

/** The partner's view of a session: plan, unit with building (`units.buildings`), provider. */
export function toSessionView(v: SessionViewRow) {
  return {
    session_id: v.id,
    status: v.status as repo.SessionStatus,
    provider_id: v.provider_id,
    plan_version_id: v.plan_version_id,
    building_id: v.building_id,
    unit_id: v.unit_id,
    partner_reference: v.partner_reference,
    subscription_id: v.subscription_id,
    subscription_status: v.subscription_status ?? null,
    created_at: v.created_at.toISOString(),
    expires_at: v.status === 'pending' ? sessionExpiresAt(v.created_at).toISOString() : null,
    redirected_at: v.redirected_at?.toISOString() ?? null,
    completed_at: v.completed_at?.toISOString() ?? null,
    plan: {
      plan_version_id: v.plan_version_id,
      name: v.plan_name,
      monthly_price: formatCents(v.monthly_price_cents),
      currency: v.currency,
      store_product_id: v.store_product_id,
      bandwidth: { download_mbps: v.download_mbps, upload_mbps: v.upload_mbps },
    },
    units:
      v.building_id === null && v.unit_id === null
        ? null
        : {
            unit_id: v.unit_id,
            label: v.unit_label ?? null,
            floor: v.unit_floor ?? null,
            buildings: {
              building_id: v.building_id,
              street: v.street ?? null,
              house_number: v.house_number ?? null,
              city: v.city ?? null,
              postal_code: v.postal_code ?? null,
              province: v.province ?? null,
              country: v.country ?? null,
            },
          },
    provider: { id: v.provider_id, name: v.provider_name, branding: brandingOf(v.branding) },
  };
}

export type SessionView = ReturnType<typeof toSessionView>;

export interface CheckoutDeps {
  db: Db;
  clock: Clock;
}

export function createCheckoutService(deps: CheckoutDeps) {
  const { db, clock } = deps;

  async function loadView(id: string) {
    const v = await repo.findSessionView(db, id);
    if (!v) throw sessionNotFoundError();
    return v;
  }

  /** Marketplace-only: validates the references against the provider, then records a pending session. */
  async function create(input: CreateSessionInput, userId: string | null) {
    const provider = await findProvider(db, input.provider_id);
    if (!provider || provider.disabled) throw invalid('provider_id', 'unknown provider');
    const plan = await repo.findPlanVersion(db, input.plan_version_id);
    if (!plan || plan.provider_id !== provider.id || !plan.active)
      throw invalid('plan_version_id', 'not an active plan version of this provider');

    let buildingId: string | null = null;
    let unitId: string | null = null;
    let locationId: string | null = null;
    if (input.location_hash) {
      const loc = await repo.findLocationByHash(db, input.location_hash);
      if (!loc || loc.provider_id !== provider.id) throw invalid('location_hash', 'unknown location for this provider');
      ({ building_id: buildingId, unit_id: unitId, id: locationId } = loc);
    }
    if (input.unit_id) {
      const unit = await repo.findUnitWithBuilding(db, input.unit_id);
      if (!unit || unit.provider_id !== provider.id) throw invalid('unit_id', 'unknown unit for this provider');
      if (unitId && unitId !== unit.id) throw invalid('unit_id', 'does not match the unit of location_hash');
      if (buildingId && buildingId !== unit.building_id) throw invalid('unit_id', 'is not in the building of location_hash');
      unitId = unit.id;
      buildingId = unit.building_id;
    }
    if (input.building_id) {
      if (buildingId && buildingId !== input.building_id)
        throw invalid('building_id', 'does not match the building of location_hash or unit_id');
      buildingId = input.building_id;
    }
    if (!buildingId) throw unprocessable('Provide location_hash, unit_id or building_id');
    const building = await repo.findBuilding(db, buildingId);
    if (!building || building.provider_id !== provider.id) throw invalid('building_id', 'unknown building for this provider');
    if (!building.in_coverage) throw invalid('building_id', 'building is not in coverage');
    if (userId && !(await repo.userExists(db, userId))) throw forbidden('invalid_credentials', 'Invalid credentials');
    if (!provider.external_checkout_url) {
      throw serviceUnavailable('dependency_unconfigured', 'The provider has no external checkout URL configured');
    }

    const id = newId();
    const now = clock.now();
    await repo.insertSession(db, {
      id,
      provider_id: provider.id,
      plan_version_id: plan.id,
      building_id: buildingId,
      unit_id: unitId,
      location_id: locationId,
      mac_address: input.mac_address ? normaliseMac(input.mac_address) : null,
      status: 'pending',
      user_id: userId,
      partner_reference: input.partner_reference ?? null,
      created_at: now,
      updated_at: now,
    });
    return {
      session_id: id,
      checkout_url: checkoutUrlFor(provider.external_checkout_url, id),
      status: 'pending' as const,
      expires_at: sessionExpiresAt(now).toISOString(),
    };
  }

  /**
   * The TTL check that runs before authentication (expired → 410 even without a secret).
   * Returns the session's provider, or null for an unknown id.
   */
  async function gate(id: string) {
    const s = await gateSessionAt(db, id, clock.now());
    return s ? { providerId: s.provider_id } : null;
  }

  /** The checkout page's read: the first read moves pending → redirected (it never expires after that). */
  async function read(id: string, providerId: string) {
    const now = clock.now();
    const before = await repo.findSessionById(db, id);
    if (!before) throw sessionNotFoundError();
    if (before.provider_id !== providerId) throw sessionNotFoundError();
    await repo.markSessionRedirected(db, id, now, new Date(now.getTime() - SESSION_TTL_MS));
    const v = await loadView(id);
    if (isPastTtl({ status: v.status as repo.SessionStatus, created_at: v.created_at }, now)) await gateSessionAt(db, id, now);
    assertNotGone({ status: v.status as repo.SessionStatus });
    return toSessionView(v);
  }

  /** Upsell: swap the plan (another active version of the same provider) or set partner_reference. */
  async function patch(id: string, providerId: string, input: PatchSessionInput) {
    if (input.plan_version_id === undefined && input.partner_reference === undefined) {
      throw unprocessable('Provide plan_version_id or partner_reference');
    }
    const outcome = await db.transaction().execute(async (trx) => {
      const now = clock.now();
      const s = await repo.lockSessionById(trx, id);
      if (!s) throw sessionNotFoundError();
      if (s.provider_id !== providerId) throw sessionNotFoundError();
      if (isPastTtl(s, now)) {
        // Committed with the transaction; the 410 is thrown after it.
        await repo.markSessionExpired(trx, id, now);
        return 'expired' as const;
      }
      assertNotGone(s);
      if (s.status === 'completed')
        throw conflict('conflict', 'Session already completed; only pending or redirected sessions can be changed');
      if (input.plan_version_id !== undefined) {
        const plan = await repo.findPlanVersion(trx, input.plan_version_id);
        if (!plan || plan.provider_id !== s.provider_id || !plan.active) {
          throw invalid('plan_version_id', 'not an active plan version of this provider');
        }
      }
      const fields: { plan_version_id?: string; partner_reference?: string | null } = {};
      if (input.plan_version_id !== undefined) fields.plan_version_id = input.plan_version_id;
      if (input.partner_reference !== undefined) fields.partner_reference = input.partner_reference;
      await repo.updateSessionFields(trx, id, fields, now);
      return 'updated' as const;
    });
    if (outcome === 'expired') throw sessionExpiredError();
    return toSessionView(await loadView(id));
  }

  /**
   * The checkout page's cancel, or the marketplace abandoning the session: redirected → cancelled,
   * after which every endpoint answers 410 `Session cancelled`. The state table moves only a
   * redirected session there: a pending one (never opened by the checkout page) expires on its own
   * and answers 409, as does a completed one; expired and cancelled answer their 410.
   */
  async function cancel(id: string, providerId: string) {
    const outcome = await db.transaction().execute(async (trx) => {
      const now = clock.now();
      const s = await repo.lockSessionById(trx, id);
      if (!s || s.provider_id !== providerId) throw sessionNotFoundError();
      if (isPastTtl(s, now)) {
        await repo.markSessionExpired(trx, id, now);
        return 'expired' as const;
      }
      assertNotGone(s);
      if (s.status === 'completed') throw conflict('conflict', 'Session already completed; it can no longer be cancelled');
      if (s.status !== 'redirected') {
        throw conflict(
          'conflict',
          'Session not opened by the checkout page yet; only a redirected session can be cancelled (a pending one expires 2 hours after creation)',
        );
      }
      await repo.markSessionCancelled(trx, id, now);
      return 'cancelled' as const;
    });
    if (outcome === 'expired') throw sessionExpiredError();
    return { session_id: id, status: 'cancelled' as const, subscription_status: null };
  }

  /** Browser-safe status poll (no auth): never moves the session to redirected. */
  async function status(id: string) {
    const s = await gateSessionAt(db, id, clock.now());
    if (!s) throw sessionNotFoundError();
    const v = await loadView(id);
    return { session_id: v.id, status: v.status as repo.SessionStatus, subscription_status: v.subscription_status ?? null };
  }

  return { create, gate, read, patch, cancel, status, loadView };
}

/** @public The type of what the container builds. */
export type CheckoutService = ReturnType<typeof createCheckoutService>;
