import type { Db } from '../db/database.js';
import type { Clock } from '../lib/clock.js';
import { isUuid } from '../lib/ids.js';
import { createFaults, simulateCall, type SimFaultControl } from './faults.js';
import {
  claimAndApply,
  findLocationPort,
  findOperation,
  findSwitchPort,
  type PortChange,
  type SwitchAction,
  type SwitchPortRow,
} from './simulator.repository.js';
import { AdapterError, type PortSpec, type SwitchController } from './types.js';

/**
 * Switches whose id starts with this prefix cannot change a port's bandwidth unattended: the
 * change is accepted and held for an operator (`updateBandwidth` answers `{applied: false}`).
 */
const LEGACY_SWITCH_PREFIX = 'legacy-';

function needsOperatorConfirmation(switchId: string | null | undefined): boolean {
  return typeof switchId === 'string' && switchId.toLowerCase().startsWith(LEGACY_SWITCH_PREFIX);
}

type SwitchPortState = SwitchPortRow;

export interface SwitchControllerSimulator extends SwitchController {
  readonly faults: SimFaultControl;
  /** The port as the simulated switch holds it; null when the switch never touched it. */
  getPort(locationId: string): Promise<SwitchPortState | null>;
}

const MAC_RE = /^([0-9a-f]{2}[:-]){5}[0-9a-f]{2}$/i;

function refused(message: string): AdapterError {
  return new AdapterError('switch', 'failed', message);
}

function checkKey(key: unknown, locationId: unknown) {
  if (typeof key !== 'string' || key.length === 0 || key.length > 200)
    throw refused('operationKey must be a string of 1 to 200 characters');
  if (typeof locationId !== 'string' || !isUuid(locationId)) throw refused('locationId must be a UUID');
}

function checkMbps(name: string, v: unknown) {
  if (!Number.isInteger(v) || (v as number) < 1 || (v as number) > 100_000) throw refused(`${name} must be an integer from 1 to 100000`);
}

/**
 * The switch controller simulator. Port state lives in `sim_switch_ports` and every applied
 * operation key in `sim_switch_operations`, so a retried job (or a restarted process) repeating a
 * key changes nothing and gets the first answer again. Only locations of the port inventory
 * (`locations`) are known to the switch.
 */
export function createSwitchSimulator({ db, clock, timeoutMs }: { db: Db; clock: Clock; timeoutMs?: number }): SwitchControllerSimulator {
  const faults = createFaults(timeoutMs);

  type Location = NonNullable<Awaited<ReturnType<typeof findLocationPort>>>;
  type Plan<R> = { insertMode: string; change: PortChange; result: R };

  /**
   * Applies one operation once per key. A plan that depends on the inventory entry (the switch of
   * the location, or the one the port was last set up on) reads it first; a fixed plan goes
   * straight to the one statement that claims the key and changes the port.
   */
  function operate<R extends Record<string, unknown>>(
    key: string,
    locationId: string,
    action: SwitchAction,
    plan: Plan<R> | ((location: Location) => Plan<R>),
  ): Promise<R> {
    const unknown = () => refused(`unknown port: location ${locationId} is not in the switch inventory`);
    return simulateCall('switch', faults, async () => {
      let p: Plan<R>;
      if (typeof plan === 'function') {
        const location = await findLocationPort(db, locationId);
        if (!location) throw unknown();
        p = plan(location);
      } else {
        p = plan;
      }
      const r = await claimAndApply(db, {
        key,
        locationId,
        action,
        at: clock.now(),
        result: p.result,
        insertMode: p.insertMode,
        change: p.change,
      });
      if (!r.known) throw unknown();
      if (r.claimed) return p.result;
      const prior = (await findOperation(db, key))!;
      if (prior.action !== action || prior.location_id !== locationId) {
        throw refused(`operationKey ${key} was already used for ${prior.action} on location ${prior.location_id}`);
      }
      return prior.result as R;
    });
  }

  return {
    faults: faults.control,

    async provisionPort(spec: PortSpec) {
      checkKey(spec?.operationKey, spec?.locationId);
      if (!spec.switchId || !spec.port) throw refused(`location ${spec.locationId} has no switch port configured`);
      if (!Number.isInteger(spec.vlanId) || (spec.vlanId as number) < 1 || (spec.vlanId as number) > 4094) {
        throw refused('vlanId must be an integer from 1 to 4094');
      }
      checkMbps('downloadMbps', spec.downloadMbps);
      checkMbps('uploadMbps', spec.uploadMbps);
      if (spec.macAddress != null && !MAC_RE.test(spec.macAddress)) throw refused('macAddress must look like aa:bb:cc:dd:ee:ff');
      const mac = spec.macAddress ? spec.macAddress.toLowerCase().replace(/-/g, ':') : null;
      await operate(spec.operationKey, spec.locationId, 'provision_port', {
        insertMode: 'provisioned',
        change: {
          mode: 'provisioned',
          switch_id: spec.switchId,
          port: spec.port,
          vlan_id: spec.vlanId,
          download_mbps: spec.downloadMbps,
          upload_mbps: spec.uploadMbps,
          mac_address: mac,
          pending_download_mbps: null,
          pending_upload_mbps: null,
        },
        result: {},
      });
    },

    async setCaptivePortal(req) {
      checkKey(req?.operationKey, req?.locationId);
      await operate(req.operationKey, req.locationId, 'captive_portal', (loc) => ({
        insertMode: 'captive_portal',
        change: { mode: 'captive_portal', switch_id: loc.switch_id, port: loc.switch_port },
        result: {},
      }));
    },

    async resetPort(req) {
      checkKey(req?.operationKey, req?.locationId);
      await operate(req.operationKey, req.locationId, 'reset_port', (loc) => ({
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
      }));
    },

    async updateBandwidth(req) {
      checkKey(req?.operationKey, req?.locationId);
      checkMbps('downloadMbps', req.downloadMbps);
      checkMbps('uploadMbps', req.uploadMbps);
      const result = await operate(req.operationKey, req.locationId, 'update_bandwidth', (loc) => {
        const held = needsOperatorConfirmation(loc.switch_id ?? loc.port_switch_id);
        return {
          insertMode: 'provisioned',
          change: held
            ? {
                switch_id: loc.switch_id,
                port: loc.switch_port,
                pending_download_mbps: req.downloadMbps,
                pending_upload_mbps: req.uploadMbps,
              }
            : {
                switch_id: loc.switch_id,
                port: loc.switch_port,
                download_mbps: req.downloadMbps,
                upload_mbps: req.uploadMbps,
                pending_download_mbps: null,
                pending_upload_mbps: null,
              },
          result: { applied: !held },
        };
      });
      return { applied: result.applied === true };
    },

    async getPort(locationId) {
      if (!isUuid(locationId)) return null;
      return (await findSwitchPort(db, locationId)) ?? null;
    },
  };
}
