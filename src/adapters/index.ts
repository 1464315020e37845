import type { Db } from '../db/database.js';
import type { Clock } from '../lib/clock.js';
import { createBillingSimulator, type BillingSystemSimulator } from './billing.simulator.js';
import { createCardSimulator, type CardProcessorSimulator } from './card.simulator.js';
import { createSmsSimulator, type SmsGatewaySimulator } from './sms.simulator.js';
import { createSwitchSimulator, type SwitchControllerSimulator } from './switch.simulator.js';
import type { Adapters } from './types.js';

export { TEST_CARDS, DECLINING_PAYMENT_METHOD_MARKER } from './card.simulator.js';

/** The four adapters as the embedded simulators, with their test-facing extras typed. */
export interface SimulatedAdapters extends Adapters {
  switchController: SwitchControllerSimulator;
  billingSystem: BillingSystemSimulator;
  cardProcessor: CardProcessorSimulator;
  sms: SmsGatewaySimulator;
}

const SIMULATED = Symbol('simulated adapters');

/**
 * The external systems. Only simulators exist today (the embedded default), each with fault
 * injection and a call timeout (`timeoutMs`, default 5 s, also settable later via `faults.timeoutMs`).
 * Adapters stand for remote systems: never call them inside a database transaction (on the
 * embedded database that would wait for the transaction's one connection until the timeout).
 */
export function createAdapters(deps: { db: Db; clock: Clock; timeoutMs?: number }): SimulatedAdapters {
  const adapters: SimulatedAdapters = {
    switchController: createSwitchSimulator(deps),
    billingSystem: createBillingSimulator(deps),
    cardProcessor: createCardSimulator(deps),
    sms: createSmsSimulator(deps),
  };
  Object.defineProperty(adapters, SIMULATED, { value: true, enumerable: false });
  return adapters;
}

/** Tests: the simulators behind `deps.adapters` (sms.sent, card charges, switch port state, ...). */
export function simulatorsOf(adapters: Adapters): SimulatedAdapters {
  if (!(adapters as unknown as Record<symbol, unknown>)[SIMULATED]) throw new Error('these adapters are not the embedded simulators');
  return adapters as SimulatedAdapters;
}

/** Clears every injected fault (e.g. in afterEach). */
export function resetAllFaults(adapters: Adapters) {
  for (const a of [adapters.switchController, adapters.billingSystem, adapters.cardProcessor, adapters.sms]) a.faults.reset();
}
