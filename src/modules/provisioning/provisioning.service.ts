import type { Transaction } from 'kysely';
import type { Config } from '../../config.js';
import type { Db } from '../../db/database.js';
import type { JobQueue } from '../../jobs/types.js';
import type { Clock } from '../../lib/clock.js';
import type { Mailer } from '../../mail/types.js';
import type { Webhooks } from '../../webhooks/types.js';
import { executeTogether } from '../../db/together.js';
import type { DB } from '../../db/types.js';
import type { Executor } from '../../db/executor.js';
import { AppError, isUniqueViolation } from '../../lib/errors.js';
import { newId } from '../../lib/ids.js';
import type { Actor } from '../audit/index.js';
import { raiseInstallJob } from '../install/index.js';
import {
  findOccupant,
  newSubscriptionWrites,
  PORT_JOB_KIND,
  PORT_JOB_MAX_ATTEMPTS,
  type SubscriptionOrigin,
} from '../subscriptions/index.js';
import { findProvider } from '../providers/index.js';
import { isoDate } from '../../lib/dates.js';
import { isNewSubscriberConflict, newSubscriberWrites } from '../subscribers/index.js';
import * as repo from './provisioning.repository.js';
import { decideExplicitRoute, decideRoute, missingPortMessage, type ResolvedTarget, type RouteDecision } from './provisioning.routing.js';
import { findOrCreateSubscriber, newSubscriberRow, type KnownSubscriber, type SubscriberInput } from './provisioning.subscribers.js';

export const MSG = {
  provisioned: 'Subscription created and active; the port is being provisioned (poll the job or wait for provisioning.completed)',
  install: 'Subscription created and pending installation',
  replayDone: 'Subscription already exists (idempotent replay)',
  replayInProgress: 'Provisioning already in progress',
  unitOccupied: 'Unit already has a pending or active subscription',
  locationOccupied: 'Location already has a pending or active subscription',
} as const;

type ProvisionRoute = 'provision' | 'install';

export interface ProvisionResult {
  route: ProvisionRoute;
  job_id: string | null;
  subscription_id: string;
  subscriber_id: string;
  message: string;
}

export interface RequestContext {
  providerId: string;
  actor: Actor;
  requestId?: string | null;
}

/** The explicit-fields shape shared by provider-initiated, bulk items and legacy complete. */
export interface ExplicitRequest {
  plan_version_id: string;
  delivery_mode?: 'direct' | 'home_drop';
  location_hash?: string;
  unit_id?: string;
  mac_address?: string;
  move_in_date?: string;
  subscriber: SubscriberInput;
}

/** What creation needs: everything resolved and routed. */
export interface Resolved {
  planVersionId: string;
  target: ResolvedTarget;
  decision: RouteDecision;
  country: string | null;
}

/** The ids a new subscription's writes share. */
interface Ids {
  subscriptionId: string;
  subscriberId: string;
  locationId: string | null;
}

export interface CreateOptions {
  origin: SubscriptionOrigin;
  subscriber: SubscriberInput;
  macAddress: string | null;
  moveInDate: string | null;
  checkoutSessionId?: string | null;
  externalSubscriptionId?: string | null;
  linkUserId?: string | null;
  /** First statement of the transaction (e.g. lock the checkout session); may throw to abort. */
  onStart?: (trx: Transaction<DB>) => Promise<void>;
  /** Extra writes of the same transaction (e.g. marking the checkout session completed). */
  onCreated?: (trx: Transaction<DB>, ids: { subscriptionId: string; subscriberId: string }) => Promise<void>;
  /** Extra fields of the activation / pending-install webhook's data. */
  webhookData?: Record<string, unknown>;
}

const MAC_RE = /^([0-9a-f]{2})[:-]?([0-9a-f]{2})[:-]?([0-9a-f]{2})[:-]?([0-9a-f]{2})[:-]?([0-9a-f]{2})[:-]?([0-9a-f]{2})$/i;
const MAC_DOTTED = /^([0-9a-f]{4})\.([0-9a-f]{4})\.([0-9a-f]{4})$/i;

/** "aa-bb-cc-dd-ee-ff", "aabb.ccdd.eeff" and friends → "AA:BB:CC:DD:EE:FF"; null when not a MAC. */
function normaliseMac(mac: string): string | null {
  const s = mac.trim();
  const d = MAC_DOTTED.exec(s);
  const hex = d ? d.slice(1).join('') : MAC_RE.exec(s)?.slice(1).join('');
  if (!hex) return null;
  return hex.toUpperCase().match(/../g)!.join(':');
}

