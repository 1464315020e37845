import { z } from 'zod';

const nullableText = (what: string) => z.string().nullable().describe(what);

const AddressParts = {
  building_id: z
    .uuid()
    .nullable()
    .describe('Building to pass on to checkout or provisioning; null when the address is not linked to a building yet'),
  street: z.string().describe('Street name'),
  house_number: z.string().describe('House number as recorded, suffix included ("12a")'),
  postal_code: nullableText('Postal code ("10115", "M5V 2T6")'),
  city: nullableText('City'),
  province: nullableText('Province or state, where recorded'),
  country: z.string().describe('ISO 3166-1 alpha-2 country code'),
};

export const AutocompleteQuery = z.object({
  q: z
    .string()
    .trim()
    .min(3)
    .max(200)
    .describe(
      'What the user typed so far (at least 3 characters); house-number suffixes may be fused or separated ("12a" or "12 A"); addresses shown house number first (Canada, US: "12 King Street West, Toronto ...") also match when the street is typed first ("King Street West 12")',
    ),
  limit: z.coerce.number().int().min(1).max(15).default(15).describe('Maximum suggestions (1 to 15, default 15)'),
});

const Suggestion = z.object({
  display: z.string().describe('The suggestion as shown to the user; suggestions are unique by this string'),
  ...AddressParts,
  orderable: z
    .boolean()
    .describe(
      'Whether this address can be ordered now (the building is in coverage and open for orders). Show non-orderable suggestions disabled',
    ),
});

export const AutocompleteResponse = z.object({
  suggestions: z.array(Suggestion).max(15).describe('At most 15 suggestions, best first'),
});

export const CheckBody = z
  .object({
    address: z
      .string()
      .trim()
      .min(1)
      .max(300)
      .optional()
      .describe('Free-text address, e.g. "Hauptstraße 12a, 10115 Berlin" or "12A Main Street, Toronto ON M5V 2T6"'),
    street: z
      .string()
      .trim()
      .min(1)
      .max(200)
      .optional()
      .describe('Structured: street name (may carry the house number when house_number is absent)'),
    house_number: z
      .string()
      .trim()
      .min(1)
      .max(20)
      .optional()
      .describe('Structured: house number with its suffix ("12a" and "12 A" are the same; "12" is not "12a")'),
    postal_code: z.string().trim().min(1).max(20).optional().describe('Structured: postal code (German 5 digits, Canadian A1A 1A1)'),
    city: z.string().trim().min(1).max(100).optional().describe('Structured: city'),
    province: z.string().trim().min(1).max(100).optional().describe('Structured: province or state'),
    country: z
      .string()
      .regex(/^[A-Za-z]{2}$/, 'must be a two-letter ISO country code')
      .optional()
      .describe('Structured: ISO 3166-1 alpha-2 country code'),
  })
  .describe(
    'Either `address` (free text) or structured fields starting with `street`; when both are sent the structured fields win. Neither answers 422.',
  );

const ServiceabilityPlan = z.object({
  plan_version_id: z.uuid().describe('Plan version to order (pass to checkout or provisioning)'),
  name: z.string(),
  monthly_price: z.string().describe('Monthly price, decimal string with two places'),
  currency: z.string().describe('ISO 4217 currency'),
  download_mbps: z.number().int(),
  upload_mbps: z.number().int(),
  store_product_id: z.string().nullable().describe("Product id in the provider's own catalog"),
});

export const CheckResponse = z.object({
  serviceable: z.boolean().describe('True when the address matched a building in coverage that is open for orders'),
  match: z
    .object({ display: z.string(), ...AddressParts, orderable: z.boolean().describe('Whether the coverage entry is open for orders') })
    .nullable()
    .describe('The matched coverage address; null when nothing matched'),
  plans: z.array(ServiceabilityPlan).describe('Active plans orderable at the address; empty when not serviceable'),
  building_id: z.uuid().nullable().describe('The matched building; null when nothing matched'),
});

export const UnitsQuery = z.object({
  building_id: z.uuid().describe('Building id from autocomplete or check'),
});

export const UnitsResponse = z.object({
  building_id: z.uuid(),
  units: z.array(
    z.object({
      unit_id: z.uuid().describe('Unit (suite) id to pass on as unit_id'),
      label: z.string().describe('Unit label, e.g. "4B"'),
      floor: z.number().int().nullable(),
      available: z
        .boolean()
        .describe(
          'False when a pending, pending-install, active or suspended subscription occupies the unit, or a cancelled one until its end date (ended_at); show it disabled, do not hide it',
        ),
    }),
  ),
});
