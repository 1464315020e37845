import type { FastifyBaseLogger } from 'fastify';
import type { Adapters } from '../../adapters/types.js';
import type { Db } from '../../db/database.js';
import type { JobQueue } from '../../jobs/types.js';
import type { Clock } from '../../lib/clock.js';
import { AdapterError } from '../../adapters/types.js';
import { conflict, notFound } from '../../lib/errors.js';
import { newId } from '../../lib/ids.js';
import { type Actor, recordAudit } from '../audit/index.js';
import { enqueuePortJob, setSubscriptionStatus } from '../subscriptions/index.js';
import * as repo from './subscription-status.repository.js';

export type StatusAction = 'suspend' | 'restore';

export interface StatusResult {
  subscription_id: string;
  status: 'ACTIVE' | 'SUSPENDED';
  port_changed: boolean;
  port_error: string | null;
  message: string;
}

/** A short, safe sentence for the partner: no host names, no stack, no switch internals. */
function portErrorOf(err: unknown): string {
  if (err instanceof AdapterError) {
    if (err.failure === 'unreachable') return 'Switch controller unreachable; the port was not set to the captive portal';
    if (err.failure === 'timeout') return 'Switch controller did not answer in time; the port may not be set to the captive portal';
  }
  return 'Switch controller refused the change; the port was not set to the captive portal';
}

const SERVICE_BILLED_DETAIL =
  'This subscription is billed by the service, not by the provider: it is suspended automatically ' +
  'when an invoice stays unpaid past the grace period and restored automatically when it is paid. ' +
  'suspend and restore apply only to subscriptions whose billing the provider owns';

/**
 * Section 1: suspend/restore is for "when the provider owns billing"; when the service bills, its
 * own dunning suspends and a payment restores. A provider suspension of a service-billed
 * subscription would never be lifted by a payment, so both actions answer 409 — except restoring a
 * provider suspension made before this rule, so such a subscription is not stuck.
 */
function refuseServiceBilled(s: { service_billed: boolean; status: string; suspended_reason: string | null }, action: StatusAction) {
  if (!s.service_billed) return;
  if (action === 'restore' && s.status === 'SUSPENDED' && s.suspended_reason === 'provider') return;
  throw conflict('conflict', SERVICE_BILLED_DETAIL);
}

export interface SubscriptionStatusDeps {
  db: Db;
  clock: Clock;
  jobs: JobQueue;
  adapters: Adapters;
  log: FastifyBaseLogger;
}

/**
 * Provider-owned billing's suspend/restore (X-Webhook-Secret). suspend: ACTIVE → SUSPENDED
 * (reason 'provider'), then the port goes to the captive portal; restore: SUSPENDED → ACTIVE with
 * the port provisioning re-queued in the same transaction. Restore of an ACTIVE subscription is
 * an idempotent 200; every other state answers 409. No webhook fires.
 */
export function createSubscriptionStatusService(deps: SubscriptionStatusDeps) {
  const { db, clock, jobs, adapters, log } = deps;

  async function suspend(providerId: string, subscriptionId: string, actor: Actor, requestId: string | null): Promise<StatusResult> {
    const actionId = newId();
    const sub = await db.transaction().execute(async (trx) => {
      const s = await repo.lockProviderSubscription(trx, providerId, subscriptionId);
      if (!s) throw notFound('Subscription not found');
      refuseServiceBilled(s, 'suspend');
      if (s.status !== 'ACTIVE') {
        throw conflict('conflict', `Cannot suspend a subscription in status ${s.status}; only ACTIVE subscriptions can be suspended`);
      }
      const now = clock.now();
      await setSubscriptionStatus(trx, s.id, { status: 'SUSPENDED', suspended_reason: 'provider' }, now);
      await recordAudit(trx, {
        ...actor,
        providerId,
        action: 'subscription.suspend',
        entityType: 'subscription',
        entityId: s.id,
        before: { status: s.status },
        after: { status: 'SUSPENDED', suspended_reason: 'provider', operation: actionId },
        requestId,
        at: now,
      });
      return s;
    });

    // The switch is a remote system: called after the commit, never inside the transaction.
    if (!sub.location_id) {
      return {
        subscription_id: sub.id,
        status: 'SUSPENDED',
        port_changed: false,
        port_error: null,
        message: 'Subscription suspended; it has no switch port to change',
      };
    }
    try {
      await adapters.switchController.setCaptivePortal({
        operationKey: `subscription-status:suspend:${sub.id}:${actionId}`,
        locationId: sub.location_id,
      });
      return {
        subscription_id: sub.id,
        status: 'SUSPENDED',
        port_changed: true,
        port_error: null,
        message: 'Subscription suspended; the port now shows the captive portal',
      };
    } catch (err) {
      log.warn({ err, subscriptionId: sub.id }, 'suspend: captive portal switch call failed');
      return {
        subscription_id: sub.id,
        status: 'SUSPENDED',
        port_changed: false,
        port_error: portErrorOf(err),
        message: 'Subscription suspended; the port could not be switched to the captive portal (operator follow-up)',
      };
    }
  }

  async function restore(providerId: string, subscriptionId: string, actor: Actor, requestId: string | null): Promise<StatusResult> {
    return db.transaction().execute(async (trx) => {
      const s = await repo.lockProviderSubscription(trx, providerId, subscriptionId);
      if (!s) throw notFound('Subscription not found');
      refuseServiceBilled(s, 'restore');
      if (s.status === 'ACTIVE') {
        return {
          subscription_id: s.id,
          status: 'ACTIVE',
          port_changed: false,
          port_error: null,
          message: 'Subscription is already ACTIVE; nothing to restore',
        };
      }
      if (s.status !== 'SUSPENDED') {
        throw conflict('conflict', `Cannot restore a subscription in status ${s.status}; only SUSPENDED subscriptions can be restored`);
      }
      const now = clock.now();
      await setSubscriptionStatus(trx, s.id, { status: 'ACTIVE', suspended_reason: null }, now);
      let jobId: string | null = null;
      if (s.location_id) {
        jobId = (await enqueuePortJob(trx, jobs, { subscriptionId: s.id, providerId, reason: 'restore' })).id;
      }
      await recordAudit(trx, {
        ...actor,
        providerId,
        action: 'subscription.restore',
        entityType: 'subscription',
        entityId: s.id,
        before: { status: s.status, suspended_reason: s.suspended_reason },
        after: { status: 'ACTIVE', port_job_id: jobId },
        requestId,
        at: now,
      });
      return {
        subscription_id: s.id,
        status: 'ACTIVE',
        port_changed: false,
        port_error: null,
        message: jobId ? 'Subscription restored; port provisioning is queued' : 'Subscription restored; it has no switch port to provision',
      };
    });
  }

  return {
    change: (providerId: string, subscriptionId: string, action: StatusAction, actor: Actor, requestId: string | null) =>
      action === 'suspend' ? suspend(providerId, subscriptionId, actor, requestId) : restore(providerId, subscriptionId, actor, requestId),
  };
}

/** @public The type of what the container builds. */
export type SubscriptionStatusService = ReturnType<typeof createSubscriptionStatusService>;