export interface ProvisioningDeps {
  db: Db;
  clock: Clock;
  jobs: JobQueue;
  webhooks: Webhooks;
  mailer: Mailer;
  config: Config;
}

export function createProvisioningService(deps: ProvisioningDeps) {
  const { db, clock } = deps;

  async function loadPlan(providerId: string, planVersionId: string, o: { requireActive: boolean }) {
    const plan = await repo.findPlanVersion(db, providerId, planVersionId);
    if (!plan) throw new AppError(422, 'unprocessable', 'plan_version_id: unknown plan version for this provider');
    if (o.requireActive && !plan.active)
      throw new AppError(422, 'unprocessable', 'plan_version_id: this plan version is no longer orderable');
    return plan;
  }

  function checkCoverage(t: ResolvedTarget) {
    if (!t.building.in_coverage) throw new AppError(422, 'unprocessable', 'The building is not in coverage');
  }

  /**
   * Explicit fields (provider-initiated, bulk, legacy complete). delivery_mode defaults to
   * `direct` as the partner document says, never guessed from the fields sent: a unit_id without
   * delivery_mode is a 422 naming delivery_mode rather than a silent home_drop. One read
   * (provisioning_explicit_snapshot) brings the plan, the port or unit with its building, the
   * subscriber of `email` and, for provisionExplicit, the idempotency and occupancy answers; the
   * checks below run in the documented order (plan, delivery mode, port/unit, coverage, line type).
   */
  async function resolveExplicit(
    providerId: string,
    r: ExplicitRequest,
  ): Promise<
    Resolved & {
      mode: 'direct' | 'home_drop';
      locationId: string | null;
      unitId: string | null;
      snapshot: repo.ExplicitSnapshot;
    }
  > {
    const mode = r.delivery_mode ?? 'direct';
    const snap = await repo.explicitSnapshot(db, {
      providerId,
      planVersionId: r.plan_version_id,
      email: r.subscriber.email.trim(),
      locationHash: mode === 'direct' ? (r.location_hash ?? null) : null,
      unitId: mode === 'home_drop' ? (r.unit_id ?? null) : null,
      today: isoDate(clock.now()),
    });
    if (!snap.plan_found) throw new AppError(422, 'unprocessable', 'plan_version_id: unknown plan version for this provider');
    if (!snap.plan_active) throw new AppError(422, 'unprocessable', 'plan_version_id: this plan version is no longer orderable');
    if (mode === 'direct' && !r.location_hash) throw new AppError(422, 'unprocessable', missingPortMessage(r));
    if (mode === 'home_drop' && !r.unit_id) throw new AppError(422, 'unprocessable', 'unit_id: required for delivery_mode home_drop');
    if (!snap.target_found) {
      throw new AppError(
        422,
        'unprocessable',
        mode === 'direct' ? 'location_hash: unknown location for this provider' : 'unit_id: unknown unit for this provider',
      );
    }
    const building = {
      id: snap.building_id!,
      line_type: snap.line_type as ResolvedTarget['building']['line_type'],
      in_coverage: Boolean(snap.in_coverage),
    };
    const target: ResolvedTarget =
      mode === 'direct'
        ? { building, unitId: snap.unit_id, location: { id: snap.location_id!, switch_port: snap.switch_port } }
        : { building, unitId: snap.unit_id, location: null };
    checkCoverage(target);
    const decision = decideExplicitRoute(mode, target);
    return {
      planVersionId: r.plan_version_id,
      target,
      decision,
      country: snap.country,
      mode,
      locationId: mode === 'direct' ? snap.location_id : null,
      unitId: snap.unit_id,
      snapshot: snap,
    };
  }

  /** Session-based: the session's plan, location/unit and building decide; nothing from the payload does. */
  async function resolveSession(
    providerId: string,
    s: { plan_version_id: string; building_id: string | null; unit_id: string | null; location_id: string | null },
  ): Promise<Resolved> {
    // The shopper has already paid for the session's plan: a plan retired since is still honoured.
    const plan = await loadPlan(providerId, s.plan_version_id, { requireActive: false });
    const loc = s.location_id ? await repo.findLocationById(db, s.location_id) : undefined;
    if (loc && loc.provider_id !== providerId) throw new AppError(422, 'unprocessable', 'The session location belongs to another provider');
    const unitId = s.unit_id ?? loc?.unit_id ?? null;
    const unit = unitId ? await repo.findUnit(db, providerId, unitId) : undefined;
    if (unitId && !unit) throw new AppError(422, 'unprocessable', 'The session unit belongs to another provider');
    const buildingId = s.building_id ?? loc?.building_id ?? unit?.building_id ?? null;
    const building = buildingId ? await repo.findBuilding(db, buildingId) : undefined;
    if (!building)
      throw new AppError(422, 'unprocessable', 'Neither a provisionable port (location_hash) nor a unit_id is known for this session');
    const target: ResolvedTarget = {
      building: {
        id: building.building_id,
        line_type: building.line_type as ResolvedTarget['building']['line_type'],
        in_coverage: building.in_coverage,
      },
      unitId,
      location: loc ? { id: loc.id, switch_port: loc.switch_port } : null,
    };
    checkCoverage(target);
    return { planVersionId: plan.id, target, decision: decideRoute(target), country: building.country };
  }

  /** The idempotent answer for an existing subscription (no new writes). */
  async function replayOf(sub: { id: string; subscriber_id: string }): Promise<ProvisionResult> {
    const [job, install] = await Promise.all([repo.latestPortJob(db, sub.id), repo.hasInstallJob(db, sub.id)]);
    const inProgress = job && (job.status === 'queued' || job.status === 'running');
    return {
      route: install ? 'install' : 'provision',
      job_id: job?.id ?? (install ? null : ''),
      subscription_id: sub.id,
      subscriber_id: sub.subscriber_id,
      message: inProgress ? MSG.replayInProgress : MSG.replayDone,
    };
  }

  async function occupiedConflict(target: ResolvedTarget, locationId: string | null) {
    const row = await findOccupant(db, { unitId: target.unitId, locationId, today: isoDate(clock.now()) });
    return row ? occupiedError(target) : null;
  }

  const occupiedError = (target: ResolvedTarget) => new AppError(409, 'conflict', target.unitId ? MSG.unitOccupied : MSG.locationOccupied);

  /** The subscription and its audit entry (both routes). */
  function subscriptionWrites(
    ex: Executor,
    ctx: RequestContext,
    r: Resolved,
    o: CreateOptions,
    ids: Ids,
    subscriberCreated: boolean,
    now: Date,
  ) {
    const active = r.decision.route === 'provision';
    const status = active ? 'ACTIVE' : 'PENDING_INSTALL';
    return newSubscriptionWrites(
      ex,
      {
        id: ids.subscriptionId,
        providerId: ctx.providerId,
        subscriberId: ids.subscriberId,
        planVersionId: r.planVersionId,
        buildingId: r.target.building.id,
        unitId: r.target.unitId,
        locationId: ids.locationId,
        status,
        origin: o.origin,
        macAddress: o.macAddress,
        checkoutSessionId: o.checkoutSessionId ?? null,
        externalSubscriptionId: o.externalSubscriptionId ?? null,
        at: now,
      },
      {
        ...ctx.actor,
        providerId: ctx.providerId,
        action: `subscription.create.${o.origin}`,
        entityType: 'subscription',
        entityId: ids.subscriptionId,
        after: {
          status,
          route: r.decision.route,
          plan_version_id: r.planVersionId,
          unit_id: r.target.unitId,
          location_id: ids.locationId,
          subscriber_created: subscriberCreated,
        },
        requestId: ctx.requestId ?? null,
        at: now,
      },
    );
  }

  /** The port route's writes after the subscription: the port job and the activation webhook. */
  function activationWrites(ex: Executor, ctx: RequestContext, r: Resolved, o: CreateOptions, ids: Ids) {
    const job = deps.jobs.enqueueWrite(ex, {
      kind: PORT_JOB_KIND,
      payload: { subscription_id: ids.subscriptionId, reason: 'activate' },
      providerId: ctx.providerId,
      subscriptionId: ids.subscriptionId,
      maxAttempts: PORT_JOB_MAX_ATTEMPTS,
    });
    const webhook = deps.webhooks.emitWrites(ex, {
      providerId: ctx.providerId,
      type: 'subscription.activated',
      subscriptionId: ids.subscriptionId,
      subscriberId: ids.subscriberId,
      data: { ...webhookBase(r, o, ids), status: 'ACTIVE', route: 'provision', job_id: job.id },
    });
    return { jobId: job.id, writes: [job.write, ...webhook.writes] };
  }

  const webhookBase = (r: Resolved, o: CreateOptions, ids: Ids) => ({
    subscription_id: ids.subscriptionId,
    subscriber_id: ids.subscriberId,
    plan_version_id: r.planVersionId,
    ...o.webhookData,
  });

  const provisioned = (r: Resolved, ids: Ids, jobId: string | null): ProvisionResult => {
    const active = r.decision.route === 'provision';
    return {
      route: r.decision.route,
      job_id: jobId,
      subscription_id: ids.subscriptionId,
      subscriber_id: ids.subscriberId,
      message: active ? MSG.provisioned : MSG.install,
    };
  };

  /**
   * Creates subscriber (or reuses it), subscription and either the port job (+ activated webhook)
   * or the install job (+ pending_install webhook), atomically: in one statement where the port route
   * allows it (createInOneStatement), else in one transaction (with the caller's onStart/onCreated).
   * A concurrent request for the same unit/port loses on the partial unique indexes; the caller maps that.
   * `known.subscriber` is what a read just before said about the subscriber of the email (undefined:
   * not read): a known subscriber is reused, a known absence goes straight to the insert.
   */
  async function createSubscription(
    ctx: RequestContext,
    r: Resolved,
    o: CreateOptions,
    known: { subscriber?: KnownSubscriber | null } = {},
  ): Promise<ProvisionResult> {
    if (r.decision.route === 'provision' && known.subscriber !== undefined && !o.onStart && !o.onCreated && !o.linkUserId) {
      const done = await createInOneStatement(ctx, r, o, known.subscriber);
      if (done) return done;
    }
    const locationId = r.decision.route === 'provision' ? r.target.location!.id : (r.target.location?.id ?? null);
    return db.transaction().execute(async (trx) => {
      await o.onStart?.(trx);
      const now = clock.now();
      // The provider's booking window matters to the install path only.
      let bookingWindowDays = 0;
      if (r.decision.route === 'install') {
        const provider = await findProvider(trx, ctx.providerId);
        if (!provider) throw new AppError(404, 'not_found', 'Provider not found');
        bookingWindowDays = provider.booking_window_days;
      }
      const subscriber = await findOrCreateSubscriber(trx, now, ctx.providerId, o.subscriber, {
        country: r.country,
        linkUserId: o.linkUserId,
        known: known.subscriber,
      });
      const ids: Ids = { subscriptionId: newId(), subscriberId: subscriber.id, locationId };
      const writes = subscriptionWrites(trx, ctx, r, o, ids, subscriber.created, now);
      let jobId: string | null = null;
      if (r.decision.route === 'provision') {
        // Subscription, audit entry, port job and activation webhook: one statement.
        const activation = activationWrites(trx, ctx, r, o, ids);
        jobId = activation.jobId;
        await executeTogether(trx, [...writes, ...activation.writes]);
      } else {
        await executeTogether(trx, writes);
        const install = await raiseInstallJob(trx, deps, {
          providerId: ctx.providerId,
          bookingWindowDays,
          subscriptionId: ids.subscriptionId,
          unitId: r.target.unitId!,
          kind: r.decision.installKind,
          bookingLink: r.decision.bookingLink,
          moveInDate: o.moveInDate,
          subscriber: { id: subscriber.id, email: subscriber.email, firstName: subscriber.firstName },
        });
        await deps.webhooks.emit(trx, {
          providerId: ctx.providerId,
          type: 'subscription.pending_install',
          subscriptionId: ids.subscriptionId,
          subscriberId: subscriber.id,
          data: {
            ...webhookBase(r, o, ids),
            status: 'PENDING_INSTALL',
            route: 'install',
            install_kind: r.decision.installKind,
            install_status: install.status,
          },
        });
      }
      await o.onCreated?.(trx, { subscriptionId: ids.subscriptionId, subscriberId: subscriber.id });
      return provisioned(r, ids, jobId);
    });
  }

  /**
   * The port route when the read before said whether the subscriber exists: every write in one
   * statement (atomic without a transaction, one round trip instead of four): a new subscriber with
   * its login (newSubscriberWrites) when there was none, then the subscription, its audit entry,
   * the port job and the activation webhook. Undefined when the new subscriber could not be inserted
   * (taken meanwhile, a customer-number collision, a login committed meanwhile): nothing was
   * written, and the transaction path finds or creates the subscriber step by step.
   */
  async function createInOneStatement(
    ctx: RequestContext,
    r: Resolved,
    o: CreateOptions,
    known: KnownSubscriber | null,
  ): Promise<ProvisionResult | undefined> {
    const now = clock.now();
    const ids: Ids = { subscriptionId: newId(), subscriberId: known?.id ?? newId(), locationId: r.target.location!.id };
    const subscriber = known
      ? []
      : newSubscriberWrites(db, {
          ...newSubscriberRow(ids.subscriberId, ctx.providerId, o.subscriber, r.country, now),
          userId: newId(),
        });
    const activation = activationWrites(db, ctx, r, o, ids);
    try {
      await executeTogether(db, [...subscriber, ...subscriptionWrites(db, ctx, r, o, ids, !known, now), ...activation.writes]);
    } catch (err) {
      if (!known && isNewSubscriberConflict(err)) return undefined;
      throw err;
    }
    return provisioned(r, ids, activation.jobId);
  }

  /** The occupancy unique indexes settle a race for one unit or port. */
  function isOccupancyViolation(err: unknown) {
    return isUniqueViolation(err, 'subscriptions_unit_occupied_key') || isUniqueViolation(err, 'subscriptions_location_occupied_key');
  }

  /**
   * Explicit-fields provisioning with the (subscriber email, plan version, location-or-unit)
   * idempotency: a repeat answers the existing subscription instead of a second one.
   */
  async function provisionExplicit(
    ctx: RequestContext,
    r: ExplicitRequest,
    origin: SubscriptionOrigin,
    extra: { externalSubscriptionId?: string | null } = {},
  ): Promise<{ created: boolean; result: ProvisionResult }> {
    let mac: string | null = null;
    if (r.mac_address) {
      mac = normaliseMac(r.mac_address);
      if (!mac) throw new AppError(422, 'unprocessable', 'mac_address: not a MAC address (e.g. AA:BB:CC:DD:EE:FF)');
    }
    const resolved = await resolveExplicit(ctx.providerId, r);
    const snap = resolved.snapshot;
    const key = {
      providerId: ctx.providerId,
      email: r.subscriber.email.trim(),
      planVersionId: resolved.planVersionId,
      locationId: resolved.locationId,
      unitId: resolved.unitId,
    };
    // The idempotency key names the location the caller named: a port (direct) or a unit (home_drop).
    const idemKey = resolved.mode === 'direct' ? { ...key, unitId: null } : { ...key, locationId: null };
    if (snap.existing_id)
      return { created: false, result: await replayOf({ id: snap.existing_id, subscriber_id: snap.existing_subscriber_id! }) };
    if (snap.occupied) throw occupiedError(resolved.target);
    const knownSubscriber: KnownSubscriber | null = snap.subscriber_id
      ? { id: snap.subscriber_id, email: snap.subscriber_email!, firstName: snap.subscriber_first_name! }
      : null;
    try {
      const result = await createSubscription(
        ctx,
        resolved,
        {
          origin,
          subscriber: r.subscriber,
          macAddress: mac,
          moveInDate: r.move_in_date ?? null,
          externalSubscriptionId: extra.externalSubscriptionId ?? null,
        },
        { subscriber: knownSubscriber },
      );
      return { created: true, result };
    } catch (err) {
      if (!isOccupancyViolation(err)) throw err;
      // Lost the race: the winner may be this very request sent twice (replay) or someone else (409).
      const winner = await repo.findExistingProvisioned(db, idemKey);
      if (winner) return { created: false, result: await replayOf(winner) };
      throw occupiedError(resolved.target);
    }
  }

  /** Job polling: a provisioning job of the caller's provider. */
  async function getJob(providerId: string, jobId: string) {
    const job = await repo.findProvisioningJob(db, providerId, jobId);
    if (!job) throw new AppError(404, 'not_found', 'Job not found');
    return {
      job_id: job.id,
      kind: job.kind,
      status: job.status as 'queued' | 'running' | 'succeeded' | 'failed',
      attempts: job.attempts,
      error: job.last_error,
      subscription_id: job.subscription_id,
      created_at: job.created_at.toISOString(),
      updated_at: job.updated_at.toISOString(),
    };
  }

  return {
    resolveExplicit,
    resolveSession,
    replayOf,
    createSubscription,
    occupiedConflict,
    occupiedError,
    isOccupancyViolation,
    provisionExplicit,
    getJob,
  };
}

export type ProvisioningService = ReturnType<typeof createProvisioningService>;
