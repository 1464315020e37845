import type { Adjustment, BillingState } from './plan-change.quote.js';

/** What a preview quotes; the rules and the adjustment writer read it, the service returns it. */
export interface Quote {
  billingState: BillingState;
  /** null in the billing states that quote no number (not invoiced, escalation, provider-billed). */
  adjustment: Adjustment | null;
  carriedIds: string[];
  note: string | null;
  dueInDays: number | null;
  prorationFactor: number | null;
  currency: string;
}
