import { z } from 'zod';
import { emailAddress } from '../../lib/email.js';

const DATE_RE = /^\d{4}-\d{2}-\d{2}$/;

const SubscriberDetails = z
  .object({
    email: emailAddress()
      .max(254)
      .describe(
        'Identifies the subscriber within the provider: an existing subscriber with this email (case-insensitive) is reused, unchanged',
      ),
    first_name: z.string().trim().min(1).max(100),
    last_name: z.string().trim().min(1).max(100),
    phone: z.string().trim().max(40).nullish().describe("Any common notation; national numbers are read in the building's country"),
  })
  .describe('The subscriber (created, or reused by email within the provider)');

const MoveInDate = z
  .string()
  .regex(DATE_RE, 'must be a date YYYY-MM-DD')
  .refine((s) => !Number.isNaN(Date.parse(`${s}T00:00:00Z`)), 'must be a valid date')
  .meta({ format: 'date' })
  .describe(
    "Third-line buildings: the booking invitation is held until this date is inside the provider's booking window, and no window before it is offered",
  );

const MacAddress = z
  .string()
  .trim()
  .max(64)
  .describe('Optional MAC binding of the port, e.g. AA:BB:CC:DD:EE:FF (":" "-" or none as separators)');

/** The explicit-fields body: provider-initiated, bulk items and the legacy complete. */
const ExplicitFields = {
  plan_version_id: z.uuid().describe('A plan version of your provider (must be orderable)'),
  delivery_mode: z
    .enum(['direct', 'home_drop'])
    .optional()
    .describe(
      "`direct`: you hold a port (location_hash); `home_drop`: you hold a unit (unit_id). Defaults to direct (as the partner document says): a body with unit_id must say home_drop, else 422 naming delivery_mode. The building's line type still decides, a mismatch answers 422",
    ),
  location_hash: z.string().trim().min(1).max(200).optional().describe('The port (captive portal location) for delivery_mode direct'),
  unit_id: z.uuid().optional().describe('The unit (suite) for delivery_mode home_drop'),
  mac_address: MacAddress.optional(),
  move_in_date: MoveInDate.optional(),
  subscriber: SubscriberDetails,
};

export const ProviderInitiatedBody = z.object(ExplicitFields).describe('Provider-initiated provisioning (CKO-04)');

export const ProvisioningResponse = z.object({
  route: z
    .enum(['provision', 'install'])
    .describe(
      'Branch on this: `provision` = ACTIVE, port provisioned asynchronously (poll job_id or wait for provisioning.completed); `install` = PENDING_INSTALL, an install job was raised',
    ),
  job_id: z
    .string()
    .nullable()
    .describe('The port-provisioning job (route provision); null on the install route; on a replay the existing job id or an empty string'),
  subscription_id: z.uuid(),
  subscriber_id: z.uuid(),
  message: z
    .string()
    .describe('New: a summary. Replay: `Subscription already exists (idempotent replay)` or `Provisioning already in progress`'),
});

export const BulkBody = z.object({
  items: z.array(z.unknown()).min(1).max(500).describe('Up to 500 provider-initiated bodies; each is validated and provisioned on its own'),
});

export const BulkResult = z.object({
  index: z.number().int().describe('Position of the item in `items`'),
  status: z.enum(['created', 'replayed', 'error']),
  route: z.enum(['provision', 'install']).optional(),
  subscription_id: z.uuid().optional(),
  job_id: z.string().nullable().optional(),
  error: z.string().optional().describe('Why the item was refused (the detail a single request would have answered)'),
});

export const BulkResponse = z.object({ results: z.array(BulkResult) });

export const JobParams = z.object({ job_id: z.uuid().describe('The job_id of a provisioning response') });

export const JobResponse = z.object({
  job_id: z.uuid(),
  kind: z.string().describe('`provisioning.port`'),
  status: z.enum(['queued', 'running', 'succeeded', 'failed']).describe('queued also while waiting for a retry after a failed attempt'),
  attempts: z.number().int().describe('Attempts made so far'),
  error: z.string().nullable().describe("The last attempt's error (kept while retrying, final when failed)"),
  subscription_id: z.uuid().nullable(),
  created_at: z.string().describe('RFC 3339 UTC'),
  updated_at: z.string().describe('RFC 3339 UTC'),
});

export const ConfirmInstallBody = z.object({
  subscription_id: z.uuid().describe('A PENDING_INSTALL subscription of your provider whose install job is SHIPPED'),
});

export const ConfirmInstallResponse = z.object({
  subscription_id: z.uuid(),
  status: z
    .enum(['ACTIVE', 'PENDING_INSTALL'])
    .describe(
      'ACTIVE when nothing is owed to this service; PENDING_INSTALL while the first payment is collected (it turns ACTIVE when paid)',
    ),
  job_id: z
    .uuid()
    .nullable()
    .describe(
      'The port-provisioning job, queued when the subscription became ACTIVE; null while the first payment is collected (the port is provisioned when it is paid)',
    ),
  payment: z
    .enum(['not_billed', 'collecting', 'already_paid'])
    .describe(
      '`not_billed`: the provider bills this subscription (or nothing is owed); `collecting`: the first invoice was created and the saved card is charged right after this answer, else a payment link is emailed; `already_paid`: the first invoice was paid before',
    ),
  message: z.string(),
});

// Completion (CKO-03) -------------------------------------------------------------------------

const CompleteFields = {
  session_id: z
    .uuid()
    .optional()
    .describe(
      'Session-based (recommended): the session decides provider, plan, location/unit, building and MAC; payload values that disagree are ignored',
    ),
  subscriber: SubscriberDetails,
  plan_version_id: z.uuid().optional().describe('Explicit-fields (legacy, no session_id): required'),
  delivery_mode: ExplicitFields.delivery_mode.describe('Explicit-fields only (ignored with session_id)'),
  location_hash: ExplicitFields.location_hash.describe('Explicit-fields: the port (direct). Ignored with session_id'),
  unit_id: ExplicitFields.unit_id.describe('Explicit-fields: the unit (home_drop). Ignored with session_id'),
  mac_address: MacAddress.optional().describe("Explicit-fields: optional MAC binding. Ignored with session_id (the session's MAC wins)"),
  move_in_date: MoveInDate.optional(),
};

export const CompleteBody = z.object(CompleteFields);

export const CompleteReplayResponse = z
  .object({
    subscription_id: z.uuid(),
    subscriber_id: z.uuid(),
    message: z.string().describe('`Session already completed (idempotent replay)` or `Subscription already exists (idempotent replay)`'),
  })
  .describe('Idempotent replay: the session (or explicit order) was already completed; no job_id');

export const AnonymousCompleteBody = z.object({
  ...CompleteFields,
  external_subscription_id: z
    .string()
    .trim()
    .min(1)
    .max(200)
    .optional()
    .describe('Your own id of this subscription; a repeat with the same id answers the existing subscription (idempotent_replay true)'),
});

export const AnonymousCompleteResponse = z.object({
  route: z.enum(['provision', 'install']).optional().describe('Present on a new subscription; branch on it'),
  job_id: z.string().nullable().optional().describe('Port job of route provision (null on install); absent on a replay'),
  subscription_id: z.uuid(),
  subscriber_id: z.uuid(),
  message: z.string(),
  idempotent_replay: z.boolean().describe('true: the subscription already existed for this external_subscription_id or completed session'),
});
