import { ADJUSTMENT_TYPES, QUOTE_RULE } from '../../../modules/plan-change/index.js';
import { SECRET_SCOPE_NOTE } from '../../../plugins/auth.js';

// What each partner operation does, by operationId: the description of its OpenAPI operation. The
// route files show the wiring and name their entry here (`description: PARTNER_DESCRIPTIONS.<operationId>`);
// the examples of the same operations are the other files of this folder.

const ADMIN_NOTE =
  "Platform operator only: `X-Admin-Token` (the server's ADMIN_TOKEN) or a platform_admin login's Bearer token. The same operation as the operator CLI (`npm run ops`, docs/operations.md).";

const BOOKING_RULES =
  "The link of a third-line installation invitation (no other credential). Four-hour windows on weekdays in the building's own " +
  'time zone (`time_zone`; starting 08:00, 12:00 and 16:00 local time, across daylight-saving changes), at least 24 hours ahead, ' +
  'not before the move-in date (local midnight), offered four weeks ahead, three bookings per window ' +
  'and provider. The same link books, moves (book another window) and cancels, until 24 hours before the appointment. ' +
  'An unknown or expired link answers 404.';

const CANCELLATION_RULES =
  "Dashboard JWT (provider staff of the subscription's provider, or a platform admin); a subscription of another provider " +
  'answers 404. end_date is YYYY-MM-DD, today (UTC) or later (else 422), and exclusive: the first day without service. Only ' +
  'ACTIVE, SUSPENDED or PENDING_INSTALL subscriptions can be cancelled (else 409).';

const ROLLBACK_RULES =
  "The rollback link of a change-confirmation mail, sent after a support agent (the /agent surface) changed the customer's " +
  'contact details or plan (no other credential). It works once, for 24 hours after the change, and only while the account still ' +
  'stands as the change left it: 404 unknown link, 410 used or expired, 409 changed again since (or the subscription can no longer ' +
  "change plan, or a restored email is now another account's).";

const STAFF_RULES =
  'Only the provider admin (a service_provider user with sp_role `sp_admin` or none) manages staff, and only of the own ' +
  'provider; support, sales and bookkeeping users, subscribers and platform admins answer 403.';

const SERVICEABILITY_AUTH = "Needs `X-API-Key` with the `serviceability:read` scope; results are limited to the key's provider. ";

const ADVISORY = 'Answers are advisory: checkout and provisioning re-validate and fail closed.';

const CORS_NOTE =
  'CORS: any origin may read it from a browser (`Access-Control-Allow-Origin: *`, GET and its preflight, no credentials: ' +
  'cookies and Authorization are neither needed nor allowed). No other route answers CORS.';

const TTL_NOTE =
  'A session never read for 2 hours after creation is expired: this is checked BEFORE authentication, so it answers 410 even ' +
  'without or with a wrong secret (and is marked expired on that call). Expired and cancelled sessions answer 410 with a nested ' +
  '`detail` object: `{detail: {code: "session_expired" | "session_cancelled", detail: "Session expired" | "Session cancelled"}}`. ';

const COMPLETION_ROUTING =
  "The building's line type decides, failing closed: first-line with a port (the session's location_hash) → ACTIVE at once, the " +
  'port provisioned asynchronously (`route: provision`, `job_id`; webhooks subscription.activated then provisioning.completed or ' +
  'provisioning.failed). First-line with only building and suite, second-line, third-line or unclassified → PENDING_INSTALL with ' +
  'an install job (`route: install`, `job_id: null`, webhook subscription.pending_install; third-line subscribers get a booking ' +
  'link by email, held until `move_in_date` is inside the booking window; second-line gets a CPE shipment). Neither port nor unit → ' +
  '422. A unit already held by a pending, pending-install, active or suspended subscription → 409 `Unit already has a pending or ' +
  'active subscription`. The subscriber is reused by email within the provider, else created (with a login without password, ' +
  'activated later). CKO-03 subscriptions are billed by the provider (service_billed false): this service creates no invoices.';

