import type { FastifyInstance } from 'fastify';
import type { ErrorCode } from '../../lib/errors.js';
import type { AgentErrorCase, ExampleMap } from '../../plugins/openapi-examples.js';
import { AGENT_DESCRIPTIONS, REFUSALS } from './agent.descriptions.js';
import { err, StandardRateLimit } from './common.schemas.js';

// What each /agent operation can answer besides its 2xx, by operationId: per status, what it means
// (the response's description in the OpenAPI) and the codes it carries (a code is sent with its
// usual message from lib/errors.catalogue.ts, or with the message of this case). The route file
// declares only its 2xx; useOperationDocs writes each error response from this table, the examples
// (plugins/openapi-examples.ts) write each listed case as the envelope with its next step, and the
// tests fail when a route answers a code its list here lacks (test/helpers/declared-errors.ts).
// A status without `cases` carries the defaults: the credential checks' codes, `internal_error`
// for 500, the limiter's body for 429.

/** One error status of an operation; 429 is the limiter's body, described by `text` when given. */
interface ErrorStatus {
  text?: string;
  cases?: AgentErrorCase[];
  /** Codes the route answers only to its MCP tool (a rule of the tool's, tool-call.ts): not in the HTTP document. */
  toolOnly?: ErrorCode[];
}
type Contract = Record<number, ErrorStatus>;

const VALIDATION = (field: string, message: string) => ({
  code: 'validation_error' as const,
  message: 'Request validation failed',
  details: [{ field, message }],
});
const NOT_ONE_OF_YOURS = { code: 'not_found' as const, message: 'Subscription not found' };
const PLAN_REFUSALS = [
  {
    code: 'plan_change_limit' as const,
    message: 'This customer already changed plan today (UTC calendar day); the next change is possible from tomorrow',
  },
  { code: 'subscription_not_active' as const, message: 'The subscription is SUSPENDED; only an ACTIVE subscription can change plan' },
  { code: 'same_plan' as const, message: 'The subscription is already on this plan version' },
  { code: 'plan_not_available' as const, message: 'This plan version cannot be chosen (it is inactive or priced in another currency)' },
];

const KEY_ONLY: ErrorStatus = { text: 'invalid_api_key or feature_not_enabled', cases: ['invalid_api_key', 'feature_not_enabled'] };
const RATE_LIMITED: ErrorStatus = {};
const INTERNAL: ErrorStatus = { text: 'internal_error' };
const IN_PROGRESS: ErrorStatus = {
  text: 'idempotency_in_progress: the first request with this Idempotency-Key is still running',
  cases: ['idempotency_in_progress'],
};
const KEY_REUSED: ErrorStatus = {
  text: 'idempotency_key_reused: this Idempotency-Key was used with another body',
  cases: ['idempotency_key_reused'],
};

/** What every verified customer route can answer. */
const VERIFIED: Contract = {
  400: {
    text: 'validation_error: the request failed its schema (`details` names each field)',
    cases: [VALIDATION('customerId', 'Too big: expected string to have <=100 characters')],
  },
  401: {
    text: 'verification_required (no X-Verified-Session) or session_invalid (unknown, malformed or expired session): verify the caller again',
    cases: ['verification_required', 'session_invalid'],
  },
  403: {
    text: 'invalid_api_key, feature_not_enabled, or session_customer_mismatch (the session belongs to another customer)',
    cases: ['invalid_api_key', 'feature_not_enabled', 'session_customer_mismatch'],
  },
  404: {
    text: "customer_not_found: no such customer for your provider (also for another provider's customer)",
    cases: ['customer_not_found'],
  },
  429: RATE_LIMITED,
  500: { text: 'internal_error: hand over to a human with a ticket' },
};
/** VERIFIED with another validation example (the field a route's own schema names). */
const verifiedWith = (field: string, message: string): Contract => ({
  ...VERIFIED,
  400: { ...VERIFIED[400], cases: [VALIDATION(field, message)] },
});
const PLAN_NOT_FOUND: ErrorStatus = {
  text: "customer_not_found: no such customer for your provider; not_found: the subscription is not this customer's, or the plan version is unknown or of another provider (take plan_version_id from GET /agent/customers/{customerId}/plan-options)",
  cases: ['customer_not_found', NOT_ONE_OF_YOURS],
};

