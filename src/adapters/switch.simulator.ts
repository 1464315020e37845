import type { FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { z } from 'zod';
import type { Db } from '../db/database.js';
import { isUuid } from '../lib/ids.js';
import { fastifyPath, IDEMPOTENCY_KEY_RE, type ContractOperation } from './contracts/contract.js';
import { switchContract } from './contracts/switch.contract.js';
import type { SimFaultControl } from './faults.js';
import { SimRefusal, type SimulatorPlugin } from './simulator-server.js';
import {
  claimAndApply,
  findLocationPort,
  findOperation,
  findSwitchPort,
  type PortChange,
  type SwitchAction,
  type SwitchPortRow,
} from './simulator.repository.js';
import type { SwitchController } from './types.js';
import { present } from '../lib/present.js';

/**
 * Switches whose id starts with this prefix cannot change a port's bandwidth unattended: the
 * change is accepted and held for an operator (`updateBandwidth` answers `{applied: false}`).
 */
const LEGACY_SWITCH_PREFIX = 'legacy-';

function needsOperatorConfirmation(switchId: string | null | undefined): boolean {
  return typeof switchId === 'string' && switchId.toLowerCase().startsWith(LEGACY_SWITCH_PREFIX);
}

/** The switch controller adapter (HTTP, against the simulator server) with its test-facing extras. */
export interface SwitchControllerSimulator extends SwitchController {
  readonly faults: SimFaultControl;
  /** The port as the simulated switch holds it; null when the switch never touched it. */
  getPort(locationId: string): Promise<SwitchPortRow | null>;
}

/** The simulated switch's port state (what getPort reads). */
export async function readSimulatedPort(db: Db, locationId: string): Promise<SwitchPortRow | null> {
  if (!isUuid(locationId)) return null;
  return (await findSwitchPort(db, locationId)) ?? null;
}

type Location = NonNullable<Awaited<ReturnType<typeof findLocationPort>>>;
type Plan = { insertMode: string; change: PortChange; result: Record<string, unknown> };

const ACTIONS: Record<string, SwitchAction> = {
  provisionPort: 'provision_port',
  setCaptivePortal: 'captive_portal',
  resetPort: 'reset_port',
  updateBandwidth: 'update_bandwidth',
};

/** What each operation does to the port, from its validated body and (for most) the inventory entry. */
const PLANS: Record<SwitchAction, (body: Record<string, unknown>, loc: Location) => Plan> = {
  provision_port: (b) => ({
    insertMode: 'provisioned',
    change: {
      mode: 'provisioned',
      switch_id: b.switch_id as string,
      port: b.port as string,
      vlan_id: b.vlan_id as number,
      download_mbps: b.download_mbps as number,
      upload_mbps: b.upload_mbps as number,
      mac_address: typeof b.mac_address === 'string' ? b.mac_address.toLowerCase().replace(/-/g, ':') : null,
      pending_download_mbps: null,
      pending_upload_mbps: null,
    },
    result: {},
  }),
  captive_portal: (_b, loc) => ({
    insertMode: 'captive_portal',
    change: { mode: 'captive_portal', switch_id: loc.switch_id, port: loc.switch_port },
    result: {},
  }),
  reset_port: (_b, loc) => ({
    insertMode: 'reset',
    change: {
      mode: 'reset',
      switch_id: loc.switch_id,
      port: loc.switch_port,
      vlan_id: null,
      download_mbps: null,
      upload_mbps: null,
      mac_address: null,
      pending_download_mbps: null,
      pending_upload_mbps: null,
    },
    result: {},
  }),
  update_bandwidth: (b, loc) => {
    const held = needsOperatorConfirmation(loc.switch_id ?? loc.port_switch_id);
    const down = b.download_mbps as number;
    const up = b.upload_mbps as number;
    return {
      insertMode: 'provisioned',
      change: held
        ? { switch_id: loc.switch_id, port: loc.switch_port, pending_download_mbps: down, pending_upload_mbps: up }
        : {
            switch_id: loc.switch_id,
            port: loc.switch_port,
            download_mbps: down,
            upload_mbps: up,
            pending_download_mbps: null,
            pending_upload_mbps: null,
          },
      result: { applied: !held },
    };
  },
};

/**
 * The switch controller simulator, as a plugin of the simulator server implementing
 * openapi/adapters/switch.json. Port state lives in `sim_switch_ports` and every applied
 * Idempotency-Key in `sim_switch_operations`, so a retried job (or a restarted process) repeating a
 * key changes nothing and gets the first answer again. Only locations of the port inventory
 * (`locations`) are known to the switch.
 */
export const switchSimulator: SimulatorPlugin = {
  name: 'switch',
  signed: true,
  async plugin(instance, ctx) {
    const db = ctx.db;
    if (!db) throw new Error('the switch simulator keeps its ports in the database: give the simulator server a db');
    const app = instance.withTypeProvider<ZodTypeProvider>();

    async function apply(op: ContractOperation, request: FastifyRequest) {
      const key = request.headers['idempotency-key'];
      if (typeof key !== 'string' || !IDEMPOTENCY_KEY_RE.test(key)) {
        throw new SimRefusal(400, 'invalid_request', 'Idempotency-Key must be 1 to 200 printable ASCII characters');
      }
      const locationId = (request.params as { location_id: string }).location_id;
      const action = present(ACTIONS[op.operationId], `the switch action of ${op.operationId}`);
      const body = (request.body ?? {}) as Record<string, unknown>;
      const location = await findLocationPort(db!, locationId);
      if (!location) throw new SimRefusal(404, 'not_found', `unknown port: location ${locationId} is not in the switch inventory`);
      const plan = PLANS[action](body, location);
      const r = await claimAndApply(db!, { key, locationId, action, at: ctx.clock.now(), ...plan });
      if (!r.known) throw new SimRefusal(404, 'not_found', `unknown port: location ${locationId} is not in the switch inventory`);
      let result = plan.result;
      if (!r.claimed) {
        const prior = (await findOperation(db!, key))!;
        if (prior.action !== action || prior.location_id !== locationId) {
          throw new SimRefusal(
            409,
            'idempotency_key_reused',
            `Idempotency-Key ${key} was already used for ${prior.action} on location ${prior.location_id}`,
          );
        }
        result = prior.result as Record<string, unknown>;
      }
      return { operation_key: key, location_id: locationId, action, applied: result.applied !== false };
    }

    for (const op of switchContract.operations) {
      app.route({
        method: op.method,
        url: fastifyPath(op.path),
        schema: { params: op.params, ...(op.body ? { body: op.body } : {}) },
        handler: (request) => apply(op, request) as Promise<z.infer<typeof op.ok.schema>>,
      });
    }
  },
};
