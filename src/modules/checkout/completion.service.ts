import type { Db } from '../../db/database.js';
import type { Clock } from '../../lib/clock.js';
import { AppError, isUniqueViolation } from '../../lib/errors.js';
import { MSG, type ProvisioningService, type ProvisionResult, type RequestContext, type SubscriberInput } from '../provisioning/index.js';
import { findSubscription, findSubscriptionByExternalId } from '../subscriptions/index.js';
import { createCheckoutSessions } from './checkout.sessions.js';

const SESSION_REPLAY_MESSAGE = 'Session already completed (idempotent replay)';

export interface CompleteInput {
  session_id?: string;
  subscriber: SubscriberInput;
  plan_version_id?: string;
  delivery_mode?: 'direct' | 'home_drop';
  location_hash?: string;
  unit_id?: string;
  mac_address?: string;
  move_in_date?: string;
}

export type CompleteOutcome =
  | { created: true; result: ProvisionResult }
  | { created: false; replay: { subscription_id: string; subscriber_id: string; message: string } };

/** Thrown inside the transaction when the locked session turns out to be completed already. */
class AlreadyCompleted extends Error {
  constructor(readonly subscriptionId: string | null) {
    super('session already completed');
  }
}

export interface CompletionDeps {
  db: Db;
  clock: Clock;
  provisioning: ProvisioningService;
}

/**
 * CKO-03 completion. Session-based: the session (locked for the transaction) is the source of
 * truth for provider, plan, location/unit, building and MAC; the payload only brings the
 * subscriber (its location_hash, unit_id, plan_version_id, mac_address and delivery_mode are
 * ignored). Explicit-fields (legacy): the payload's plan and port/unit, routed like
 * provider-initiated. Subscriptions are provider-billed (service_billed false).
 */