export const AGENT_ERRORS: Record<string, Contract> = {
  searchCustomers: {
    400: {
      text: 'validation_error: q shorter than 2 characters, or limit outside 1..100 (`details` names the field)',
      cases: [VALIDATION('q', 'Too small: expected string to have >=2 characters')],
    },
    403: KEY_ONLY,
    429: RATE_LIMITED,
    500: INTERNAL,
  },
  issueVerificationCode: {
    400: {
      text: 'validation_error: customer_id is not a UUID or channel is not email/sms',
      cases: [VALIDATION('customer_id', 'must be a UUID')],
    },
    403: KEY_ONLY,
    404: {
      text: "customer_not_found: no such customer for your provider (also for another provider's customer)",
      cases: ['customer_not_found'],
    },
    422: {
      text: 'unprocessable: channel "sms" for a customer with no mobile number on file (use email)',
      cases: [{ code: 'unprocessable', message: 'The customer has no mobile number on file; use channel "email"' }],
    },
    429: {
      text: 'Standard rate-limit response (no envelope): 5 codes for this customer in 10 minutes, or the per-key limit. Wait Retry-After seconds, or escalate with a ticket',
    },
    500: INTERNAL,
    502: {
      text: 'dependency_failed: the SMS gateway refused the message (use email)',
      cases: [{ code: 'dependency_failed', message: 'The SMS gateway did not accept the message; use channel "email" or retry later' }],
    },
    503: {
      text: 'dependency_unconfigured: SMS is not configured for your provider account (use email)',
      cases: [
        {
          code: 'dependency_unconfigured',
          message: 'SMS one-time codes are not configured for this provider account; use channel "email"',
        },
      ],
    },
  },
  checkVerificationCode: {
    400: { text: 'validation_error: customer_id is not a UUID or code is not 6 digits', cases: [VALIDATION('code', 'must be 6 digits')] },
    401: {
      text: 'invalid_code (wrong code, or no active code: ask again or issue one) or code_expired (issue a new code)',
      cases: [
        { code: 'invalid_code', message: 'The code is not correct; 3 attempts left' },
        { code: 'code_expired', message: 'The code has expired (codes are valid 10 minutes); issue a new one' },
      ],
    },
    403: {
      text: 'too_many_attempts (5 wrong codes: this code is locked, issue a new one), invalid_api_key or feature_not_enabled',
      cases: [
        { code: 'too_many_attempts', message: 'Too many wrong codes: this code is locked; issue a new one with POST /agent/verify/issue' },
        'invalid_api_key',
        'feature_not_enabled',
      ],
    },
    404: { text: 'customer_not_found: no such customer for your provider', cases: ['customer_not_found'] },
    429: RATE_LIMITED,
    500: INTERNAL,
  },
  getCustomerProfile: VERIFIED,
  getBillingSummary: VERIFIED,
  listPayments: verifiedWith('limit', 'Too big: expected number to be <=100'),
  getNetworkHealth: VERIFIED,
  listCustomerTickets: verifiedWith('limit', 'Too big: expected number to be <=100'),
  updateCustomerContact: {
    ...verifiedWith('body', 'send at least one of first_name, last_name, email, phone'),
    409: {
      text: 'conflict: the email is already used by another customer of your provider',
      cases: [{ code: 'conflict', message: 'Another customer of this provider already uses this email address' }],
    },
  },
  sendPortalLink: {
    ...VERIFIED,
    409: {
      text: 'already_activated (use password_reset), portal_account_missing (use resend_activation) or conflict (the email belongs to another login: escalate)',
      cases: [
        { code: 'already_activated', message: 'The customer already chose a password; use action "password_reset" instead' },
        {
          code: 'portal_account_missing',
          message: 'This customer has no online account yet; send the set-up link with action "resend_activation"',
        },
        { code: 'conflict', message: "A login with this customer's email exists but belongs to another account; escalate with a ticket" },
      ],
    },
  },
  resendInvoice: {
    ...VERIFIED,
    404: {
      text: 'customer_not_found (no such customer for your provider) or not_found (no such invoice for this customer)',
      cases: [
        'customer_not_found',
        { code: 'not_found', message: 'No invoice with this id for this customer; take invoice_id from billing-summary or payments' },
      ],
    },
  },
  listRecentChanges: VERIFIED,
  resendChangeConfirmation: {
    ...verifiedWith('changeId', 'Invalid UUID'),
    404: {
      text: 'customer_not_found: no such customer for your provider; not_found: no such change of this customer',
      cases: ['customer_not_found', { code: 'not_found', message: 'No such change for this customer; take change_id from recent-changes' }],
    },
    409: {
      text: 'conflict: the change was already undone, or its undo link expired (24 hours): nothing was sent',
      cases: [{ code: 'conflict', message: 'The undo link of this change has expired (24 hours); it can no longer be undone by link' }],
    },
  },
  addCustomerNote: { ...VERIFIED, 409: IN_PROGRESS, 422: KEY_REUSED },
  listPlanOptions: {
    ...verifiedWith('subscription_id', 'Invalid UUID'),
    404: {
      text: "customer_not_found: no such customer for your provider; not_found: the subscription is not this customer's",
      cases: ['customer_not_found', NOT_ONE_OF_YOURS],
    },
  },
  previewPlanChange: { ...VERIFIED, 404: PLAN_NOT_FOUND, 409: { text: REFUSALS, cases: PLAN_REFUSALS } },
  applyPlanChange: {
    ...VERIFIED,
    400: {
      text: 'confirmation_required: confirm was not true (ask the customer, then send confirm: true); validation_error: the request failed its schema (`details` names each field); bad_request: malformed Idempotency-Key',
      cases: [
        {
          code: 'confirmation_required',
          message: 'The customer must confirm the previewed cost: send confirm: true to apply the plan change',
        },
        VALIDATION('plan_version_id', 'Invalid UUID'),
        { code: 'bad_request', message: 'Idempotency-Key must be 1 to 255 printable ASCII characters' },
      ],
      toolOnly: ['quote_required'],
    },
    401: {
      text: 'verification_required (no X-Verified-Session) or session_invalid (unknown, malformed or expired session): verify the caller again; quote_expired: the quote_token is older than 15 minutes (preview again, confirm the new quote with the customer); quote_invalid: the quote_token was altered or issued for another customer, subscription or plan version (preview again)',
      cases: ['verification_required', 'session_invalid', 'quote_invalid', 'quote_expired'],
    },
    404: PLAN_NOT_FOUND,
    409: {
      text: `${REFUSALS} Also billing_escalation: an operator-escalation state, nothing applied (open a ticket); idempotency_in_progress: a request with this Idempotency-Key is still running; quote_changed: the price, the billing state or the day moved since the quote_token's preview, nothing was applied (preview again and confirm the new quote with the customer).`,
      cases: [...PLAN_REFUSALS, 'quote_changed', 'billing_escalation', 'idempotency_in_progress'],
    },
    422: KEY_REUSED,
  },
  createTicket: {
    400: {
      text: 'validation_error: neither customer_id nor contact_email, or another field fails its schema (`details` names it)',
      cases: [VALIDATION('customer_id', 'send customer_id or contact_email')],
    },
    403: KEY_ONLY,
    404: { text: 'customer_not_found: customer_id is not a customer of your provider', cases: ['customer_not_found'] },
    409: IN_PROGRESS,
    422: KEY_REUSED,
    429: RATE_LIMITED,
    500: INTERNAL,
  },
};

