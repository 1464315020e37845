import type { DemoCustomer } from './document.js';
import type { Country } from './people.js';
import type { BuiltBuilding } from './places.js';

// The shapes of a demo customer, shared by the builder and the billing history it writes.
export interface PlanRef {
  id: string;
  name: string;
  priceCents: number;
  currency: string;
  down: number;
  up: number;
}

export type SubStatus = 'PENDING_INSTALL' | 'ACTIVE' | 'SUSPENDED' | 'CANCELLED';

/**
 * How the current calendar month stands in billing (the plan-change preview's cases):
 * open/paid = invoice and billing document; none = neither (case a); no_document = invoice without
 * its billing-document row (case b); no_invoice = billing-document row without invoice (case c).
 */
type CurrentMonth = 'open' | 'paid' | 'none' | 'no_document' | 'no_invoice';

export interface CustomerSpec {
  providerId: string;
  /** Fixed ids (fixed-ids.ts) instead of fresh ones. */
  ids?: { subscriber: string; subscription: string };
  first: string;
  last: string;
  country: Country;
  email?: string;
  phone?: string; // fixed phone as written; otherwise generated
  building: BuiltBuilding;
  unit: BuiltBuilding['units'][number];
  plan: PlanRef;
  status: SubStatus;
  serviceBilled: boolean;
  /** Default: a day on which this month's invoice is already out but not yet overdue enough to suspend. */
  billingDay?: number;
  activatedAt: Date;
  userId?: string | null;
  card?: boolean;
  operatorNotes?: string | null;
  currentMonth?: CurrentMonth;
  modem?: 'online' | 'offline' | 'degraded' | null;
}

/** A built customer: the document's fields plus what the rest of the builder needs. */
export type CustomerRef = Pick<
  DemoCustomer,
  'id' | 'customer_number' | 'email' | 'name' | 'first_name' | 'last_name' | 'phone' | 'subscription_id' | 'unit_id' | 'unit_label'
> & {
  location_hash: string;
  billing_day: number;
  spec: CustomerSpec;
};
