import type { ContractClient } from './contract-client.js';
import { IDEMPOTENCY_KEY_RE, type ContractOperation } from './contracts/contract.js';
import { switchContract, type portOperationResult } from './contracts/switch.contract.js';
import { AdapterError, type FaultControl, type PortSpec, type SwitchController } from './types.js';
import type { z } from 'zod';

const op = (id: string): ContractOperation => switchContract.operations.find((o) => o.operationId === id)!;
const PROVISION = op('provisionPort');
const CAPTIVE = op('setCaptivePortal');
const RESET = op('resetPort');
const BANDWIDTH = op('updateBandwidth');

/** The fault switch of an adapter that talks to a real system: there is nothing to inject into. */
export function noFaults(where: string): FaultControl {
  return {
    mode: 'none',
    set(mode) {
      if (mode !== 'none') throw new Error(`fault injection needs the simulator server; this adapter talks to ${where}`);
    },
    reset() {},
  };
}

/**
 * The switch controller over its published HTTP contract (openapi/adapters/switch.json): one signed
 * attempt per call, the operation key as Idempotency-Key; no answer, a timeout or any non-2xx is an
 * AdapterError ('unreachable', 'timeout', 'failed'), which the calling job retries.
 */
export function createHttpSwitchController(o: { client: ContractClient; faults?: FaultControl }): SwitchController {
  const { client } = o;

  async function call(operation: ContractOperation, key: unknown, locationId: unknown, body: unknown) {
    if (typeof key !== 'string' || !IDEMPOTENCY_KEY_RE.test(key)) {
      throw new AdapterError('switch', 'failed', 'operationKey must be 1 to 200 printable ASCII characters without spaces');
    }
    const answer = await client.send(operation, { params: { location_id: String(locationId) }, body, idempotencyKey: key });
    if (answer.status !== 200) throw client.refusal(answer, operation);
    return client.read<z.infer<typeof portOperationResult>>(answer, operation);
  }

  return {
    faults: o.faults ?? noFaults('the switch controller at SWITCH_URL'),

    async provisionPort(spec: PortSpec) {
      await call(PROVISION, spec.operationKey, spec.locationId, {
        switch_id: spec.switchId,
        port: spec.port,
        vlan_id: spec.vlanId,
        download_mbps: spec.downloadMbps,
        upload_mbps: spec.uploadMbps,
        mac_address: spec.macAddress ?? null,
      });
    },

    async setCaptivePortal(req) {
      await call(CAPTIVE, req.operationKey, req.locationId, {});
    },

    async resetPort(req) {
      await call(RESET, req.operationKey, req.locationId, {});
    },

    async updateBandwidth(req) {
      const r = await call(BANDWIDTH, req.operationKey, req.locationId, { download_mbps: req.downloadMbps, upload_mbps: req.uploadMbps });
      return { applied: r.applied };
    },
  };
}