/** The examples' error cases of every operation (its statuses that list their own). */
export function withErrorCases(examples: ExampleMap): ExampleMap {
  const ids = new Set([...Object.keys(examples), ...Object.keys(AGENT_ERRORS)]);
  return Object.fromEntries(
    [...ids].map((id) => {
      const cases = Object.entries(AGENT_ERRORS[id] ?? {}).flatMap(([status, s]) => (s.cases ? [[status, s.cases] as const] : []));
      return [id, { ...examples[id], ...Object.fromEntries(cases) }];
    }),
  );
}

/**
 * Sets each /agent route's description and error responses from the tables (after the route
 * contract derived the credentials' statuses, before the examples): the envelope described by
 * `text`, or for 429 the limiter's body.
 */
export function useOperationDocs(app: FastifyInstance) {
  app.addHook('onRoute', (route) => {
    const schema = route.schema as
      { operationId?: string; hide?: boolean; description?: string; response?: Record<string, unknown> } | undefined;
    if (!schema?.operationId || schema.hide) return;
    const description = AGENT_DESCRIPTIONS[schema.operationId];
    if (description !== undefined) schema.description = description;
    const contract = AGENT_ERRORS[schema.operationId];
    if (!contract) return;
    const toolOnly = Object.entries(contract).flatMap(([status, s]) => (s.toolOnly ? [[status, s.toolOnly] as const] : []));
    if (toolOnly.length) route.config = { ...(route.config ?? {}), toolOnlyErrors: Object.fromEntries(toolOnly) };
    const response = { ...(schema.response ?? {}) };
    for (const [status, s] of Object.entries(contract)) {
      if (status === '429') response[status] = s.text === undefined ? StandardRateLimit : StandardRateLimit.describe(s.text);
      else if (s.text !== undefined) response[status] = err(s.text);
    }
    schema.response = response;
  });
}
