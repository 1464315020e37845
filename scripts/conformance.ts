// `npm run conformance -- --system switch --url <base URL> --secret <whsec_...> --location <uuid>`
// `npm run conformance -- --system billing --url <base URL> --secret <whsec_...> [--subscriber <uuid>] [--subscription <uuid>]`
//
// For a provider implementing openapi/adapters/switch.json or billing.json (docs/integration.md):
// exercises every operation of the contract against their endpoint, signed as this server signs,
// and checks each answer (status and body) against the published OpenAPI document, plus the
// transport rules: idempotent repeats, key reuse, signature, replay window, timeout. The switch
// checks change the given port (provision, bandwidth, captive portal, reset): use a test port.
// Exit code 0 when every check passed, 1 otherwise.
import { randomBytes, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { Command } from 'commander';
import { contractKey, signContractRequest } from '../src/adapters/contract-signing.js';
import { fillPath, TIMEOUT_MS } from '../src/adapters/contracts/contract.js';

export type System = 'switch' | 'billing';
export const CONTRACT_FILES: Record<System, string> = { switch: 'openapi/adapters/switch.json', billing: 'openapi/adapters/billing.json' };

type Json = Record<string, any>;

export interface Check {
  name: string;
  ok: boolean;
  detail: string;
}

/** Validates bodies against the published document's schemas (JSON Schema 2020-12, as OpenAPI 3.1 has it). */
export function contractValidator(doc: Json) {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats.default(ajv);
  ajv.addSchema({ $id: 'https://contract.invalid/adapters.json', components: doc.components });
  const cache = new Map<string, ReturnType<typeof ajv.compile>>();
  const compile = (key: string, schema: Json) => {
    let v = cache.get(key);
    if (!v) {
      v = ajv.compile(
        JSON.parse(JSON.stringify(schema).replaceAll('"#/components/', '"https://contract.invalid/adapters.json#/components/')),
      );
      cache.set(key, v);
    }
    return v;
  };
  const operation = (operationId: string) => {
    for (const [path, item] of Object.entries<Json>(doc.paths)) {
      for (const [method, op] of Object.entries<Json>(item))
        if (op.operationId === operationId) return { path, method: method.toUpperCase(), op };
    }
    throw new Error(`the contract has no operation ${operationId}`);
  };
  const problem = (v: ReturnType<typeof ajv.compile>, body: unknown) =>
    v(body) ? null : (v.errors ?? []).map((e) => `${e.instancePath || 'body'} ${e.message}`).join('; ');
  return {
    operation,
    /** Why an answer does not match the document for its status (null: it does). */
    response(operationId: string, status: number, body: unknown): string | null {
      const { op } = operation(operationId);
      const r = op.responses[String(status)];
      if (!r) return `status ${status} is not documented for ${operationId}`;
      const schema = r.content?.['application/json']?.schema;
      return schema ? problem(compile(`${operationId} ${status}`, schema), body) : null;
    },
    /** Why a request body does not match the document (null: it does). */
    request(operationId: string, body: unknown): string | null {
      const { op } = operation(operationId);
      const schema = op.requestBody?.content?.['application/json']?.schema;
      if (!schema) return body === undefined || body === '' ? null : `${operationId} takes no body`;
      return problem(compile(`${operationId} request`, schema), body);
    },
  };
}

interface Sent {
  status: number;
  body: unknown;
  ms: number;
  headers: Record<string, string>;
}

/** Runs every check of one contract against an endpoint; never throws for what the endpoint answers. */
export async function runConformance(o: {
  system: System;
  url: string;
  secret: string;
  locationId?: string;
  subscriberId?: string;
  subscriptionId?: string;
}): Promise<Check[]> {
  const doc = JSON.parse(readFileSync(CONTRACT_FILES[o.system], 'utf8')) as Json;
  const contract = contractValidator(doc);
  const key = contractKey(o.secret);
  const base = o.url.replace(/\/+$/, '');
  const checks: Check[] = [];
  const run = `conf-${randomBytes(4).toString('hex')}`;

  async function send(
    operationId: string,
    params: Record<string, string>,
    body: unknown,
    opt: { key?: string; signWith?: Buffer; at?: Date; headers?: Record<string, string> } = {},
  ): Promise<Sent> {
    const { path: template, method, op } = contract.operation(operationId);
    const path = fillPath(template, params);
    const raw = op.requestBody ? JSON.stringify(body ?? {}) : '';
    const headers: Record<string, string> = opt.headers ?? {
      accept: 'application/json',
      ...(op.requestBody ? { 'content-type': 'application/json' } : {}),
      ...(opt.key ? { 'idempotency-key': opt.key } : {}),
      ...signContractRequest(opt.signWith ?? key, { method, path, idempotencyKey: opt.key, body: raw }, opt.at ?? new Date()),
    };
    const started = Date.now();
    try {
      const res = await fetch(`${base}${path}`, {
        method,
        headers,
        body: raw || undefined,
        redirect: 'manual',
        signal: AbortSignal.timeout(2 * TIMEOUT_MS),
      });
      const text = await res.text();
      let parsed: unknown = text;
      try {
        parsed = text ? JSON.parse(text) : undefined;
      } catch {
        /* judged as not JSON below */
      }
      return { status: res.status, body: parsed, ms: Date.now() - started, headers };
    } catch (err) {
      return { status: 0, body: String((err as Error).message), ms: Date.now() - started, headers };
    }
  }

  function expectAnswer(name: string, operationId: string, r: Sent, status: number, extra?: (body: any) => string | null) {
    let detail: string;
    if (r.status !== status) detail = `expected HTTP ${status}, got ${r.status || 'no answer'}: ${JSON.stringify(r.body)?.slice(0, 300)}`;
    else if (r.ms > TIMEOUT_MS) detail = `answered after ${r.ms} ms; this server gives up after ${TIMEOUT_MS} ms`;
    else detail = contract.response(operationId, r.status, r.body) ?? extra?.(r.body) ?? '';
    checks.push({ name, ok: detail === '', detail: detail || `HTTP ${r.status} in ${r.ms} ms` });
  }

  // The transport rules, on a read (billing) or on a write whose key makes a repeat harmless (switch).
  async function transport(operationId: string, params: Record<string, string>, body: unknown, idemKey?: string) {
    const wrong = Buffer.from(randomBytes(32));
    expectAnswer(
      'a wrong signature is refused (401)',
      operationId,
      await send(operationId, params, body, { key: idemKey, signWith: wrong }),
      401,
    );
    const stale = new Date(Date.now() - 10 * 60_000);
    expectAnswer(
      'a timestamp 10 minutes old is refused (401)',
      operationId,
      await send(operationId, params, body, { key: idemKey, at: stale }),
      401,
    );
    const first = await send(operationId, params, body, { key: idemKey });
    expectAnswer('a signed request is accepted (200)', operationId, first, 200);
    expectAnswer(
      'the same request again (same webhook-id) is refused as a replay (401)',
      operationId,
      await send(operationId, params, body, { headers: first.headers }),
      401,
    );
  }

  if (o.system === 'switch') {
    if (!o.locationId) throw new Error('--location <uuid> is required: a test port the switch controller knows');
    const loc = { location_id: o.locationId };
    const provision = { switch_id: 'conformance', port: 'test', vlan_id: 3999, download_mbps: 100, upload_mbps: 20, mac_address: null };
    const k = (n: string) => `${run}-${n}`;
    const first = await send('provisionPort', loc, provision, { key: k('provision') });
    expectAnswer('provisionPort answers 200 with applied: true', 'provisionPort', first, 200, (b) =>
      b.applied === true && b.operation_key === k('provision') ? null : 'expected applied: true and operation_key = the Idempotency-Key',
    );
    const again = await send('provisionPort', loc, provision, { key: k('provision') });
    expectAnswer('provisionPort repeated with the same Idempotency-Key answers the first answer', 'provisionPort', again, 200, (b) =>
      JSON.stringify(b) === JSON.stringify(first.body) ? null : `first ${JSON.stringify(first.body)}, repeat ${JSON.stringify(b)}`,
    );
    expectAnswer(
      'the same Idempotency-Key for another action answers 409',
      'resetPort',
      await send('resetPort', loc, {}, { key: k('provision') }),
      409,
    );
    expectAnswer(
      'updateBandwidth answers 200 (applied true or false)',
      'updateBandwidth',
      await send('updateBandwidth', loc, { download_mbps: 200, upload_mbps: 40 }, { key: k('bandwidth') }),
      200,
    );
    expectAnswer('setCaptivePortal answers 200', 'setCaptivePortal', await send('setCaptivePortal', loc, {}, { key: k('captive') }), 200);
    expectAnswer(
      'a body outside the contract (vlan_id 5000) answers 400',
      'provisionPort',
      await send('provisionPort', loc, { ...provision, vlan_id: 5000 }, { key: k('bad') }),
      400,
    );
    expectAnswer(
      'an unknown location answers 404',
      'provisionPort',
      await send('provisionPort', { location_id: randomUUID() }, provision, { key: k('unknown') }),
      404,
    );
    await transport('resetPort', loc, {}, k('reset'));
  } else {
    const subscriber = o.subscriberId ?? randomUUID();
    const list = await send('listCreditNotes', { subscriber_id: subscriber }, undefined);
    expectAnswer('listCreditNotes answers 200 with { data: [...] }', 'listCreditNotes', list, 200);
    expectAnswer(
      'listCreditNotes of an unknown subscriber answers 200 with no credit notes',
      'listCreditNotes',
      await send('listCreditNotes', { subscriber_id: randomUUID() }, undefined),
      200,
      (b) => (Array.isArray(b?.data) && b.data.length === 0 ? null : 'expected data: []'),
    );
    const firstNote = (list.body as { data?: { id: string }[] } | undefined)?.data?.[0];
    if (firstNote) {
      expectAnswer(
        'getCreditNote of a listed credit note answers it',
        'getCreditNote',
        await send('getCreditNote', { credit_note_id: firstNote.id }, undefined),
        200,
        (b) => (b.id === firstNote.id ? null : `expected id ${firstNote.id}`),
      );
    }
    expectAnswer(
      'getCreditNote of an unknown id answers 404',
      'getCreditNote',
      await send('getCreditNote', { credit_note_id: `${run}-missing` }, undefined),
      404,
    );
    const sub = { subscription_id: o.subscriptionId ?? randomUUID() };
    const date = new Date(Date.now() + 40 * 86_400_000).toISOString().slice(0, 10);
    const key = `${run}-reschedule`;
    const set = await send('rescheduleNextInvoice', sub, { send_date: date }, { key });
    expectAnswer('rescheduleNextInvoice answers 200 with the date it holds', 'rescheduleNextInvoice', set, 200, (b) =>
      b.next_send_date === date ? null : `expected next_send_date ${date}`,
    );
    const again = await send('rescheduleNextInvoice', sub, { send_date: date }, { key });
    expectAnswer(
      'rescheduleNextInvoice repeated with the same Idempotency-Key answers the first answer',
      'rescheduleNextInvoice',
      again,
      200,
      (b) => (JSON.stringify(b) === JSON.stringify(set.body) ? null : 'the repeat answered differently'),
    );
    expectAnswer(
      'the same Idempotency-Key with another body answers 409',
      'rescheduleNextInvoice',
      await send('rescheduleNextInvoice', sub, { send_date: '2030-01-02' }, { key }),
      409,
    );
    expectAnswer(
      'a body outside the contract (2026-02-30) answers 400',
      'rescheduleNextInvoice',
      await send('rescheduleNextInvoice', sub, { send_date: '2026-02-30' }, { key: `${run}-bad` }),
      400,
    );
    await transport('listCreditNotes', { subscriber_id: subscriber }, undefined);
  }
  return checks;
}

async function main() {
  const cmd = new Command('conformance')
    .description('Checks an implementation of the switch or billing contract (openapi/adapters/*.json) at its base URL')
    .requiredOption('--system <system>', 'switch | billing')
    .requiredOption('--url <url>', 'the base URL of the implementation (the paths of the contract are relative to it)')
    .option('--secret <secret>', 'the shared secret, whsec_... (default: $CONFORMANCE_SECRET)')
    .option('--location <uuid>', 'switch: a test location (port) the switch controller knows; it is provisioned, then reset')
    .option('--subscriber <uuid>', 'billing: a subscriber with credit notes (default: a random one, with none)')
    .option('--subscription <uuid>', 'billing: a subscription whose next invoice date may be moved (default: a random one)')
    .parse();
  const o = cmd.opts<{ system: string; url: string; secret?: string; location?: string; subscriber?: string; subscription?: string }>();
  if (o.system !== 'switch' && o.system !== 'billing') cmd.error('--system must be switch or billing');
  const secret = o.secret ?? process.env.CONFORMANCE_SECRET;
  if (!secret) cmd.error('--secret or CONFORMANCE_SECRET is required');
  const checks = await runConformance({
    system: o.system as System,
    url: o.url,
    secret: secret!,
    locationId: o.location,
    subscriberId: o.subscriber,
    subscriptionId: o.subscription,
  });
  for (const c of checks) process.stdout.write(`${c.ok ? 'ok  ' : 'FAIL'} ${c.name}: ${c.detail}\n`);
  const failed = checks.filter((c) => !c.ok).length;
  process.stdout.write(`\n${checks.length - failed} of ${checks.length} checks passed (${CONTRACT_FILES[o.system as System]})\n`);
  process.exitCode = failed ? 1 : 0;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) await main();
