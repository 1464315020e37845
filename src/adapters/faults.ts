import { AdapterError, type FaultControl, type FaultMode } from './types.js';

export type AdapterSystem = AdapterError['system'];

/** A simulator's fault switch plus its call timeout (tests shorten it). */
export interface SimFaultControl extends FaultControl {
  /** A call that has not answered after this many ms fails with AdapterError 'timeout'. */
  timeoutMs: number;
}

const DEFAULT_ADAPTER_TIMEOUT_MS = 5_000;
/** 'slow' without delayMs: slower than usual, still inside the default timeout. */
const DEFAULT_SLOW_DELAY_MS = 1_000;

const SYSTEM_NAMES: Record<AdapterSystem, string> = {
  switch: 'switch controller',
  billing: 'billing system',
  card: 'card processor',
  sms: 'SMS gateway',
};

export interface Faults {
  control: SimFaultControl;
  /** The fault of one call; counts it against `times` (the mode resets to 'none' when used up). */
  next(): { mode: FaultMode; delayMs: number };
}

export function createFaults(timeoutMs = DEFAULT_ADAPTER_TIMEOUT_MS): Faults {
  let mode: FaultMode = 'none';
  let delayMs = DEFAULT_SLOW_DELAY_MS;
  let remaining = Number.POSITIVE_INFINITY;

  const control: SimFaultControl = {
    timeoutMs,
    get mode() {
      return mode;
    },
    set(m, opts = {}) {
      if (opts.times !== undefined && (!Number.isInteger(opts.times) || opts.times < 1)) {
        throw new RangeError('faults.set: times must be a positive integer');
      }
      if (opts.delayMs !== undefined && (!Number.isFinite(opts.delayMs) || opts.delayMs < 0)) {
        throw new RangeError('faults.set: delayMs must be a non-negative number');
      }
      if (m === 'none') return control.reset();
      mode = m;
      delayMs = opts.delayMs ?? DEFAULT_SLOW_DELAY_MS;
      remaining = opts.times ?? Number.POSITIVE_INFINITY;
    },
    reset() {
      mode = 'none';
      delayMs = DEFAULT_SLOW_DELAY_MS;
      remaining = Number.POSITIVE_INFINITY;
    },
  };

  return {
    control,
    next() {
      if (mode === 'none') return { mode, delayMs: 0 };
      const fault = { mode, delayMs };
      remaining -= 1;
      if (remaining <= 0) control.reset();
      return fault;
    },
  };
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * One call to a simulated external system, as a client sees it: the injected fault first
 * (unreachable and failing never reach the system, so they change nothing), then the operation,
 * bounded by the timeout. A timed-out operation is not cancelled: like a real remote system the
 * simulator may still apply it after the caller gave up, which is why switch operations carry an
 * idempotency key. Errors that are not AdapterErrors (a simulator store failing) become 'failed'.
 */
export async function simulateCall<T>(system: AdapterSystem, faults: Faults, op: () => Promise<T>): Promise<T> {
  const name = SYSTEM_NAMES[system];
  const fault = faults.next();
  if (fault.mode === 'unreachable') throw new AdapterError(system, 'unreachable', `${name} unreachable: connection refused`);
  if (fault.mode === 'failing') throw new AdapterError(system, 'failed', `${name} answered with an error`);

  const work = (async () => {
    if (fault.mode === 'slow') await sleep(fault.delayMs);
    return op();
  })().catch((err: unknown) => {
    if (err instanceof AdapterError) throw err;
    throw new AdapterError(system, 'failed', `${name} failed: ${err instanceof Error ? err.message : String(err)}`);
  });
  // The caller may have given up already; a late failure must not become an unhandled rejection.
  work.catch(() => undefined);

  const timeoutMs = faults.control.timeoutMs;
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new AdapterError(system, 'timeout', `${name} did not answer within ${timeoutMs} ms`)), timeoutMs);
  });
  try {
    return await Promise.race([work, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
