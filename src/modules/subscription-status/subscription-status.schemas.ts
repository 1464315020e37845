import { z } from 'zod';

export const SubscriptionStatusBody = z.object({
  subscription_id: z.uuid().describe('A subscription of your provider'),
  action: z
    .enum(['suspend', 'restore'])
    .describe('suspend: ACTIVE → SUSPENDED (port to captive portal); restore: SUSPENDED → ACTIVE (port re-provisioned)'),
});

export const SubscriptionStatusResponse = z.object({
  subscription_id: z.uuid(),
  status: z.enum(['ACTIVE', 'SUSPENDED']).describe('The subscription status after the action'),
  port_changed: z
    .boolean()
    .describe('suspend: the port was switched to the captive portal now. restore: always false, the port is re-provisioned asynchronously'),
  port_error: z
    .string()
    .nullable()
    .describe(
      'Set only on suspend when the switch action was attempted and failed (the subscription is SUSPENDED anyway; an operator follows up)',
    ),
  message: z.string(),
});
