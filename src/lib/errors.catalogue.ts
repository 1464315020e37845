import type { ErrorCode } from './errors.js';

/**
 * The error catalogue: every code either surface answers, keyed by code, with its usual status, the
 * message its most common source throws (the OpenAPI examples of a bare code carry it), and what a
 * caller does next. A route lists the codes it answers (surfaces/agent/agent.errors.ts), and its
 * error responses, examples and descriptions are written from that list and this table.
 *
 * The next steps are the four moves of a support conversation (retry, ask the caller, verify
 * again, escalate by ticket) and, for a request the agent itself built wrong, fix it. The /agent
 * envelope appends the step to `message` and the OpenAPI error examples carry it, so an agent
 * reading either knows its move without a lookup table of its own.
 */
type NextAction = 'retry' | 'ask_caller' | 'verify_again' | 'escalate' | 'fix_request';

interface NextStep {
  action: NextAction;
  text: string;
}

export interface ErrorEntry {
  /**
   * The status it is answered with: an /agent route lists it under this one (test/agent/error-contract.test.ts).
   * The partner surface answers a few with another (validation 422, a webhook's 409 dependency_unconfigured).
   */
  status: number;
  /** The message of its most common source; a code without one is written with its case's own message. */
  usual?: string;
  next: NextStep;
}

const step = (action: NextAction, text: string): NextStep => ({ action, text });

