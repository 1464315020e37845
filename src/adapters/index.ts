import type { Config } from '../config.js';
import type { Db } from '../db/database.js';
import type { Clock } from '../lib/clock.js';
import { createHttpBillingSystem } from './billing.http.js';
import { billingSimulator, readSimulatedSendDate, type BillingSystemSimulator } from './billing.simulator.js';
import { createCardSimulator, type CardProcessorSimulator } from './card.simulator.js';
import { cardSimulatorPlugin } from './card.simulator-routes.js';
import { createContractClient, type ContractClient } from './contract-client.js';
import { applyFaultSpec } from './fault-spec.js';
import type { SimFaultControl } from './faults.js';
import { startSimulatorServer, type SimulatorPlugin, type SimulatorServer } from './simulator-server.js';
import { createSmsSimulator, type SmsGatewaySimulator } from './sms.simulator.js';
import { createHttpSwitchController } from './switch.http.js';
import { readSimulatedPort, switchSimulator, type SwitchControllerSimulator } from './switch.simulator.js';
import { createStripeCardProcessor } from './stripe.card.js';
import type { Adapters, CardProcessor, FaultControl } from './types.js';

export { TEST_CARDS, DECLINING_PAYMENT_METHOD_MARKER } from './card.simulator.js';
export { runningSimulatorServers, startSimulatorServer, type SimulatorPlugin, type SimulatorServer } from './simulator-server.js';

/** The four adapters against the simulators, with their test-facing extras typed. */
export interface SimulatedAdapters extends Adapters {
  switchController: SwitchControllerSimulator;
  billingSystem: BillingSystemSimulator;
  cardProcessor: CardProcessorSimulator;
  sms: SmsGatewaySimulator;
}

/**
 * The systems the simulator server serves, each a Fastify plugin under /<name>. Another simulated
 * system (a Stripe or Twilio stand-in) is one more entry here: see SimulatorPlugin. The card
 * simulator's browser routes (/card) are added by createAdapters: they need the app's own simulator.
 */
export const SIMULATOR_PLUGINS: SimulatorPlugin[] = [switchSimulator, billingSimulator];

export type AdapterConfig = Pick<
  Config,
  | 'NODE_ENV'
  | 'SWITCH_URL'
  | 'SWITCH_SECRET'
  | 'BILLING_URL'
  | 'BILLING_SECRET'
  | 'SIMULATOR_HOST'
  | 'SIMULATOR_PORT'
  | 'SIMULATOR_FAULTS'
  | 'CARD_PROCESSOR'
  | 'STRIPE_SECRET_KEY'
  | 'STRIPE_API_URL'
  | 'CARD_SIMULATOR_URL'
  | 'publicBaseUrl'
>;

export interface AdaptersHandle {
  adapters: Adapters;
  /** The simulator server this process started (null in production, or when both systems have URLs). */
  simulators: SimulatorServer | null;
  /** Stops the simulator server, if one was started. */
  close(): Promise<void>;
}

const SIMULATED = Symbol('simulated adapters');

/** A simulated system's fault switch as tests hold it: the server's state, plus this client's timeout. */
function simulatedFaults(server: FaultControl, client: ContractClient): SimFaultControl {
  return {
    get mode() {
      return server.mode;
    },
    set: (mode, opts) => server.set(mode, opts),
    reset: () => server.reset(),
    get timeoutMs() {
      return client.timeoutMs;
    },
    set timeoutMs(ms: number) {
      client.timeoutMs = ms;
    },
  };
}

/**
 * The external systems. The switch controller and the billing system are always the HTTP adapters
 * of their published contracts (openapi/adapters/): in production at SWITCH_URL / BILLING_URL (no
 * simulator is ever built there), elsewhere at those URLs when set, else at a simulator server
 * this call starts (SIMULATOR_HOST:SIMULATOR_PORT, default 127.0.0.1 and a free port) over the same database.
 * Adapters stand for remote systems: never call them inside a database transaction (on the
 * embedded database the simulator would wait for the transaction's one connection).
 */
