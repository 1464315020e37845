import { z } from 'zod';

const price = z
  .string()
  .regex(/^\d{1,7}(\.\d{1,2})?$/, 'a decimal amount with at most two decimals, e.g. 29.90')
  .describe('Monthly price incl. VAT as a decimal string, e.g. "29.90"');
const mbps = z.coerce.number().int().min(1).max(100_000);

export const PlanCreateInput = z.object({
  name: z.string().trim().min(1).max(200),
  description: z.string().trim().max(1000).nullish(),
  download_mbps: mbps,
  upload_mbps: mbps,
  monthly_price: price,
  currency: z
    .string()
    .regex(/^[A-Z]{3}$/, 'an ISO 4217 code in capitals, e.g. EUR')
    .optional()
    .describe("Defaults to the provider's currency"),
  store_product_id: z.string().trim().min(1).max(200).nullish(),
});
export type PlanCreateInput = z.input<typeof PlanCreateInput>;

/** A new version: the fields given change, the others are the latest version's. */
export const PlanVersionInput = PlanCreateInput.omit({ description: true })
  .partial()
  .extend({
    keep_previous: z
      .boolean()
      .default(false)
      .describe('Keep the earlier versions on sale (default: they stop being offered; their subscriptions keep them)'),
  });
export type PlanVersionInput = z.input<typeof PlanVersionInput>;

const PlanVersionView = z.object({
  id: z.uuid().describe('plan_version_id: what checkout sessions and plan changes name'),
  version: z.number().int(),
  name: z.string(),
  download_mbps: z.number().int(),
  upload_mbps: z.number().int(),
  monthly_price: z.string(),
  currency: z.string(),
  store_product_id: z.string().nullable(),
  active: z.boolean().describe('On sale: offered to new checkouts and plan changes'),
  created_at: z.string(),
});
export const PlanView = z.object({
  id: z.uuid(),
  provider_id: z.uuid(),
  name: z.string(),
  description: z.string().nullable(),
  versions: z.array(PlanVersionView),
});
export type PlanView = z.infer<typeof PlanView>;