export const ERRORS: Record<ErrorCode, ErrorEntry> = {
  validation_error: {
    status: 400,
    usual: 'Request validation failed',
    next: step('fix_request', 'correct the fields named in `details` and send again (ask the caller when the value came from them)'),
  },
  bad_request: {
    status: 400,
    usual: 'Malformed JSON body',
    next: step('fix_request', 'correct the request (JSON body, content type or Idempotency-Key) and send again'),
  },
  invalid_api_key: {
    status: 403,
    usual: 'The API key is missing, invalid, or its account is disabled',
    next: step(
      'escalate',
      "the integration's API key is missing, wrong or disabled: do not retry; hand the conversation to a human and tell the operator",
    ),
  },
  feature_not_enabled: {
    status: 403,
    usual: 'This API key does not have the agent_api_access feature',
    next: step('escalate', 'this API key lacks agent_api_access: do not retry; hand the conversation to a human and tell the operator'),
  },
  not_authenticated: {
    status: 401,
    next: step('fix_request', 'send the credential this route needs, then retry'),
  },
  invalid_credentials: {
    status: 403,
    next: step('fix_request', 'the credential is wrong, expired or disabled: obtain a valid one; do not retry unchanged'),
  },
  forbidden: {
    status: 403,
    next: step('escalate', 'this account may not do this: do not retry; ask someone with the right role'),
  },
  verification_required: {
    status: 401,
    usual: 'This call needs X-Verified-Session: verify the caller with POST /agent/verify/issue and POST /agent/verify/check',
    next: step('verify_again', 'verify the caller (POST /agent/verify/issue, then POST /agent/verify/check) and send X-Verified-Session'),
  },
  session_invalid: {
    status: 401,
    usual: 'The verified session is unknown or has expired (sessions last 15 minutes); verify the caller again',
    next: step('verify_again', 'the verified session is unknown or expired (15 minutes): verify the caller again'),
  },
  session_customer_mismatch: {
    status: 403,
    usual: 'The verified session belongs to another customer; verify this customer first',
    next: step('verify_again', 'the session belongs to another customer: verify this customer before reading or changing their account'),
  },
  invalid_code: {
    status: 401,
    next: step('ask_caller', 'ask the caller to read the code again; after repeated failures issue a new code, or escalate by ticket'),
  },
  code_expired: {
    status: 401,
    next: step('verify_again', 'issue a new code with POST /agent/verify/issue and ask the caller to read it back'),
  },
  too_many_attempts: {
    status: 403,
    next: step('verify_again', 'issue a new code with POST /agent/verify/issue; if the caller still cannot read it, escalate by ticket'),
  },
  customer_not_found: {
    status: 404,
    usual: 'No customer with this id for your provider account; find the customer_id with GET /agent/customers/search',
    next: step(
      'ask_caller',
      'ask the caller for another detail and search again with GET /agent/customers/search (send customer_id, not the customer number)',
    ),
  },
  method_not_allowed: {
    status: 405,
    next: step('fix_request', 'send the request with one of the methods the Allow header lists'),
  },
  not_found: {
    status: 404,
    next: step(
      'ask_caller',
      'take the id again from an earlier answer (a subscription_id of the profile, a plan_version_id of plan-options, an invoice_id of billing-summary or payments) or ask the caller which item they mean',
    ),
  },
  confirmation_required: {
    status: 400,
    next: step('ask_caller', 'tell the customer the previewed cost, ask them to confirm, then send confirm: true'),
  },
  quote_invalid: {
    status: 401,
    usual:
      'The quote_token is not a quote of this change (altered, forged, or issued for another customer, subscription or plan): preview again and confirm the new quote with the customer',
    next: step(
      'ask_caller',
      "the quote token is not this change's or was altered: preview again and ask the customer to confirm the new quote",
    ),
  },
  quote_expired: {
    status: 401,
    usual: 'The quote_token is older than 15 minutes: preview again and confirm the new quote with the customer',
    next: step('ask_caller', 'the quote is older than 15 minutes: preview again and ask the customer to confirm the new quote'),
  },
  quote_changed: {
    status: 409,
    usual:
      'The quoted change no longer holds (the price moved since the preview); nothing was applied: preview again and confirm the new quote with the customer',
    next: step(
      'ask_caller',
      'the price, billing state or day moved since the quote: preview again and ask the customer to confirm the new amount',
    ),
  },
  quote_required: {
    status: 400,
    next: step(
      'ask_caller',
      "preview the change, tell the customer the price, and send the preview's quote_token with confirm: true once they agree",
    ),
  },
  billing_escalation: {
    status: 409,
    usual:
      "This month's billing records are incomplete (an operator-escalation state): no amount was computed, so the change is not applied. Send acknowledge_escalation: true only when an operator told you to apply it regardless",
    next: step(
      'escalate',
      "this month's billing records are incomplete, so no price can be quoted: do not apply; open a ticket for the billing team and tell the customer a colleague will confirm the change",
    ),
  },
  plan_change_limit: {
    status: 409,
    next: step(
      'escalate',
      "tell the customer the next plan change is possible from next_change_local (next_change_at in UTC); to reverse today's change the customer uses the undo link in its confirmation mail (24 hours: GET /agent/customers/{customerId}/recent-changes shows it, resend-confirmation sends it again); if it cannot wait, escalate by ticket",
    ),
  },
  subscription_not_active: {
    status: 409,
    next: step('escalate', 'only an ACTIVE subscription changes plan: tell the customer, and escalate by ticket if they need it changed'),
  },
  same_plan: {
    status: 409,
    next: step(
      'ask_caller',
      'the subscription is already on this plan: ask the customer which plan of GET /agent/customers/{customerId}/plan-options they want',
    ),
  },
  plan_not_available: {
    status: 409,
    next: step('ask_caller', 'offer the customer another plan from GET /agent/customers/{customerId}/plan-options'),
  },
  already_activated: {
    status: 409,
    next: step('retry', 'send the request again with action "password_reset"'),
  },
  portal_account_missing: {
    status: 409,
    next: step('retry', 'send the request again with action "resend_activation"'),
  },
  conflict: {
    status: 409,
    next: step(
      'ask_caller',
      'the change clashes with existing data (the message says which): ask the caller for another value, or escalate by ticket',
    ),
  },
  gone: {
    status: 410,
    next: step('retry', 'start over with a new session or link; this one has ended'),
  },
  unprocessable: {
    status: 422,
    next: step(
      'ask_caller',
      'the request cannot be done as asked (the message says why): offer the alternative it names or ask the caller',
    ),
  },
  idempotency_key_reused: {
    status: 422,
    usual: 'This Idempotency-Key was already used with a different request',
    next: step('fix_request', 'this Idempotency-Key belongs to another body: use a new key for a new request'),
  },
  idempotency_in_progress: {
    status: 409,
    usual: 'A request with this Idempotency-Key is still in progress; retry shortly',
    next: step(
      'retry',
      'the first request with this Idempotency-Key is still running: wait a few seconds and retry with the same key and body',
    ),
  },
  rate_limited: {
    status: 429,
    next: step('retry', 'wait Retry-After seconds, then retry'),
  },
  dependency_unconfigured: {
    status: 503,
    next: step('ask_caller', 'use the alternative the message names (e.g. channel "email"); escalate by ticket if there is none'),
  },
  dependency_failed: {
    status: 502,
    next: step('retry', 'retry in a few minutes or use the alternative the message names; escalate by ticket if it persists'),
  },
  payment_declined: {
    status: 402,
    next: step('ask_caller', 'ask for another card or payment method'),
  },
  service_unavailable: {
    status: 503,
    usual: 'Service temporarily unavailable, retry shortly',
    next: step('retry', 'retry after Retry-After seconds; escalate by ticket if it persists'),
  },
  internal_error: {
    status: 500,
    usual: 'Internal server error',
    next: step('escalate', 'do not repeat a write blindly: escalate by ticket quoting request_id'),
  },
};

/** `message` followed by the code's next step, as the /agent envelope sends it. */
export function withNextStep(code: ErrorCode, message: string): string {
  return `${message.replace(/[.\s]+$/, '')}. Next step: ${ERRORS[code].next.text}.`;
}
