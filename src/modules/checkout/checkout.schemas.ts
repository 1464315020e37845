import { z } from 'zod';
import { AddressParts } from '../../lib/address.schemas.js';

const MAC = /^[0-9A-Fa-f]{2}([:-])[0-9A-Fa-f]{2}(\1[0-9A-Fa-f]{2}){4}$/;

export const SessionIdParams = z.object({ session_id: z.uuid().describe('The session_id from the checkout redirect') });

export const CreateSessionBody = z
  .object({
    provider_id: z.uuid().describe('The provider whose checkout page the shopper is sent to'),
    plan_version_id: z.uuid().describe('An active plan version of that provider'),
    location_hash: z
      .string()
      .min(1)
      .max(200)
      .nullish()
      .describe('The port (captive-portal location hash), when known; sets building and unit'),
    unit_id: z.uuid().nullish().describe('The unit (suite) chosen from GET /serviceability/units; sets the building'),
    building_id: z
      .uuid()
      .nullish()
      .describe('The building (address search); at least one of location_hash, unit_id, building_id is required'),
    mac_address: z
      .string()
      .regex(MAC, 'must be a MAC address like AA:BB:CC:DD:EE:FF')
      .nullish()
      .describe('Device MAC to bind on the port (kept internal, never returned)'),
    partner_reference: z.string().max(200).nullish().describe('Free reference (at most 200 characters), also settable later by PATCH'),
  })
  // "At least one of location_hash, unit_id, building_id" (checked by the service), in the document.
  .meta({
    anyOf: ['location_hash', 'unit_id', 'building_id'].map((f) => ({ required: [f], properties: { [f]: { type: 'string' } } })),
  });

export const CreateSessionResponse = z.object({
  session_id: z.uuid(),
  checkout_url: z.string().describe("Redirect the shopper here: the provider's external_checkout_url with session_id appended"),
  status: z.literal('pending'),
  expires_at: z.string().describe('RFC 3339 UTC; the session expires then unless the checkout page has read it'),
});

const SESSION_STATUSES = ['pending', 'redirected', 'completed', 'expired', 'cancelled'] as const;

export const SessionView = z.object({
  session_id: z.uuid(),
  status: z.enum(SESSION_STATUSES).describe('pending (never read), redirected (read by the checkout page), completed'),
  provider_id: z.uuid(),
  plan_version_id: z.uuid(),
  building_id: z.uuid().nullable(),
  unit_id: z.uuid().nullable(),
  partner_reference: z.string().nullable().describe('Your own reference, set by PATCH'),
  subscription_id: z.uuid().nullable().describe('Set once the session is completed'),
  subscription_status: z
    .string()
    .nullable()
    .describe('Status of the subscription created from the session (e.g. PENDING_INSTALL, ACTIVE); null before completion'),
  created_at: z.string().describe('RFC 3339 UTC'),
  expires_at: z.string().nullable().describe('While pending: when the session expires unread; null once read (it never expires then)'),
  redirected_at: z.string().nullable(),
  completed_at: z.string().nullable(),
  plan: z.object({
    plan_version_id: z.uuid(),
    name: z.string(),
    monthly_price: z.string().describe('Decimal string with two places'),
    currency: z.string().describe('ISO 4217'),
    store_product_id: z.string().nullable().describe('Joins the plan to a product in your own catalog'),
    bandwidth: z.object({ download_mbps: z.number().int(), upload_mbps: z.number().int() }),
  }),
  units: z
    .object({
      unit_id: z.uuid().nullable().describe('null when the session names only a building'),
      label: z.string().nullable(),
      floor: z.number().int().nullable(),
      buildings: z
        .object({
          building_id: z.uuid().nullable(),
          ...AddressParts,
        })
        .describe('The building address; every field may be null, render defensively. The only place the building address reaches you'),
    })
    .nullable()
    .describe('The unit with its building nested as `units.buildings`'),
  provider: z.object({
    id: z.uuid(),
    name: z.string(),
    branding: z.object({
      display_name: z.string().nullable(),
      logo_url: z.string().nullable(),
      primary_color: z.string().nullable(),
      support_phone: z.string().nullable(),
    }),
  }),
});

export const PatchSessionBody = z
  .strictObject({
    plan_version_id: z.uuid().optional().describe('Upsell: another active plan version of the same provider'),
    partner_reference: z.string().max(200).nullable().optional().describe('Your own reference id (at most 200 characters; null clears it)'),
  })
  .describe('Only these two fields are accepted; any other field (unit_id, delivery_mode, service_provider_document_id, ...) answers 422');

export const SessionStatusResponse = z.object({
  session_id: z.uuid(),
  status: z.enum(SESSION_STATUSES),
  subscription_status: z.string().nullable().describe('Status of the linked subscription (becomes ACTIVE); null before completion'),
});

export const GoneDetail = z
  .object({
    detail: z.object({
      code: z.enum(['session_expired', 'session_cancelled']),
      detail: z.string().describe('"Session expired" or "Session cancelled"'),
    }),
  })
  .describe('Expired or cancelled session: `detail` is a nested object');