const PROVISIONING_ROUTING =
  "Routing by the building's line type, failing closed: a first-line building with a port (location_hash of a location that " +
  "has a switch port) is provisioned unattended: the subscription is ACTIVE at once, the port (VLAN, the plan's bandwidth, " +
  'optional MAC binding) is provisioned by an asynchronous job (`route: provision`, `job_id`; webhooks subscription.activated ' +
  'then provisioning.completed or provisioning.failed). A unit (unit_id) of any building, including a first-line building ' +
  'ordered by suite, takes the install path: PENDING_INSTALL, an install job (a CPE shipment for second-line buildings, a ' +
  'technician visit otherwise; third-line subscribers are emailed a booking link, held until `move_in_date` is inside the ' +
  "booking window of the building's region; windows are in the building's local time zone), `route: install`, `job_id: null`, webhook subscription.pending_install. `delivery_mode` " +
  'direct on a building that is not first-line or on a location without a switch port answers 422; neither a port nor a ' +
  'unit answers 422; a unit (or port) already held by a pending, pending-install, active or suspended subscription answers ' +
  '409 `Unit already has a pending or active subscription`. Branch on `route`, never on job_id presence. ' +
  'The subscriber is reused by email within your provider, else created (with a customer number and a login without ' +
  'password, activated later). CKO-04 subscriptions are billed by you: this service creates no invoices or payments for them.';

/** The plan-change routes also answer at /subscriptions/... (a hidden alias): both descriptions say so. */
const ALIAS_NOTE =
  'The same operation also answers at /subscriptions/{id}/change-plan (and /preview), the partner base relative form the ' +
  'partner document also uses: same authentication, rate limit, idempotency and answers.';

