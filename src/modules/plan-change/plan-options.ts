// The plans a subscription can move to (issue 31 §1): the provider's active plan versions in the
// subscription's currency, except the one in force (plans have no per-location availability).
import { z } from 'zod';
import type { Executor } from '../../db/executor.js';
import { AppError } from '../../lib/errors.js';
import { formatCents } from '../../lib/money.js';
import { activePlanVersions, subscriptionPlan } from './plan-options.repository.js';

export type PlanDirection = 'upgrade' | 'downgrade' | 'same_price';

interface PlanRow {
  id: string;
  name: string;
  monthly_price_cents: number;
  currency: string;
  download_mbps: number;
  upload_mbps: number;
}

const view = (p: PlanRow) => ({
  plan_version_id: p.id,
  name: p.name,
  download_mbps: p.download_mbps,
  upload_mbps: p.upload_mbps,
  monthly_price: formatCents(p.monthly_price_cents),
  currency: p.currency.trim(),
});

const directionOf = (from: number, to: number): PlanDirection => (to > from ? 'upgrade' : to < from ? 'downgrade' : 'same_price');

/** The subscription's plan and the plans it can move to; 404 not_found when it is not the customer's. */
export async function planOptions(db: Executor, providerId: string, customerId: string, subscriptionId: string) {
  const sub = await subscriptionPlan(db, providerId, customerId, subscriptionId);
  if (!sub) throw new AppError(404, 'not_found', "Subscription not found: use a subscription_id of the customer's profile");
  const plans = (await activePlanVersions(db, providerId, sub.currency)).filter((p) => p.id !== sub.id);
  return {
    subscription_id: sub.subscription_id,
    subscription_status: sub.status as z.infer<typeof PlanOptionsResponse>['subscription_status'],
    can_change_plan: sub.status === 'ACTIVE',
    current_plan: view(sub),
    plans: plans.map((p) => ({ ...view(p), change: directionOf(sub.monthly_price_cents, p.monthly_price_cents) })),
  };
}

const OptionPlan = z.object({
  plan_version_id: z.uuid().describe('Send it as `plan_version_id` to the plan-change preview'),
  name: z.string().describe('Plan name as shown to the customer'),
  download_mbps: z.number().int().describe('Download speed, Mbit/s'),
  upload_mbps: z.number().int().describe('Upload speed, Mbit/s'),
  monthly_price: z
    .string()
    .describe('Recurring monthly price, decimal string with two places')
    .meta({ examples: ['49.99'] }),
  currency: z.string().length(3).describe("ISO 4217 currency of monthly_price (always the subscription's)"),
});

export const PlanOptionsResponse = z.object({
  subscription_id: z.uuid(),
  subscription_status: z.enum(['PENDING', 'PENDING_INSTALL', 'ACTIVE', 'SUSPENDED', 'CANCELLED']),
  can_change_plan: z
    .boolean()
    .describe('Whether the subscription can change plan at all (only ACTIVE ones can); the once-a-day limit is told by the preview'),
  current_plan: OptionPlan.describe('The plan in force now'),
  plans: z
    .array(
      OptionPlan.extend({
        change: z
          .enum(['upgrade', 'downgrade', 'same_price'])
          .describe('upgrade: a higher monthly price than the current plan; downgrade: lower; same_price: equal'),
      }),
    )
    .describe("The provider's active plan versions in the subscription's currency, the current one excluded, cheapest first"),
});
