// The /agent test kit: an app wired to a real SMTP sink, a request helper that records every
// response body (for the leak scan), seeded customers, and the verify-by-real-mail flow.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { AddressInfo } from 'node:net';
import { expect } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import {
  createBuilding,
  createLocation,
  createPlanVersion,
  createProvider,
  createSubscriber,
  createSubscription,
  createUser,
} from '../helpers/factories.js';
import { startSmtpSink, type SinkMessage, type SmtpSink } from '../helpers/smtp-sink.js';

export type Provider = Awaited<ReturnType<typeof createProvider>>;

interface Recorded {
  method: string;
  url: string;
  status: number;
  body: string;
}

interface CallOptions {
  key?: string | null;
  session?: string | null;
  payload?: unknown;
  headers?: Record<string, string>;
}

export interface AgentKit {
  t: TestApp;
  sink: SmtpSink;
  main: Provider;
  other: Provider;
  recorded: Recorded[];
  /** Clear codes and link tokens read from mails: they must never appear in a response. */
  mailedSecrets: Set<string>;
  call(
    method: 'GET' | 'POST' | 'PATCH',
    url: string,
    o?: CallOptions,
  ): Promise<{ status: number; body: any; headers: Record<string, unknown>; raw: string }>;
  close(): Promise<void>;
}

export async function setupAgent(opts: { env?: Record<string, string>; now?: string } = {}): Promise<AgentKit> {
  const sink = await startSmtpSink();
  const t = await buildTestApp({ env: { SMTP_URL: sink.url, ...opts.env }, now: opts.now });
  const main = await createProvider(t.db, { name: 'Main Fibre' });
  const other = await createProvider(t.db, { name: 'Other Net' });
  const recorded: Recorded[] = [];
  const kit: AgentKit = {
    t,
    sink,
    main,
    other,
    recorded,
    mailedSecrets: new Set(),
    async call(method, url, o = {}) {
      const headers: Record<string, string> = { ...(o.headers ?? {}) };
      const key = o.key === undefined ? main.apiKey : o.key;
      if (key) headers['x-api-key'] = key;
      if (o.session) headers['x-verified-session'] = o.session;
      const r = await t.app.inject({ method, url, headers, ...(o.payload !== undefined ? { payload: o.payload as object } : {}) });
      recorded.push({ method, url, status: r.statusCode, body: r.body });
      let body: any;
      try {
        body = r.body ? JSON.parse(r.body) : null;
      } catch {
        body = r.body;
      }
      return { status: r.statusCode, body, headers: r.headers, raw: r.body };
    },
    async close() {
      await t.close();
      await sink.close();
    },
  };
  return kit;
}

let unitSeq = 0;

/** A customer with one ACTIVE subscription in a building unit (and optionally a login). */
export async function seedCustomer(
  kit: AgentKit,
  o: {
    provider?: Provider;
    firstName?: string;
    lastName?: string;
    email?: string;
    phone?: string | null;
    unit?: string;
    street?: string;
    houseNumber?: string;
    city?: string;
    postalCode?: string;
    building?: { id: string; units: { id: string; label: string }[] };
    login?: 'active' | 'not_activated' | 'none';
    status?: 'PENDING' | 'PENDING_INSTALL' | 'ACTIVE' | 'SUSPENDED' | 'CANCELLED';
    priceCents?: number;
  } = {},
) {
  const db = kit.t.db;
  const provider = o.provider ?? kit.main;
  const unitLabel = o.unit ?? `U${++unitSeq}`;
  const building =
    o.building ??
    (await createBuilding(db, provider.id, {
      street: o.street ?? 'Lindenallee',
      houseNumber: o.houseNumber ?? String(10 + unitSeq),
      city: o.city ?? 'Berlin',
      postalCode: o.postalCode ?? '10117',
      units: [unitLabel],
    }));
  let unit = building.units.find((u) => u.label === unitLabel);
  if (!unit) {
    const { newId } = await import('../../src/lib/ids.js');
    unit = { id: newId(), label: unitLabel };
    await db.insertInto('units').values({ id: unit.id, building_id: building.id, label: unitLabel }).execute();
  }
  const location = await createLocation(db, provider.id, building.id, unit.id);
  const plan = await createPlanVersion(db, provider.id, { name: 'Fibre 250', priceCents: o.priceCents ?? 3999 });
  const user =
    o.login === 'none' || o.login === undefined
      ? null
      : await createUser(db, { email: o.email, password: o.login === 'active' ? 'correct horse battery' : null });
  const sub = await createSubscriber(db, provider.id, {
    firstName: o.firstName,
    lastName: o.lastName,
    email: o.email ?? user?.email,
    phone: o.phone,
    userId: user?.id ?? null,
  });
  const subscription = await createSubscription(db, {
    providerId: provider.id,
    subscriberId: sub.id,
    planVersionId: plan.id,
    buildingId: building.id,
    unitId: unit.id,
    locationId: location.id,
    status: o.status,
  });
  return { ...sub, provider, building, unit, location, plan, user, subscriptionId: subscription.id };
}

