import type { Adapters, FaultMode } from './types.js';

const SYSTEMS = { switch: 'switchController', billing: 'billingSystem', card: 'cardProcessor', sms: 'sms' } as const;
export const FAULT_SPEC_RE =
  /^((switch|billing|card|sms)=(unreachable|slow|failing)(:\d{1,6})?)(,(switch|billing|card|sms)=(unreachable|slow|failing)(:\d{1,6})?)*$/;

/**
 * SIMULATOR_FAULTS, e.g. "switch=slow:3000,billing=unreachable": faults a started server applies to
 * its embedded simulators, so demos and process-level tests (a kill in the middle of a slow switch
 * call) can exercise the 502/503 and retry paths without code.
 */
export function applyFaultSpec(adapters: Adapters, spec: string | undefined) {
  if (!spec) return;
  for (const part of spec.split(',')) {
    const [system, rest] = part.split('=') as [keyof typeof SYSTEMS, string];
    const [mode, delay] = rest.split(':');
    adapters[SYSTEMS[system]]?.faults.set(mode as FaultMode, delay ? { delayMs: Number(delay) } : {});
  }
}
