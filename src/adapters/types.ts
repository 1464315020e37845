// Contracts of the external systems. Each has an embedded simulator (the default) with fault
// injection, so the 502/503 paths and job retries are exercised for real in tests.

export type FaultMode = 'none' | 'unreachable' | 'slow' | 'failing';

export interface FaultControl {
  /** unreachable: connection refused; slow: answers after delayMs; failing: answers with an error. */
  set(mode: FaultMode, opts?: { delayMs?: number; times?: number }): void;
  reset(): void;
  readonly mode: FaultMode;
}

export type AdapterFailure = 'unreachable' | 'timeout' | 'failed';

/** Any adapter call that did not succeed. Services map it to 502/503 or a job retry. */
export class AdapterError extends Error {
  constructor(
    readonly system: 'switch' | 'billing' | 'card' | 'sms',
    readonly failure: AdapterFailure,
    message: string,
    /** For logs: what the system answered (operation, HTTP status, its error code and message). */
    readonly detail?: string,
  ) {
    super(message);
    this.name = 'AdapterError';
  }
}

/** Why the card processor refused a request on its merits (not an outage). */
export type CardRequestErrorCode =
  | 'card_declined'
  | 'incorrect_number'
  | 'setup_not_found'
  | 'setup_incomplete'
  | 'payment_method_not_found'
  | 'payment_not_found'
  | 'card_number_refused'
  | 'idempotency_key_reused'
  | 'invalid_request';

/**
 * The card processor answered, and said no: a declined or wrong card number, an unknown setup or
 * payment method. A subclass of AdapterError (failure 'failed'), so a catch-all still works, but a
 * service should answer these with a 4xx (e.g. 402/422) rather than 502: retrying will not help.
 */
export class CardRequestError extends AdapterError {
  constructor(
    readonly code: CardRequestErrorCode,
    message: string,
  ) {
    super('card', 'failed', message);
    this.name = 'CardRequestError';
  }
}

export interface PortSpec {
  /** Idempotency key of the operation: a retried job repeats the key and the switch applies it once. */
  operationKey: string;
  locationId: string;
  switchId: string | null;
  port: string | null;
  vlanId: number | null;
  downloadMbps: number;
  uploadMbps: number;
  macAddress?: string | null;
}

export interface SwitchController {
  readonly faults: FaultControl;
  provisionPort(spec: PortSpec): Promise<void>;
  setCaptivePortal(req: { operationKey: string; locationId: string }): Promise<void>;
  resetPort(req: { operationKey: string; locationId: string }): Promise<void>;
  /** applied false: the switch accepted the change for operator confirmation (not an error). */
  updateBandwidth(req: {
    operationKey: string;
    locationId: string;
    downloadMbps: number;
    uploadMbps: number;
  }): Promise<{ applied: boolean }>;
}

export interface BillingCreditNote {
  id: string;
  number: string;
  state: 'draft' | 'open' | 'refunded' | 'paid_out' | 'applied' | 'archived' | 'voided';
  amount_cents: number;
  currency: string;
  reason: string;
  issued_at: Date;
  subscriber_id: string;
  subscription_id: string | null;
}

export interface BillingSystem {
  readonly faults: FaultControl;
  /** Every credit note of the subscriber as the billing system holds it (all states). */
  listCreditNotes(subscriberId: string): Promise<BillingCreditNote[]>;
  getCreditNote(id: string): Promise<BillingCreditNote | null>;
  /**
   * Moves the next recurring invoice's send date. `operationKey` (the Idempotency-Key) lets a retried
   * job repeat the call as one; without it each call is its own (the date is absolute, a repeat harmless).
   */
  rescheduleNextInvoice(req: { subscriptionId: string; sendDate: string; operationKey?: string }): Promise<void>;
}

export interface SavedCard {
  payment_method_id: string;
  brand: string;
  last4: string;
  exp_month: number;
  exp_year: number;
}

/** A charge's outcome. requires_action: the bank wants the cardholder (3-D Secure): send the pay link. */
export type ChargeStatus = 'succeeded' | 'declined' | 'requires_action';

/** A payment the subscriber's browser confirms (the pay page), as the processor reports it. */
export interface PaymentState {
  payment_intent_id: string;
  status: 'succeeded' | 'processing' | 'requires_payment_method' | 'requires_confirmation' | 'requires_action' | 'canceled' | 'other';
  amount_cents: number;
  currency: string;
  /** metadata.invoice_id the payment was created with. */
  invoice_id: string | null;
}

export interface CardProcessor {
  readonly faults: FaultControl;
  /** 'stripe' or 'simulator': the pay page shows Stripe's Payment Element or the simulator's test form. */
  readonly kind: 'stripe' | 'simulator';
  /**
   * True only for the embedded simulator outside production: its setups may be confirmed with a test card
   * number handed to this server (the legacy sandbox path). A real processor never takes one here.
   */
  readonly takesCardNumbers: boolean;
  /**
   * The simulator only: the base URL of its own server, where the pay page's test form posts the card
   * number (CARD_SIMULATOR_URL, else the simulator server's /card mount); null: none (the legacy form).
   */
  readonly browserUrl?: string | null;
  createSetup(req: { account: string; subscriberId: string; email: string }): Promise<{ setup_id: string; client_secret: string }>;
  /**
   * Reads the setup the subscriber's browser confirmed with the processor and answers the saved card.
   * CardRequestError setup_incomplete: not confirmed (yet); card_declined: the processor refused the card.
   * The simulator alone also confirms with a test card number ('4242424242424242' succeeds, '4000000000000002' declines).
   */
  confirmSetup(req: { account: string; setupId: string; cardNumber?: string }): Promise<SavedCard>;
  /** Off-session charge of a saved card, idempotent on the key (a retried job never charges twice). */
  charge(req: { account: string; paymentMethodId: string; amountCents: number; currency: string; idempotencyKey: string }): Promise<{
    payment_intent_id: string;
    status: ChargeStatus;
  }>;
  /** A payment for the pay page (confirmed in the browser), idempotent on the key. */
  createPayment(req: {
    account: string;
    amountCents: number;
    currency: string;
    invoiceId: string;
    description: string;
    idempotencyKey: string;
  }): Promise<{ payment_intent_id: string; client_secret: string }>;
  getPayment(req: { account: string; paymentIntentId: string }): Promise<PaymentState>;
}

export interface SmsGateway {
  readonly faults: FaultControl;
  send(req: { to: string; text: string }): Promise<void>;
}

export interface Adapters {
  switchController: SwitchController;
  billingSystem: BillingSystem;
  /** Null: this server has no card processor (production without STRIPE_SECRET_KEY): every provider answers 409. */
  cardProcessor: CardProcessor | null;
  /** The embedded SMS simulator, outside production only; a provider's Twilio gateway is per provider (modules/integrations). */
  sms: SmsGateway | null;
}
