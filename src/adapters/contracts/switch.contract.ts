import { z } from 'zod';
import type { Contract, ContractOperation } from './contract.js';

const locationParams = z.object({
  location_id: z
    .uuid()
    .describe(
      "The location (one switch port) in this server's port inventory; the same id for the life of the port, whatever the subscriber.",
    ),
});
const mbps = z.int().min(1).max(100_000);
const MAC_ADDRESS_RE = /^([0-9a-fA-F]{2}[:-]){5}[0-9a-fA-F]{2}$/;

const portAction = z.enum(['provision_port', 'captive_portal', 'reset_port', 'update_bandwidth']);

export const portOperationResult = z
  .object({
    operation_key: z.string().describe('The Idempotency-Key of the request this answers (the first request with that key).'),
    location_id: z.uuid(),
    action: portAction,
    applied: z
      .boolean()
      .describe(
        'true: the port is configured as asked. false (update_bandwidth only): the switch cannot change it unattended; the change is held for an operator to confirm.',
      ),
  })
  .meta({ id: 'PortOperationResult' });

const KEYED =
  'Idempotency-Key is the operation key of the job that makes the call: a retried job repeats it. The first request with a key is ' +
  'applied; a later one with the same key changes nothing and answers the first answer again (200), even when another operation ' +
  'came in between. The same key for another action or another location answers 409.';

const NOT_FOUND = 'not_found: the location is not in the switch inventory. Nothing changed.';
const REUSED = 'idempotency_key_reused: the key was used before for another action or another location. Nothing changed.';

const operations: ContractOperation[] = [
  {
    operationId: 'provisionPort',
    method: 'POST',
    path: '/ports/{location_id}/provision',
    summary: 'Provision a port for service',
    description:
      'Puts the port into service: the VLAN, the bandwidth of the plan and the optional MAC binding. Sent when a subscription becomes ' +
      `active (first installation, a restore after suspension, an operator re-queue). ${KEYED}`,
    params: locationParams,
    body: z
      .object({
        switch_id: z.string().min(1).max(100).describe('The switch the port is on, as the port inventory names it.'),
        port: z.string().min(1).max(100).describe('The port on that switch, e.g. ge-0/0/7.'),
        vlan_id: z.int().min(1).max(4094),
        download_mbps: mbps,
        upload_mbps: mbps,
        mac_address: z
          .string()
          .regex(MAC_ADDRESS_RE)
          .nullable()
          .describe("The subscriber's router to bind to the port (aa:bb:cc:dd:ee:ff or aa-bb-...); null: no binding."),
      })
      .strict(),
    idempotent: true,
    ok: { schema: portOperationResult, description: 'Applied (or a repeat of the key: the first answer again). `applied` is true.' },
    errors: { 404: NOT_FOUND, 409: REUSED, 422: 'unprocessable: the switch cannot configure this port (e.g. it has no such port).' },
  },
  {
    operationId: 'setCaptivePortal',
    method: 'POST',
    path: '/ports/{location_id}/captive-portal',
    summary: 'Move a port to the captive portal',
    description:
      'Suspension for non-payment (or by the provider): the port stays configured but its traffic goes to the captive portal until a ' +
      `provisionPort restores it. The body is an empty object. ${KEYED}`,
    params: locationParams,
    body: z.object({}).strict(),
    idempotent: true,
    ok: { schema: portOperationResult, description: 'Applied (or a repeat of the key).' },
    errors: { 404: NOT_FOUND, 409: REUSED },
  },
  {
    operationId: 'resetPort',
    method: 'POST',
    path: '/ports/{location_id}/reset',
    summary: 'Reset a port (end of service)',
    description: `End of service (cancellation): VLAN, bandwidth and MAC binding are removed. The body is an empty object. ${KEYED}`,
    params: locationParams,
    body: z.object({}).strict(),
    idempotent: true,
    ok: { schema: portOperationResult, description: 'Applied (or a repeat of the key).' },
    errors: { 404: NOT_FOUND, 409: REUSED },
  },
  {
    operationId: 'updateBandwidth',
    method: 'POST',
    path: '/ports/{location_id}/bandwidth',
    summary: "Change a port's bandwidth",
    description:
      'A plan change: the new bandwidth of the port. A switch that cannot change it unattended answers 200 with `applied: false`; ' +
      `this server then records the change as awaiting an operator (not an error, not retried). ${KEYED}`,
    params: locationParams,
    body: z.object({ download_mbps: mbps, upload_mbps: mbps }).strict(),
    idempotent: true,
    ok: { schema: portOperationResult, description: '`applied` true: in effect; false: held for operator confirmation.' },
    errors: { 404: NOT_FOUND, 409: REUSED },
  },
];

export const switchContract: Contract = {
  system: 'switch',
  title: 'Switch controller contract',
  description:
    "What this server sends to a provider's switch controller (or to a translator in front of it) to put access ports into " +
    'service, suspend, reset and re-rate them. The provider implements these operations at a base URL of its choice (https); ' +
    'the operator of this server sets SWITCH_URL to it and shares SWITCH_SECRET with it.',
  operations,
};