export function createCompletionService(deps: CompletionDeps) {
  const { provisioning } = deps;
  const sessions = createCheckoutSessions(deps);

  async function replayOfSubscription(subscriptionId: string | null, message: string) {
    const sub = subscriptionId ? await findSubscription(deps.db, subscriptionId) : undefined;
    if (!sub) throw new AppError(409, 'conflict', 'Session already completed');
    return { subscription_id: sub.id, subscriber_id: sub.subscriber_id, message };
  }

  /** The session's 410 before anything else (section 5: the TTL check precedes authentication). */
  async function gate(sessionId: string) {
    await sessions.gateSession(sessionId);
  }

  async function completeSession(
    ctx: RequestContext,
    sessionId: string,
    body: CompleteInput,
    o: { origin: 'checkout_session' | 'anonymous'; externalSubscriptionId?: string | null },
  ): Promise<CompleteOutcome> {
    const s = await sessions.gateSession(sessionId);
    if (!s) throw new AppError(404, 'not_found', 'Checkout session not found');
    // Another provider's session answers exactly like an unknown one (ids are no oracle).
    if (s.provider_id !== ctx.providerId) throw new AppError(404, 'not_found', 'Checkout session not found');
    if (s.status === 'completed') return { created: false, replay: await replayOfSubscription(s.subscription_id, SESSION_REPLAY_MESSAGE) };
    const resolved = await provisioning.resolveSession(ctx.providerId, s);
    // The unit or port is held by THIS session's subscription when a concurrent complete of the same
    // session won the race: that is a replay, not a conflict.
    const completedMeanwhile = async () => {
      const again = await sessions.findSession(s.id);
      return again?.status === 'completed'
        ? { created: false as const, replay: await replayOfSubscription(again.subscription_id, SESSION_REPLAY_MESSAGE) }
        : null;
    };
    const conflict = await provisioning.occupiedConflict(
      resolved.target,
      resolved.decision.route === 'provision' ? resolved.target.location!.id : null,
    );
    if (conflict) {
      const replay = await completedMeanwhile();
      if (replay) return replay;
      throw conflict;
    }
    try {
      const result = await provisioning.createSubscription(ctx, resolved, {
        origin: o.origin,
        subscriber: body.subscriber,
        macAddress: s.mac_address,
        moveInDate: body.move_in_date ?? null,
        checkoutSessionId: s.id,
        externalSubscriptionId: o.externalSubscriptionId ?? null,
        linkUserId: s.user_id,
        webhookData: { checkout_session_id: s.id, partner_reference: s.partner_reference ?? null },
        onStart: async (trx) => {
          const locked = await sessions.loadSessionForUse(trx, s.id);
          if (locked.status === 'completed') throw new AlreadyCompleted(locked.subscription_id);
          // A patch (upsell) between our read and the lock changed the plan: start over with it.
          if (locked.plan_version_id !== s.plan_version_id)
            throw new AppError(409, 'conflict', 'The session changed while completing; retry');
        },
        onCreated: async (trx, ids) => {
          if (!(await sessions.markSessionCompleted(trx, s.id, ids.subscriptionId))) {
            throw new AppError(409, 'conflict', 'The session can no longer be completed');
          }
        },
      });
      return { created: true, result };
    } catch (err) {
      if (err instanceof AlreadyCompleted)
        return { created: false, replay: await replayOfSubscription(err.subscriptionId, SESSION_REPLAY_MESSAGE) };
      if (isUniqueViolation(err, 'subscriptions_checkout_session_key')) {
        const again = await sessions.findSession(s.id);
        return { created: false, replay: await replayOfSubscription(again?.subscription_id ?? null, SESSION_REPLAY_MESSAGE) };
      }
      if (provisioning.isOccupancyViolation(err)) {
        const replay = await completedMeanwhile();
        if (replay) return replay;
        throw provisioning.occupiedError(resolved.target);
      }
      throw err;
    }
  }

  async function completeExplicit(
    ctx: RequestContext,
    body: CompleteInput,
    o: { origin: 'explicit' | 'anonymous'; externalSubscriptionId?: string | null },
  ): Promise<CompleteOutcome> {
    if (!body.plan_version_id) throw new AppError(422, 'unprocessable', 'plan_version_id: required when session_id is not sent');
    const { created, result } = await provisioning.provisionExplicit(
      ctx,
      {
        plan_version_id: body.plan_version_id,
        delivery_mode: body.delivery_mode,
        location_hash: body.location_hash,
        unit_id: body.unit_id,
        mac_address: body.mac_address,
        move_in_date: body.move_in_date,
        subscriber: body.subscriber,
      },
      o.origin,
      { externalSubscriptionId: o.externalSubscriptionId },
    );
    if (created) return { created, result };
    return {
      created: false,
      replay: { subscription_id: result.subscription_id, subscriber_id: result.subscriber_id, message: MSG.replayDone },
    };
  }

  /** POST /external-checkout/complete. */
  function complete(ctx: RequestContext, body: CompleteInput) {
    return body.session_id
      ? completeSession(ctx, body.session_id, body, { origin: 'checkout_session' })
      : completeExplicit(ctx, body, { origin: 'explicit' });
  }

  /**
   * POST /external-checkout/anonymous-complete: idempotent on external_subscription_id (any
   * status of the existing subscription) and on an already completed session_id.
   */
  async function anonymousComplete(ctx: RequestContext, body: CompleteInput & { external_subscription_id?: string }) {
    const externalId = body.external_subscription_id ?? null;
    const byExternal = async () => {
      const sub = externalId ? await findSubscriptionByExternalId(deps.db, ctx.providerId, externalId) : undefined;
      return sub ? { subscription_id: sub.id, subscriber_id: sub.subscriber_id, message: MSG.replayDone } : null;
    };
    const first = await byExternal();
    if (first) {
      // An expired or cancelled session still answers 410 (gate ran first); otherwise the external id decides.
      return { created: false as const, replay: first };
    }
    try {
      return body.session_id
        ? await completeSession(ctx, body.session_id, body, { origin: 'anonymous', externalSubscriptionId: externalId })
        : await completeExplicit(ctx, body, { origin: 'anonymous', externalSubscriptionId: externalId });
    } catch (err) {
      if (!isUniqueViolation(err, 'subscriptions_external_id_key')) throw err;
      const winner = await byExternal();
      if (!winner) throw err;
      return { created: false as const, replay: winner };
    }
  }

  return { gate, complete, anonymousComplete };
}

export type CompletionService = ReturnType<typeof createCompletionService>;