export async function createAdapters(deps: { config: AdapterConfig; db: Db; clock: Clock }): Promise<AdaptersHandle> {
  const { config, db, clock } = deps;
  const production = config.NODE_ENV === 'production';
  const simulateSwitch = !production && !config.SWITCH_URL;
  const simulateBilling = !production && !config.BILLING_URL;
  // Production never builds the card or SMS simulator: the card processor is Stripe (null without
  // STRIPE_SECRET_KEY: every provider then answers 409) and SMS goes only through a provider's own
  // gateway (modules/integrations).
  const simulateCard = !production && config.CARD_PROCESSOR === 'simulator';
  const cardSimulator = simulateCard ? createCardSimulator({ clock }) : null;
  // The card simulator's browser routes (/card) on the simulator server: the pay page's test form posts
  // there unless CARD_SIMULATOR_URL names a server of its own. Return URLs only to this server's origin.
  const cardPlugins = cardSimulator
    ? [cardSimulatorPlugin({ simulator: cardSimulator, returnOrigins: [new URL(config.publicBaseUrl).origin] })]
    : [];
  const server =
    simulateSwitch || simulateBilling || (cardSimulator && !config.CARD_SIMULATOR_URL)
      ? await startSimulatorServer({
          db,
          clock,
          host: config.SIMULATOR_HOST,
          port: config.SIMULATOR_PORT,
          plugins: [...SIMULATOR_PLUGINS, ...cardPlugins],
        })
      : null;
  if (cardSimulator) cardSimulator.browserUrl = config.CARD_SIMULATOR_URL ?? (server ? server.urlOf('card') : null);

  const client = (system: 'switch' | 'billing', url: string | undefined, secret: string | undefined) =>
    createContractClient({
      system,
      baseUrl: url ?? server!.urlOf(system),
      secret: url ? secret! : server!.secretOf(system),
      clock,
    });
  const switchClient = client('switch', simulateSwitch ? undefined : config.SWITCH_URL, config.SWITCH_SECRET);
  const billingClient = client('billing', simulateBilling ? undefined : config.BILLING_URL, config.BILLING_SECRET);

  const switchController = simulateSwitch
    ? {
        ...createHttpSwitchController({ client: switchClient }),
        faults: simulatedFaults(server!.faultsOf('switch'), switchClient),
        getPort: (locationId: string) => readSimulatedPort(db, locationId),
      }
    : createHttpSwitchController({ client: switchClient });
  const billingSystem = simulateBilling
    ? {
        ...createHttpBillingSystem({ client: billingClient }),
        faults: simulatedFaults(server!.faultsOf('billing'), billingClient),
        getNextInvoiceSendDate: (subscriptionId: string) => readSimulatedSendDate(db, subscriptionId),
      }
    : createHttpBillingSystem({ client: billingClient });

  const cardProcessor: CardProcessor | null = cardSimulator
    ? cardSimulator
    : config.STRIPE_SECRET_KEY
      ? createStripeCardProcessor({ secretKey: config.STRIPE_SECRET_KEY, apiUrl: config.STRIPE_API_URL })
      : null;
  const adapters: Adapters = {
    switchController,
    billingSystem,
    cardProcessor,
    sms: production ? null : createSmsSimulator({ clock }),
  };
  if (simulateSwitch && simulateBilling && simulateCard) Object.defineProperty(adapters, SIMULATED, { value: true, enumerable: false });
  if (!production) applyFaultSpec(adapters, config.SIMULATOR_FAULTS);
  return { adapters, simulators: server, close: async () => server?.close() };
}

/** Tests: the simulators behind `deps.adapters` (sms.sent, card charges, switch port state, ...). */
export function simulatorsOf(adapters: Adapters): SimulatedAdapters {
  if (!(adapters as unknown as Record<symbol, unknown>)[SIMULATED])
    throw new Error('these adapters are not the embedded simulators (or their simulator server)');
  return adapters as SimulatedAdapters;
}

/** Clears every injected fault (e.g. in afterEach). */
export function resetAllFaults(adapters: Adapters) {
  for (const a of [adapters.switchController, adapters.billingSystem, adapters.cardProcessor, adapters.sms]) a?.faults.reset();
}
