// Column lists that several modules' repositories select from the same table, written once.
// Each names the table alias it expects (`s` for subscriptions, ...), as the queries using it do.

/** A subscription's state and billing calendar (`subscriptions as s`). */
export const SUBSCRIPTION_BILLING_COLUMNS = [
  's.id',
  's.provider_id',
  's.subscriber_id',
  's.status',
  's.service_billed',
  's.billing_day',
  's.billing_day_effective_from',
  's.previous_billing_day',
  's.activated_at',
  's.canceled_at',
  's.ended_at',
  's.suspended_reason',
  's.location_id',
] as const;

/** The plan a row points at, by name and monthly price (`plan_versions as pv`). */
export const PLAN_PRICE_COLUMNS = ['pv.name as plan_name', 'pv.monthly_price_cents', 'pv.currency'] as const;

/** A building's postal address (`buildings as b`). */
export const BUILDING_ADDRESS_COLUMNS = ['b.street', 'b.house_number', 'b.postal_code', 'b.city', 'b.province', 'b.country'] as const;

/** The building a subscription is served at, as the agent's reads name it (`buildings as b`). */
export const SERVICE_BUILDING_COLUMNS = [
  'b.id as building_id',
  'b.name as building_name',
  'b.street',
  'b.house_number',
  'b.postal_code',
  'b.city',
  'b.country',
] as const;

/** What a list of invoices shows of each (`invoices`, unaliased). */
export const INVOICE_SUMMARY_COLUMNS = [
  'id',
  'invoice_number',
  'kind',
  'period_start',
  'invoice_date',
  'due_date',
  'currency',
  'total_cents',
  'status',
  'paid_at',
] as const;

/** A subscriber's contact and invoice-contact names, emails and phones (`subscribers`, unaliased). */
export const SUBSCRIBER_CONTACT_COLUMNS = [
  'first_name',
  'last_name',
  'email',
  'phone',
  'phone_e164',
  'invoice_first_name',
  'invoice_last_name',
  'invoice_email',
  'invoice_phone',
] as const;