export type SeededCustomer = Awaited<ReturnType<typeof seedCustomer>>;

/** The newest verification-code mail to `email` after `since` (reads the real SMTP message). */
export async function codeFromMail(kit: AgentKit, email: string, skip = 0): Promise<{ code: string; message: SinkMessage }> {
  await kit.t.deps.jobs.drain();
  const mine = () => kit.sink.messages.filter((m) => m.to.includes(email.toLowerCase()) && m.tag === 'verification_code');
  await kit.sink.waitFor((m) => m.to.includes(email.toLowerCase()) && m.tag === 'verification_code' && mine().length > skip);
  const list = mine();
  const message = list[list.length - 1]!;
  const m = /(\d{6})/.exec(message.text.split('Verification code:')[1] ?? '');
  if (!m) throw new Error(`no code in mail: ${message.text}`);
  const code = m[1]!;
  kit.mailedSecrets.add(code);
  return { code, message };
}

/** verify/issue → the code from the real mail → verify/check: the session token. */
export async function verify(kit: AgentKit, customer: { id: string; email: string }, key = kit.main.apiKey): Promise<string> {
  const before = kit.sink.messages.filter((m) => m.to.includes(customer.email.toLowerCase()) && m.tag === 'verification_code').length;
  const issued = await kit.call('POST', '/agent/verify/issue', { key, payload: { customer_id: customer.id } });
  expect(issued.status).toBe(202);
  const { code } = await codeFromMail(kit, customer.email, before);
  const checked = await kit.call('POST', '/agent/verify/check', { key, payload: { customer_id: customer.id, code } });
  expect(checked.status).toBe(200);
  return checked.body.verified_session as string;
}

/** Expects the /agent envelope with this status and code. */
export function expectError(r: { status: number; body: any; headers: Record<string, unknown> }, status: number, code: string) {
  expect({ status: r.status, code: r.body?.error?.code }).toEqual({ status, code });
  expect(r.body).toEqual({
    error: expect.objectContaining({ code, message: expect.any(String), request_id: r.headers['x-request-id'] }),
  });
}

/**
 * Every response this file produced, scanned for internal fields and for the internal values
 * the database holds (operator notes, processor ids, MACs, user ids, note and transcript text,
 * codes and link tokens read from mails).
 */
export async function expectNoLeaks(kit: AgentKit) {
  const db = kit.t.db;
  const values = new Set<string>(kit.mailedSecrets);
  const add = (v: unknown) => {
    if (typeof v === 'string' && v.length >= 6) values.add(v);
  };
  for (const s of await db
    .selectFrom('subscribers')
    .select(['operator_notes', 'processor_customer_id', 'card_payment_method_id', 'user_id'])
    .execute()) {
    add(s.operator_notes);
    add(s.processor_customer_id);
    add(s.card_payment_method_id);
    add(s.user_id);
  }
  for (const u of await db.selectFrom('users').select('id').execute()) add(u.id);
  for (const s of await db.selectFrom('subscriptions').select('mac_address').execute()) add(s.mac_address);
  for (const i of await db.selectFrom('invoices').select('payment_intent_id').execute()) add(i.payment_intent_id);
  for (const n of await db.selectFrom('customer_notes').select('body').execute()) add(n.body);
  for (const c of await db.selectFrom('ticket_comments').select('body').where('public', '=', false).execute()) add(c.body);
  const fieldNames =
    /"(operator_notes|processor_customer_id|card_payment_method_id|payment_intent_id|mac_address|user_id|code_hash|token_hash|password_hash|card_setup_id)"/;
  const leaks: string[] = [];
  for (const r of kit.recorded) {
    if (fieldNames.test(r.body)) leaks.push(`${r.method} ${r.url} -> field ${fieldNames.exec(r.body)![1]}`);
    for (const v of values) {
      // Six-digit codes are matched as whole words (a run of digits inside a UUID is not a leak).
      const hit = /^\d+$/.test(v) ? new RegExp(`\\b${v}\\b`).test(r.body) : r.body.includes(v);
      if (hit) leaks.push(`${r.method} ${r.url} -> value ${v.slice(0, 40)}`);
    }
  }
  expect(kit.recorded.length).toBeGreaterThan(0);
  expect(leaks).toEqual([]);
}

/** The kit's app listening on a free port of 127.0.0.1 (once), as an HTTP client reaches it. */
export async function listenUrl(kit: AgentKit): Promise<string> {
  if (!kit.t.app.server.listening) await kit.t.app.listen({ port: 0, host: '127.0.0.1' });
  return `http://127.0.0.1:${(kit.t.app.server.address() as AddressInfo).port}`;
}

/** The official MCP client, connected to the kit's POST /agent/mcp with `apiKey` (the main provider's by default). */
export async function connectMcp(kit: AgentKit, name: string, apiKey: string = kit.main.apiKey): Promise<Client> {
  const client = new Client({ name, version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${await listenUrl(kit)}/agent/mcp`), { requestInit: { headers: { 'x-api-key': apiKey } } }),
  );
  return client;
}