export const PARTNER_DESCRIPTIONS = {
  // admin-catalogue.routes.ts
  adminIssueApiKey: `${ADMIN_NOTE} A new key of the provider with these scopes; the key is in this answer only (stored as its SHA-256).`,
  adminListApiKeys: `${ADMIN_NOTE} Every key of the provider with its status, never the key itself.`,
  adminRotateApiKey:
    `${ADMIN_NOTE} A successor with the same name and scopes (in this answer only); the old key keeps working for ` +
    '`overlap_hours` (default 24, 0 ends it now), then is refused. Only an `active` key can be rotated (409 otherwise).',
  adminRevokeApiKey: `${ADMIN_NOTE} The key is refused from the next request (in another server process within 10 s), also during a rotation's overlap. Idempotent.`,
  adminSetApiKeyScopes: `${ADMIN_NOTE} Replaces the key's scopes: agent_api_access (the /agent surface), provisioning:write, serviceability:read.`,
  adminCreatePlan: `${ADMIN_NOTE} A plan with its first version, on sale; the version's id is the plan_version_id checkout sessions name. Currency defaults to the provider's.`,
  adminListPlans: `${ADMIN_NOTE} Every plan with all its versions (active: on sale).`,
  adminAddPlanVersion:
    `${ADMIN_NOTE} The next version of the plan: the fields given change, the rest are the latest version's. It is on sale; ` +
    'the earlier versions stop being offered unless `keep_previous` (their subscriptions keep them either way).',
  adminSetPlanVersionActive: `${ADMIN_NOTE} \`active: false\`: no longer offered to new checkouts and plan changes (its subscriptions keep it); \`true\`: on sale again. Answers the plan.`,
  // admin-import.routes.ts
  adminImportInventory:
    `${ADMIN_NOTE} The body is a CSV file (\`Content-Type: text/csv\`, UTF-8, a header row, at most 20 MB; larger files: ` +
    '`npm run ops -- import`, which streams). Formats, natural keys and samples: docs/import.md. All or nothing: a file with ' +
    'any problem writes nothing and answers 422 with every problem (line, column, reason); `dry_run=true` checks and counts, ' +
    'writes nothing. A re-import updates by the natural key.',
  // admin-integrations.routes.ts
  adminShowProviderIntegrations: `${ADMIN_NOTE} The connected account and the SMS gateway's account SID and sender; the auth token never.`,
  adminSetCardProcessor:
    `${ADMIN_NOTE} Records the provider's Stripe connected account (\`acct_…\`): card payments and saved cards go to it from ` +
    'the next request. Replaces an earlier account. `usable` is false when this server runs no card processor (production without STRIPE_SECRET_KEY).',
  adminClearCardProcessor: `${ADMIN_NOTE} Forgets the connected account: the card endpoints answer 409 and invoices are collected by payment link only. Idempotent.`,
  adminSetSmsGateway:
    `${ADMIN_NOTE} Stores the provider's Twilio credentials, the auth token sealed under the server's SECRETS_KEY (never answered, ` +
    'never logged), and turns SMS verification codes on. Replaces earlier credentials. The credentials are not tried here: a wrong ' +
    'token shows when the first code is sent.',
  adminClearSmsGateway: `${ADMIN_NOTE} Forgets the credentials and turns SMS codes off (channel sms answers 503 dependency_unconfigured again). Idempotent.`,
  // admin-providers.routes.ts
  adminDisableProvider: `${ADMIN_NOTE} Its API keys, checkout secret and staff logins are refused (403) from the next request (in another server process within 10 s); its data stays. Idempotent.`,
  adminEnableProvider: `${ADMIN_NOTE} Its credentials work again. Idempotent.`,
  adminCreateProvider:
    `${ADMIN_NOTE} Creates an enabled provider and answers, once, its checkout secret (X-Webhook-Secret) and its webhook ` +
    'signing secret (Standard Webhooks `whsec_...`). Next: issue an API key, create plans, invite its admin, import its inventory.',
  adminListProviders: `${ADMIN_NOTE} Every provider with its settings (never a secret), oldest first.`,
  adminShowProvider: `${ADMIN_NOTE} The provider's settings (never a secret: the checkout secret's prefix only).`,
  adminUpdateProvider: `${ADMIN_NOTE} Name, support email (the reply address of its mails) and checkout URL (the hosted page checkout sessions point to; null: session creation answers 503). Fields left out stay.`,
  adminSetProviderWebhook:
    `${ADMIN_NOTE} Where the provider's webhooks are POSTed (https, never an internal address, in production; null: ` +
    'deliveries wait in the outbox). `rotate_signing_secret: true` draws a new signing secret, answered once (receivers must switch to it); ' +
    'otherwise the current one stays and `signing_secret` is null. Deliveries that waited for a URL go out now.',
  adminRotateCheckoutSecret: `${ADMIN_NOTE} A new X-Webhook-Secret, answered once; the old one is refused from the next request (one secret per provider: no overlap window; rotate when the provider is ready to switch).`,
  adminInviteProviderAdmin:
    `${ADMIN_NOTE} Creates a service_provider login with sp_role sp_admin and mails the staff invitation (a single-use link, ` +
    'valid 14 days, used with POST /auth/set-password; the server sends it through SMTP_URL). From then on the provider manages its own staff (POST /api/v1/provider/users/invite). ' +
    'An email that has a login anywhere answers 409.',
  // auth.routes.ts
  login:
    'Email and password of a subscriber or provider staff account. Wrong credentials answer 401 `Invalid credentials` (the same for an unknown email). ' +
    '10 failed logins of one account from one client network (an IPv4 address, an IPv6 /64) within 15 minutes lock its logins from that network ' +
    'for 15 minutes: 429 with Retry-After, also for the right password; other networks are not locked. Past 50 failures of the account within ' +
    'an hour from all networks together, every further attempt is answered after a delay (200 ms per failure past 50, at most 10 s), ' +
    'never refused for that reason. An unknown email behaves exactly like an account.',
  setPassword:
    'Consumes a single-use token from a password-reset (15 minutes), account set-up or staff invite (14 days) link. An unknown, used or expired token answers 400. Login tokens issued before the new password stop working. ' +
    '10 such tokens from one client IP within 15 minutes lock that IP out of this route for 15 minutes (429 with Retry-After).',
  // booking.routes.ts
  bookingPage: `${BOOKING_RULES} Renders the free windows and the current appointment; its buttons call the JSON endpoints below.`,
  bookingSlots: BOOKING_RULES,
  bookInstallation: `${BOOKING_RULES} \`starts_at\` must be the start of a free window (from /slots).`,
  cancelInstallationBooking: BOOKING_RULES,
  // cancellation.routes.ts
  previewSubscriptionCancellation:
    `${CANCELLATION_RULES} Writes nothing. For a service-billed subscription, says whether the end date's calendar month is already ` +
    'invoiced and lists the money lines the cancellation leads to; the lines are empty when the provider bills the subscription.',
  cancelSubscription:
    `${CANCELLATION_RULES} The subscription is CANCELLED at once (canceled_at = now, ended_at = end_date) and the webhook ` +
    '`subscription.cancelled` is sent; service and the port last until ended_at, when the port is reset (port_reset_at) by a ' +
    'scheduled job. An installation not yet done is called off. For a service-billed subscription whose end month is already ' +
    "invoiced, the unused days are credited with an open credit note; otherwise that month's invoice bills the used days. " +
    'A cancelled subscription cannot be cancelled again (409); send an `Idempotency-Key` to make a retry after a network error replay the first answer.',
  // checkout-status.routes.ts
  getCheckoutSessionStatus:
    'No authentication, safe from a browser. Answers the session status and `subscription_status` of the subscription created ' +
    'from it (null before completion; becomes ACTIVE, e.g. after an install is confirmed). Polling does not count as the ' +
    "checkout page's read. A pending session past its 2-hour TTL is marked expired by this call. Expired and cancelled sessions " +
    `answer 410 with the nested \`detail\` object. ${CORS_NOTE}`,
  // checkout.routes.ts
  createCheckoutSession:
    'Called by the marketplace, never by partners. No authentication; an optional subscriber `Authorization: Bearer` links the ' +
    'session to that account (a present but invalid token answers 403): the completing subscriber is attached to that account ' +
    "only when the subscriber's email is the account's (case-insensitive); a link passed on and completed with another email gives " +
    'that buyer a login of their own, and the account sees the session completed without its subscription. Name the place by `location_hash` (a port), `unit_id` ' +
    '(a suite) or `building_id` (at least one; they must agree and belong to the provider, the building in coverage), and an ' +
    'active `plan_version_id` of the provider; a reference that does not fit answers 422 naming the field. ' +
    "Answers 201 with `checkout_url`: the provider's external_checkout_url with `session_id` appended (`?` or `&`); in sandbox " +
    "the demo provider's URL is the server's fake payment page. 503 when the provider has no external_checkout_url. The session " +
    'expires 2 hours after creation unless the checkout page reads it first.',
  getCheckoutSession:
    "`X-Webhook-Secret` of the session's provider (another provider's secret answers 404, like an unknown id). Read it once, early, when the checkout " +
    'page renders: the first read moves the session from pending to redirected, after which it never expires. Embeds `plan` ' +
    '(with `store_product_id` to join your catalog), `units` with the building nested as `units.buildings` (every address field ' +
    'nullable) and `provider` with branding. ' +
    TTL_NOTE,
  patchCheckoutSession:
    "`X-Webhook-Secret` of the session's provider. Accepts only `plan_version_id` (another active plan version of the same " +
    'provider) and `partner_reference` (at most 200 characters; null clears it); any other field (unit_id, delivery_mode, ' +
    'service_provider_document_id, ...) answers 422, as does an empty body. Only pending and redirected sessions can be changed: ' +
    'a completed one answers 409. Answers 200 with the session in the GET shape (a PATCH is not a read: a pending session stays ' +
    'pending). ' +
    TTL_NOTE,
  cancelCheckoutSession:
    "`X-Webhook-Secret` of the session's provider (another provider's secret answers 404, like an unknown id). Call it when the " +
    'buyer cancels on your checkout page or the marketplace abandons a session it redirected. Moves a redirected session to ' +
    'cancelled and answers 200 `{session_id, status: "cancelled", subscription_status: null}`; from then on GET, PATCH, status ' +
    'and complete answer 410 `{detail: {code: "session_cancelled", detail: "Session cancelled"}}`, and so does a second cancel. ' +
    'A pending session (the checkout page never read it) answers 409: it expires on its own 2 hours after creation; a ' +
    'completed session answers 409. No body. ' +
    TTL_NOTE,
  // completion.routes.ts
  completeExternalCheckout:
    "Called by the provider's hosted checkout page after it took the payment. Session-based (recommended): send `session_id` " +
    'and `subscriber`; the session is the source of truth for provider, plan, location/unit, building and MAC address, so ' +
    '`location_hash`, `unit_id`, `plan_version_id` and `mac_address` in the body are ignored when they disagree, and ' +
    '`delivery_mode` is ignored. ' +
    SECRET_SCOPE_NOTE +
    " The session must belong to the secret's provider (another provider's session answers 404 like an unknown one). An expired or cancelled session " +
    'answers 410 (checked before the secret). A session completed before answers 200 `{subscription_id, subscriber_id, message}` ' +
    '(idempotent replay, no job_id). Explicit-fields (legacy, no session_id): `plan_version_id`, `delivery_mode` `direct` ' +
    "(the default) or `home_drop` (with unit_id; a unit_id without delivery_mode answers 422 naming delivery_mode), `location_hash` / `unit_id`, optional `mac_address`; the building's " +
    'line type still decides and a mismatch (direct on a building that is not first-line or on a location without a switch port) ' +
    'answers 422; a repeat for the same (subscriber email, plan version, location) answers 200 like a replay. New: 201. ' +
    COMPLETION_ROUTING,
  completeExternalCheckoutAnonymous:
    'The anonymous variant of POST /external-checkout/complete, authenticated the same way (`X-Webhook-Secret`, the checkout ' +
    'secret: it is a checkout-page call like complete; ' +
    SECRET_SCOPE_NOTE +
    ') Same body (session-based or explicit-fields) plus ' +
    '`external_subscription_id`, your own id of the subscription. Idempotent: a repeat with an `external_subscription_id` that ' +
    'already names a subscription of your provider, or with a `session_id` that is already completed, answers 200 with the ' +
    'existing subscription and `idempotent_replay: true` (no route, no job_id); concurrent repeats create one subscription. ' +
    'New: 201 with `idempotent_replay: false`. ' +
    COMPLETION_ROUTING,
  // credit-notes.routes.ts
  getCreditNotePdf:
    "The PDF of a credit note, read live from the billing system. Accepts the subscriber's own JWT (the note must be theirs) " +
    "or a dashboard JWT: staff of the provider the note's subscriber belongs to, or a platform admin. A note of someone " +
    'else, an unknown id and drafts, archived or voided notes all answer 404. 502 when the billing system is unreachable.',
  // install.routes.ts
  shipInstall:
    'Provider staff with the sp_admin or support role (dashboard JWT in `Authorization: Bearer`; a platform admin for any ' +
    'provider) record that the equipment of an own PENDING_INSTALL subscription has been shipped, with the carrier and its ' +
    'tracking reference. Allowed from install job CREATED (no booking link: second-line CPE shipments and technician ' +
    'visits without a link) and BOOKED (a third-line appointment is booked); the job becomes SHIPPED, the booking link no ' +
    'longer changes the appointment, and the subscriber is mailed the tracking reference. A repeat with the same carrier ' +
    'and reference answers 200 again without a second mail (`mailed: false`). Next step: POST ' +
    '/provisioning/confirm-install once installed. No webhook fires. Not callable with a partner API key.',
  // location.routes.ts
  locationLookup:
    'No authentication. Send `location_hash` (preferred; wins when both are sent) or `location_identifier`. Answers the address row ' +
    '(street, house_number, postal_code, city, province, country, unit_label) plus three identifying fields: `location_identifier`, ' +
    '`building_id` and `unit_id`. Switch, port and VLAN are never returned, and no endpoint turns an address into a hash. ' +
    'Neither field answers 422 `Provide location_hash or location_identifier`; an unknown location answers 404.',
  locationDetails:
    'Dashboard JWT (`Authorization: Bearer`, provider staff or platform admin); not callable with partner credentials. Same body as ' +
    "/location/lookup. Provider staff see only their own provider's locations (any other answers 404); platform admins see all. " +
    'Includes switch, port, VLAN, building line type and the subscription currently holding the location.',
  // payment.routes.ts
  getSubscriberPaymentMethod:
    '`payment_method` is null when no card is saved. 409 when the provider has no card-processor connection; 404 without a subscriber record.',
  startSubscriberCardSetup:
    "Starts a card setup with the provider's card processor and returns its `client_secret` for the processor's card form; " +
    'finish with POST .../confirm. A new setup replaces one still in progress. 409 when the provider has no card-processor ' +
    'connection; 502 when the processor is unreachable.',
  confirmSubscriberCardSetup:
    "Confirms the setup started with POST .../setup (`client_secret` must be that setup's) and saves the card, replacing a " +
    'saved one; only brand, last 4 digits and expiry are kept. 402: the card was declined (nothing saved); 409: no card-processor ' +
    'connection, or no setup with this client_secret in progress; 422: malformed or incorrect card number; 502: processor unreachable.',
  paymentPage:
    "The link of a payment mail (no other credential). Shows the invoice and the card processor's form for a payment created " +
    "for it: Stripe's Payment Element (Stripe.js; the card goes to Stripe), or with the card simulator a test form posting to " +
    "the simulator's own server. The browser then returns to GET /pay/{token}/complete. A paid invoice shows a confirmation; " +
    'an unknown, expired or void link answers 404; 409 while a payment is in progress or when the provider takes no cards; ' +
    '502 when the processor is unreachable.',
  paymentPageReturn:
    "The processor's return_url (Stripe adds payment_intent, payment_intent_client_secret and redirect_status). The invoice is " +
    'marked paid only when the processor, asked by this server, reports this payment as succeeded for this invoice and ' +
    'amount; the query alone proves nothing. 402: not completed (the form again); 404: unknown link or a payment of ' +
    'another invoice; 409: still processing or no card processor; 502: processor unreachable.',
  payWithPaymentLink:
    "The card simulator's legacy sandbox form, used only when the simulator has no server of its own (CARD_SIMULATOR_URL " +
    "unset and no simulator server runs, e.g. adapters built by hand); the pay page otherwise posts to the simulator server's /card; with a real card processor (always in production) it answers 400 without reading the number: card numbers " +
    "go to the processor's form. Form post (application/x-www-form-urlencoded, or JSON). Charges the card through the provider's " +
    'card processor and marks the invoice paid; a first invoice activates the installed subscription, and paying the last ' +
    'overdue invoice lifts a non-payment suspension. The link works once; a declined card (402), an incorrect number (422) ' +
    'or an unreachable processor (502) leave it usable for another try. Answers an HTML page.',
  // plan-change.routes.ts
  previewSubscriptionPlanChange:
    'Read-only eligibility check and quote for changing an own subscription to `plan_version_id` today; writes nothing. ' +
    '`eligible` is true when POST /partner/subscriptions/{id}/change-plan would apply; otherwise `reasons` lists every stable reason ' +
    '(`not_active`, `already_changed_today`, `same_plan`, `plan_not_available`) and the change answers 409. ' +
    `${QUOTE_RULE} ${ADJUSTMENT_TYPES} ` +
    'No number is quoted (null with `note`) when the month is not invoiced yet, ' +
    'when its invoice or billing document is missing (operator escalation), or when the provider bills the subscription itself. ' +
    `A subscription or plan version of another provider answers 404. ${ALIAS_NOTE}`,
  changeSubscriptionPlan:
    'Changes an own ACTIVE subscription to another active plan version of the same provider, immediately (no scheduled option). ' +
    'Once per subscription per UTC calendar day (a change made through the support agent counts too): a second change of the ' +
    'same subscription the same day answers 409, the next change is possible from the next day; another subscription of the ' +
    'same subscriber can change the same day. Only a platform administrator can override the limit. The one-time adjustment is the one GET .../change-plan/preview quotes: for a service-billed, invoiced month an ' +
    'upgrade becomes a line on the next monthly invoice and a downgrade a credit note issued now; when the provider bills the ' +
    'subscription no invoice line or credit note is issued. The webhook `subscription.plan_changed` is sent. ' +
    '`bandwidth_updated: false` means the change applied and the port needs operator confirmation (or the switch answers later; ' +
    'the service retries by itself): not a reason to retry. Send an `Idempotency-Key` header to make a retry after a network ' +
    `error safe (same key and body within 24 h replays the first answer). ${ALIAS_NOTE}`,
  overrideSubscriptionPlanChange:
    'Dashboard JWT of a platform administrator only (provider staff and subscribers answer 403). Changes the plan of an ACTIVE ' +
    'subscription of any provider exactly like POST /partner/subscriptions/{id}/change-plan (same adjustment, webhook ' +
    '`subscription.plan_changed` with source `admin`, bandwidth), except that a change already made today (UTC) by the partner, ' +
    'the support agent or another override does not refuse it. `override_reason` is required and kept on the plan change and in ' +
    "the audit entry (`subscription.plan_change_override`). The change counts for the partner's and the agent's limits that " +
    'day. Not ACTIVE, already on this plan or a plan version not available still answer 409.',
  // provisioning.routes.ts
  provisionProviderInitiated:
    'Creates the subscriber (or reuses it by email) and the subscription for `plan_version_id` at a port (`location_hash`, ' +
    'delivery_mode direct, the default) or a unit (`unit_id` with delivery_mode home_drop: a unit_id without delivery_mode answers ' +
    '422 naming delivery_mode). ' +
    PROVISIONING_ROUTING +
    ' ' +
    'Idempotent per (subscriber email, plan version, location): a repeat answers 200 with the existing subscription and ' +
    '`Subscription already exists (idempotent replay)`, or `Provisioning already in progress` while its port job is queued ' +
    'or running; the same subscriber and plan at another location provisions a second line (201). Concurrent duplicates ' +
    'create one subscription. 120 requests per minute per key.',
  provisionBulk:
    'Each item is a provider-initiated body and is handled exactly like POST /provisioning/provider-initiated, on its own ' +
    '(own transaction, in order): one refused item never affects another. The answer is 200 with one result per item: ' +
    '`created` (new subscription, with route, subscription_id and job_id), `replayed` (it already existed: idempotent per ' +
    '(subscriber email, plan version, location), also within the batch) or `error` with the reason (the 4xx detail a single ' +
    'request would have answered, e.g. `subscriber.email: Invalid email address`). Resend only the failed items. ' +
    '30 requests per minute per key.',
  getProvisioningJob:
    'The state of a job_id from a provisioning response: `queued` (waiting, also between retries: see attempts and error), ' +
    '`running`, `succeeded` (the port is provisioned; provisioning.completed was sent) or `failed` (retries exhausted; ' +
    '`error` says why and provisioning.failed was sent; the subscription stays ACTIVE and the operator re-provisions the port). ' +
    "Only jobs of the key's provider: any other id answers 404. 300 requests per minute per key: poll every few seconds, " +
    'or wait for the webhook.',
  confirmInstall:
    'Provider staff (dashboard JWT in `Authorization: Bearer`) confirm that the installation of an own PENDING_INSTALL ' +
    "subscription is done. The install job must be SHIPPED (else 409) and is COMPLETED; the unit's port is attached. A " +
    'subscription the provider bills becomes ACTIVE at once and its port is provisioned by a job (`job_id`); one this service ' +
    'bills gets its first invoice (the installation month pro rata) and the saved card is charged right after the answer, else ' +
    'the subscriber is emailed a payment link; it becomes ACTIVE, and its port is provisioned, when that payment succeeds ' +
    '(`job_id` null until then; `status` and `payment` say which). ' +
    'No webhook fires: poll the session status or the subscription. Not callable with a partner API key.',
  // rollback.routes.ts
  rollbackPage: `${ROLLBACK_RULES} Shows what the link would undo and a button that posts to the same address; opening it changes nothing (mail scanners open links).`,
  rollbackChange:
    `${ROLLBACK_RULES} Restores the contact fields the change set (only while they still hold the values it set) or returns to the previous ` +
    'plan: a plan change of its own (source `rollback`), exempt from the one-change-per-day rule, whose one-time adjustment the ' +
    "billing engine writes like any plan change (a credit or an invoice line that reverses this month's amount). Audited. Answers an HTML page.",
  // serviceability.routes.ts
  serviceabilityAutocomplete:
    SERVICEABILITY_AUTH +
    'Returns at most 15 (or `limit`) suggestions, unique by `display`, each with `orderable` and the `building_id` to continue with ' +
    '(GET /serviceability/units, checkout, provisioning). House-number suffixes match fused or separated ("12a" = "12 A"). ' +
    'Suggestions start with what was typed; when nothing does, similar addresses are offered. 300 requests per minute per key. ' +
    ADVISORY,
  serviceabilityCheck:
    SERVICEABILITY_AUTH +
    'Send `address` (free text; German 5-digit and Canadian A1A 1A1 postcodes are recognised) or structured fields starting with ' +
    '`street` (structured wins when both are sent; neither answers 422). The house number must match exactly including its suffix ' +
    '("12" does not match "12a"; "12 A" does). No match answers 200 `{serviceable: false, match: null, plans: [], building_id: null}`. ' +
    'A match outside coverage or closed for orders answers `serviceable: false` with the match and no plans. 120 requests per minute per key. ' +
    ADVISORY,
  serviceabilityUnits:
    SERVICEABILITY_AUTH +
    'Every unit of one building in coverage, each with `available` (false while a pending, pending-install, active or suspended ' +
    'subscription occupies it, or a cancelled one whose end date has not come). Unavailable units are listed: show them disabled. 404 for an unknown building, a building of ' +
    'another provider, or one not in coverage. 300 requests per minute per key. ' +
    ADVISORY,
  // staff.routes.ts
  inviteProviderUser:
    `${STAFF_RULES} The invitee is always created with role service_provider under the caller's provider, with the sp_role given ` +
    '(`sp_admin`, `support`, `sales`, `bookkeeping`; anything else 422). ' +
    'The set-password mail (a single-use link valid 14 days, used with POST /auth/set-password) is sent asynchronously. ' +
    'A login belongs to one email across all providers: an email that already has a login elsewhere (another provider, a ' +
    'subscriber, anywhere) answers exactly like a new invitation (201, the same summary) but creates nothing and mails that ' +
    'address a notice naming your provider; such a summary is then not listed and its id is unknown to the other routes. ' +
    'An email of your own staff answers 409. ' +
    'Send an `Idempotency-Key` to make a retry after a network error replay the first 201 instead of answering 409.',
  listProviderUsers: `${STAFF_RULES} A bare list of user summaries, oldest first.`,
  resendProviderUserInvite:
    `${STAFF_RULES} Mails a new 14-day set-password link; earlier invite links of the user stop working. A user of another provider ` +
    '(or unknown) answers 404; a user who already chose a password (status active) answers 409: use the password reset.',
  withdrawProviderUserInvite:
    `${STAFF_RULES} Withdraws an invitation nobody accepted yet (status invited): the invited user and its invite links are ` +
    'removed, the link stops working and the email is free again (for another invitation, or for a subscriber login). ' +
    'Answers `{ok: true}`. A user of another provider (or unknown) answers 404; a user who already chose a password (status active) ' +
    'answers 409: an active staff account is not removed here.',
  // stripe-events.routes.ts
  receiveStripeEvent:
    "Stripe Connect endpoint for the platform's connected accounts. The Stripe-Signature header is checked by Stripe's SDK " +
    'against STRIPE_WEBHOOK_SECRET before anything is read (400 when it does not verify). Each event id is applied once ' +
    '(a redelivery answers 200 with outcome duplicate). payment_intent.succeeded pays the invoice in its metadata when ' +
    'account, amount and currency match; payment_intent.payment_failed leaves the invoice open; setup_intent.succeeded ' +
    'saves the card of the subscriber whose setup it is, read back from Stripe. Other types are recorded and ignored. ' +
    '503 dependency_unconfigured without an endpoint secret; 502 when Stripe cannot be asked (Stripe redelivers).',
  // subscriber.routes.ts
  getSubscriberMe:
    'Always 200 for a subscriber token. Without a subscriber record yet (an account created at checkout before completion), ' +
    '`subscriber` and `provider` are null and `subscriptions` is empty; `checkout_sessions` still lists the anonymous ' +
    "external-checkout sessions created with this account's token.",
  getSubscriberDetails:
    'Contract holder, billing contact and invoice address, customer_number (null for accounts linked before the rollout) and the saved card summary. 404 without a subscriber record.',
  changeSubscriberPassword:
    'Needs the current password. A wrong current password answers 400 `Current password is incorrect`; a new password under ' +
    "10 characters answers 422. Outstanding password-reset and activation links stop working, and so does every token issued before the change, this request's own included: log in again with the new password. " +
    'Wrong current passwords count with failed logins: 10 from one client network within 15 minutes lock both from that network for 15 minutes (429 with Retry-After).',
  listSubscriberInvoices:
    'The invoices this service issued (monthly and first invoices), sorted by invoice_date descending, each with its lines. Drafts are never listed. 404 without a subscriber record.',
  listSubscriberCreditNotes:
    'Read live from the billing system on every call. Drafts, archived and voided notes are never listed. When the billing ' +
    'system is unreachable the answer is 502 (never an empty list in its place): retry later. The PDF of a note is at ' +
    '`pdf_url` (GET /api/v1/credit-notes/{id}/pdf). 404 without a subscriber record.',
  getSubscriberUsage:
    "Summed over the subscriber's subscriptions, in decimal gigabytes (1 GB = 1000^3 bytes, 2 places). `status` is " +
    '`no_subscription` (no subscription) or `no_data` (nothing recorded in the window) with an empty `months` list; otherwise ' +
    '`ok` with 7 months, oldest first, months without records as 0, the current one flagged `partial`. 404 without a subscriber record.',
  getSubscriberStatusHistory:
    'At most the 100 most recent events. `ongoing` is true while `resolved_at` is null. Degrades to an empty `events` list on ' +
    'any failure (and without a subscriber record): an empty list does not prove there were no events.',
  changeSubscriberBillingDay:
    'The billing period stays the calendar month: only the collection day moves, and no invoice, credit note or correction ' +
    'results. If the current month is already invoiced, the new day applies from next month (`effective_period` = next ' +
    "month's 1st). If it is not invoiced yet, the day must still lie ahead this month: a day that is today or has passed " +
    "answers 409 (choose a later day, or change it after this month's invoice). When the service does not invoice the " +
    'current month (provider-billed, not yet installed, starting next month) the day applies from next month. ' +
    "`next_send_date` is the next recurring invoice's date under the new day, null when the subscription has no recurring " +
    'invoice (provider-billed or not in service). 502 means the day WAS saved but the billing system could not reschedule ' +
    'the next invoice: repeat the same request (safe). 404: not one of your subscriptions. 422: billing_day outside 1 to 10.',
  // subscription-status.routes.ts
  changeSubscriptionStatus:
    `\`X-Webhook-Secret\`. ${SECRET_SCOPE_NOTE} For providers that own billing. \`suspend\` applies only to an ACTIVE subscription: ` +
    'it becomes SUSPENDED and its port is switched to the captive portal; if the switch call fails the subscription is still ' +
    'SUSPENDED, with `port_changed: false` and a short `port_error`. `restore` applies to a SUSPENDED subscription: it becomes ' +
    'ACTIVE and port provisioning is re-queued (`port_changed: false`, applied asynchronously). `restore` on an ACTIVE ' +
    'subscription is an idempotent 200 saying it is already ACTIVE. Any other state answers 409. A subscription this service ' +
    'bills answers 409 for both actions (its suspension follows non-payment and a payment lifts it); an unknown subscription ' +
    'or one of another provider answers 404. No webhook fires: the response is the confirmation. There are no billing effects.',
} as const;
