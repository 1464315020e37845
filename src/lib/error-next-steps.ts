import type { ErrorCode } from './errors.js';

/**
 * What a caller does next after each error code: the four moves of a support conversation
 * (retry, ask the caller, verify again, escalate by ticket) and, for a request the agent itself
 * built wrong, fix it. The /agent envelope appends the step to `message` and the OpenAPI error
 * examples carry it, so an agent reading either knows its move without a lookup table of its own.
 */
type NextAction = 'retry' | 'ask_caller' | 'verify_again' | 'escalate' | 'fix_request';

export interface NextStep {
  action: NextAction;
  text: string;
}

const step = (action: NextAction, text: string): NextStep => ({ action, text });

export const NEXT_STEPS: Record<ErrorCode, NextStep> = {
  validation_error: step(
    'fix_request',
    'correct the fields named in `details` and send again (ask the caller when the value came from them)',
  ),
  bad_request: step('fix_request', 'correct the request (JSON body, content type or Idempotency-Key) and send again'),
  invalid_api_key: step(
    'escalate',
    "the integration's API key is missing, wrong or disabled: do not retry; hand the conversation to a human and tell the operator",
  ),
  feature_not_enabled: step(
    'escalate',
    'this API key lacks agent_api_access: do not retry; hand the conversation to a human and tell the operator',
  ),
  not_authenticated: step('fix_request', 'send the credential this route needs, then retry'),
  invalid_credentials: step('fix_request', 'the credential is wrong, expired or disabled: obtain a valid one; do not retry unchanged'),
  forbidden: step('escalate', 'this account may not do this: do not retry; ask someone with the right role'),
  verification_required: step(
    'verify_again',
    'verify the caller (POST /agent/verify/issue, then POST /agent/verify/check) and send X-Verified-Session',
  ),
  session_invalid: step('verify_again', 'the verified session is unknown or expired (15 minutes): verify the caller again'),
  session_customer_mismatch: step(
    'verify_again',
    'the session belongs to another customer: verify this customer before reading or changing their account',
  ),
  invalid_code: step(
    'ask_caller',
    'ask the caller to read the code again; after repeated failures issue a new code, or escalate by ticket',
  ),
  code_expired: step('verify_again', 'issue a new code with POST /agent/verify/issue and ask the caller to read it back'),
  too_many_attempts: step(
    'verify_again',
    'issue a new code with POST /agent/verify/issue; if the caller still cannot read it, escalate by ticket',
  ),
  customer_not_found: step(
    'ask_caller',
    'ask the caller for another detail and search again with GET /agent/customers/search (send customer_id, not the customer number)',
  ),
  not_found: step(
    'ask_caller',
    'take the id again from an earlier answer (profile, billing-summary, payments) or ask the caller which item they mean',
  ),
  confirmation_required: step('ask_caller', 'tell the customer the previewed cost, ask them to confirm, then send confirm: true'),
  quote_invalid: step(
    'ask_caller',
    "the quote token is not this change's or was altered: preview again and ask the customer to confirm the new quote",
  ),
  quote_expired: step('ask_caller', 'the quote is older than 15 minutes: preview again and ask the customer to confirm the new quote'),
  quote_changed: step(
    'ask_caller',
    'the price, billing state or day moved since the quote: preview again and ask the customer to confirm the new amount',
  ),
  plan_change_limit: step(
    'escalate',
    'tell the customer the next plan change is possible from tomorrow (UTC); if it cannot wait, escalate by ticket',
  ),
  subscription_not_active: step(
    'escalate',
    'only an ACTIVE subscription changes plan: tell the customer, and escalate by ticket if they need it changed',
  ),
  same_plan: step('ask_caller', 'the subscription is already on this plan: ask the customer which plan they want'),
  plan_not_available: step('ask_caller', 'offer the customer another plan (an active one in the same currency)'),
  already_activated: step('retry', 'send the request again with action "password_reset"'),
  portal_account_missing: step('retry', 'send the request again with action "resend_activation"'),
  conflict: step(
    'ask_caller',
    'the change clashes with existing data (the message says which): ask the caller for another value, or escalate by ticket',
  ),
  gone: step('retry', 'start over with a new session or link; this one has ended'),
  unprocessable: step(
    'ask_caller',
    'the request cannot be done as asked (the message says why): offer the alternative it names or ask the caller',
  ),
  idempotency_key_reused: step('fix_request', 'this Idempotency-Key belongs to another body: use a new key for a new request'),
  idempotency_in_progress: step(
    'retry',
    'the first request with this Idempotency-Key is still running: wait a few seconds and retry with the same key and body',
  ),
  rate_limited: step('retry', 'wait Retry-After seconds, then retry'),
  dependency_unconfigured: step(
    'ask_caller',
    'use the alternative the message names (e.g. channel "email"); escalate by ticket if there is none',
  ),
  dependency_failed: step('retry', 'retry in a few minutes or use the alternative the message names; escalate by ticket if it persists'),
  payment_declined: step('ask_caller', 'ask for another card or payment method'),
  service_unavailable: step('retry', 'retry after Retry-After seconds; escalate by ticket if it persists'),
  internal_error: step('escalate', 'do not repeat a write blindly: escalate by ticket quoting request_id'),
};

/** `message` followed by the code's next step, as the /agent envelope sends it. */
export function withNextStep(code: ErrorCode, message: string): string {
  return `${message.replace(/[.\s]+$/, '')}. Next step: ${NEXT_STEPS[code].text}.`;
}
