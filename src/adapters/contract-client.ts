import type { Clock } from '../lib/clock.js';
import { contractKey, signContractRequest } from './contract-signing.js';
import { contractError, fillPath, RETRYABLE_STATUSES, TIMEOUT_MS, type ContractOperation } from './contracts/contract.js';
import { AdapterError } from './types.js';

type System = 'switch' | 'billing';

const NAMES: Record<System, string> = { switch: 'switch controller', billing: 'billing system' };

interface ContractAnswer {
  status: number;
  /** The parsed JSON body (undefined when there was none or it was not JSON). */
  body: unknown;
}

export interface ContractClient {
  readonly system: System;
  /** One call's bound (connect, send, answer, body); tests shorten it. */
  timeoutMs: number;
  /**
   * One signed request, one attempt (the job that made the call retries: see the contract's
   * "Retries"). Resolves with any answer that arrived; rejects with AdapterError 'unreachable'
   * (no connection, reset, DNS) or 'timeout'.
   */
  send(op: ContractOperation, req: { params: Record<string, string>; body?: unknown; idempotencyKey?: string }): Promise<ContractAnswer>;
  /** An answer that is not the operation's success: AdapterError 'failed' naming status and code. */
  refusal(answer: ContractAnswer, op: ContractOperation): AdapterError;
  /** The success body, read with the contract's schema; 'failed' when it does not match. */
  read<T>(answer: ContractAnswer, op: ContractOperation): T;
}

/** A client of one contract at `baseUrl`, signing with `secret` at the clock's time. */
export function createContractClient(o: {
  system: System;
  baseUrl: string;
  secret: string;
  clock: Clock;
  timeoutMs?: number;
}): ContractClient {
  const key = contractKey(o.secret);
  const base = o.baseUrl.replace(/\/+$/, '');
  const name = NAMES[o.system];

  const client: ContractClient = {
    system: o.system,
    timeoutMs: o.timeoutMs ?? TIMEOUT_MS,

    async send(op, req) {
      const path = fillPath(op.path, req.params);
      const body = op.body ? JSON.stringify(req.body ?? {}) : '';
      const headers: Record<string, string> = {
        accept: 'application/json',
        'user-agent': 'netsvc-adapters/1.0',
        ...signContractRequest(key, { method: op.method, path, idempotencyKey: req.idempotencyKey, body }, o.clock.now()),
      };
      if (op.body) headers['content-type'] = 'application/json';
      if (req.idempotencyKey !== undefined) headers['idempotency-key'] = req.idempotencyKey;
      const timeoutMs = client.timeoutMs;
      try {
        const res = await fetch(`${base}${path}`, {
          method: op.method,
          headers,
          body: op.body ? body : undefined,
          redirect: 'manual',
          signal: AbortSignal.timeout(timeoutMs),
        });
        const text = await res.text();
        let parsed: unknown;
        try {
          parsed = text ? JSON.parse(text) : undefined;
        } catch {
          parsed = undefined;
        }
        return { status: res.status, body: parsed };
      } catch (err) {
        const e = err as Error & { cause?: { code?: string; message?: string } };
        if (e.name === 'TimeoutError' || e.name === 'AbortError') {
          throw new AdapterError(o.system, 'timeout', `${name} did not answer within ${timeoutMs} ms`);
        }
        const why = e.cause?.code ?? e.cause?.message ?? e.message;
        throw new AdapterError(o.system, 'unreachable', `${name} unreachable: ${why}`);
      }
    },

    refusal(answer, op) {
      const err = contractError.safeParse(answer.body);
      const detail = `${op.operationId}, HTTP ${answer.status}${err.success ? ` ${err.data.error.code}: ${err.data.error.message.slice(0, 300)}` : ''}`;
      // An outage reads as today's simulator failure (it reaches job errors and provisioning.failed
      // webhooks); the details are kept on the error for the log. A refusal on the merits names them.
      if (RETRYABLE_STATUSES.has(answer.status) || answer.status >= 500) {
        return new AdapterError(o.system, 'failed', `${name} answered with an error`, detail);
      }
      return new AdapterError(o.system, 'failed', `${name} refused the request (${detail})`, detail);
    },

    read<T>(answer: ContractAnswer, op: ContractOperation): T {
      const r = op.ok.schema.safeParse(answer.body);
      if (!r.success) {
        const first = r.error.issues[0];
        throw new AdapterError(
          o.system,
          'failed',
          `${name} answered ${op.operationId} outside the contract: ${first ? `${first.path.join('.') || 'body'}: ${first.message}` : 'no body'}`,
        );
      }
      return r.data as T;
    },
  };
  return client;
}
