import { randomBytes } from 'node:crypto';
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import {
  checkObject,
  checkParams,
  decodeStripeForm,
  readVendorDocument,
  type FormValue,
  type JsonSchema,
  type ParamProblem,
} from './vendor-documents.js';
import { present } from '../lib/present.js';

// A local stand-in for the part of Stripe's API this server uses (docs/integration/card.md, "How to
// test"): the SDK is pointed at it through its host/port/protocol options. Each request is checked
// against the parameters Stripe publishes for its operation (test/fixtures/stripe/operations.json,
// from stripe/openapi spec3.json) and answered with objects built from Stripe's own fixtures
// (fixtures.json, from fixtures3.json): a request Stripe would refuse is refused here too.
// The browser's side (Stripe.js confirming with a publishable key) is POST …/confirm with a test
// payment method (pm_card_visa, pm_card_visa_chargeDeclined, pm_card_chargeCustomerFail,
// pm_card_authenticationRequired), never a card number.

interface Operation {
  operationId: string;
  query: { name: string; required: boolean; schema: JsonSchema }[];
  body: JsonSchema | null;
}
type Obj = Record<string, unknown>;

interface TestCard {
  brand: string;
  last4: string;
  /** The card is refused when a setup or a payment is confirmed with it. */
  declinesOnConfirm?: boolean;
  /** Off-session charges: declined, or authentication_required (3-D Secure). */
  offSession?: 'declined' | 'authentication_required';
}
const STRIPE_TEST_PAYMENT_METHODS: Record<string, TestCard> = {
  pm_card_visa: { brand: 'visa', last4: '4242' },
  pm_card_mastercard: { brand: 'mastercard', last4: '4444' },
  pm_card_visa_chargeDeclined: { brand: 'visa', last4: '0002', declinesOnConfirm: true },
  pm_card_chargeCustomerFail: { brand: 'visa', last4: '0341', offSession: 'declined' },
  pm_card_authenticationRequired: { brand: 'visa', last4: '3184', offSession: 'authentication_required' },
};

export interface StripeStandIn {
  /** Every request the stand-in answered: method, path, Stripe-Account, form params. */
  readonly requests: { method: string; path: string; account: string | null; params: Record<string, FormValue> }[];
  /** 'down': answers 500 api_error; 'hang': never answers (the client's timeout). */
  fault: 'none' | 'down' | 'hang';
}

const id = (prefix: string) => `${prefix}_${randomBytes(12).toString('base64url').replace(/[-_]/g, 'x')}`;

export const stripeSimulatorRoutes: FastifyPluginAsync<{ standIn?: StripeStandIn }> = async (app, opts) => {
  const { operations } = readVendorDocument<{ operations: Record<string, Operation> }>('stripe', 'operations.json');
  const { resources } = readVendorDocument<{ resources: Record<string, Obj> }>('stripe', 'fixtures.json');
  const standIn: StripeStandIn = opts.standIn ?? { requests: [], fault: 'none' };
  const objects = new Map<string, { account: string | null; obj: Obj }>();
  const idempotent = new Map<string, { params: string; status: number; body: unknown }>();
  const pendingKeys = new WeakMap<FastifyRequest, { key: string; fingerprint: string }>();
  // A POST with an Idempotency-Key: its answer is kept, and the same key with the same parameters answers it again.
  app.addHook('onSend', async (request, reply, payload) => {
    const pending = pendingKeys.get(request);
    if (pending && reply.statusCode < 500)
      idempotent.set(pending.key, { params: pending.fingerprint, status: reply.statusCode, body: payload });
    return payload;
  });

  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_req, body, done) => {
    done(null, decodeStripeForm(new URLSearchParams(body as string)));
  });

  const fixture = (kind: string, fields: Obj): Obj => ({
    ...structuredClone(resources[kind]),
    livemode: false,
    created: Math.floor(Date.now() / 1000),
    ...fields,
  });
  const stripeError = (reply: FastifyReply, status: number, error: Obj) => reply.code(status).send({ error });
  const invalid = (reply: FastifyReply, p: ParamProblem) =>
    stripeError(reply, 400, { type: 'invalid_request_error', code: p.code, param: p.param, message: p.message });
  const missing = (reply: FastifyReply, what: string, value: string) =>
    stripeError(reply, 404, {
      type: 'invalid_request_error',
      code: 'resource_missing',
      param: what,
      message: `No such ${what}: '${value}'`,
    });

  function find(kind: string, objectId: string, account: string | null): Obj | null {
    const o = objects.get(objectId);
    return o && o.account === account && o.obj.object === kind ? o.obj : null;
  }
  function store(obj: Obj, account: string | null) {
    objects.set(obj.id as string, { account, obj });
    return obj;
  }
  const paymentMethodOf = (token: string, customer: unknown, account: string | null) => {
    const card = present(STRIPE_TEST_PAYMENT_METHODS[token], `test card ${token}`);
    const pm = fixture('payment_method', { id: id('pm'), customer: customer ?? null, metadata: { test_card: token } });
    pm.card = { ...(pm.card as Obj), brand: card.brand, display_brand: card.brand, last4: card.last4, exp_month: 12, exp_year: 2034 };
    return store(pm, account);
  };

  /** Key, account and the operation's published parameters, for every request; then idempotency. */
  async function gate(
    request: FastifyRequest,
    reply: FastifyReply,
    opKey: string,
  ): Promise<{ account: string | null; params: Obj } | null> {
    if (standIn.fault === 'hang') await new Promise(() => undefined);
    if (standIn.fault === 'down') return (stripeError(reply, 500, { type: 'api_error', message: 'stand-in is down' }), null);
    const auth = /^Bearer ((sk|rk|pk)_test_\w+)$/.exec(request.headers.authorization ?? '');
    if (!auth) return (stripeError(reply, 401, { type: 'invalid_request_error', message: 'Invalid API Key provided' }), null);
    const account = (request.headers['stripe-account'] as string | undefined) ?? null;
    if (account !== null && !/^acct_\w+$/.test(account))
      return (
        stripeError(reply, 403, { type: 'invalid_request_error', message: 'The provided key does not have access to account' }),
        null
      );
    const op = present(operations[opKey], `Stripe operation ${opKey}`);
    const params = (
      request.method === 'GET' ? decodeStripeForm(new URL(request.url, 'http://x').searchParams) : (request.body ?? {})
    ) as Record<string, FormValue>;
    const problem =
      request.method === 'GET'
        ? (Object.keys(params)
            .map((k) => {
              const q = op.query.find((x) => x.name === k);
              return q
                ? checkParams(q.schema, params[k], k)
                : ({ code: 'parameter_unknown', param: k, message: `Received unknown parameter: ${k}` } as const);
            })
            .find(Boolean) ?? null)
        : checkObject(op.body ?? { type: 'object', properties: {} }, params);
    standIn.requests.push({ method: request.method, path: request.url.replace(/\?.*/s, ''), account, params });
    if (problem) return (invalid(reply, problem), null);
    if (auth[2] === 'pk' && !opKey.endsWith('/confirm'))
      return (
        stripeError(reply, 401, { type: 'invalid_request_error', message: 'This API call cannot be made with a publishable API key' }),
        null
      );
    const key = request.headers['idempotency-key'] as string | undefined;
    if (key && request.method === 'POST') {
      const prior = idempotent.get(`${account}\n${key}`);
      const fingerprint = `${opKey}\n${JSON.stringify(params)}`;
      if (prior) {
        if (prior.params !== fingerprint)
          return (
            stripeError(reply, 400, {
              type: 'idempotency_error',
              message: 'Keys for idempotent requests can only be used with the same parameters',
            }),
            null
          );
        reply.header('idempotent-replayed', 'true').header('content-type', 'application/json').code(prior.status).send(prior.body);
        return null;
      }
      pendingKeys.set(request, { key: `${account}\n${key}`, fingerprint });
    }
    return { account, params };
  }

  app.post('/customers', async (request, reply) => {
    const g = await gate(request, reply, 'POST /v1/customers');
    if (!g) return reply;
    return store(fixture('customer', { id: id('cus'), email: g.params.email ?? null, metadata: g.params.metadata ?? {} }), g.account);
  });

  app.post('/setup_intents', async (request, reply) => {
    const g = await gate(request, reply, 'POST /v1/setup_intents');
    if (!g) return reply;
    if (g.params.customer && !find('customer', g.params.customer as string, g.account))
      return missing(reply, 'customer', g.params.customer as string);
    const siId = id('seti');
    return store(
      fixture('setup_intent', {
        id: siId,
        client_secret: `${siId}_secret_${randomBytes(16).toString('hex')}`,
        customer: g.params.customer ?? null,
        usage: g.params.usage ?? 'off_session',
        payment_method_types: g.params.payment_method_types ?? ['card'],
        metadata: g.params.metadata ?? {},
        status: 'requires_payment_method',
        last_setup_error: null,
        next_action: null,
        payment_method: null,
      }),
      g.account,
    );
  });

  const withExpanded = (obj: Obj, params: Obj, account: string | null) => {
    const expand = (params.expand as string[] | undefined) ?? [];
    if (expand.includes('payment_method') && typeof obj.payment_method === 'string')
      return { ...obj, payment_method: find('payment_method', obj.payment_method, account) };
    return obj;
  };

  app.get<{ Params: { id: string } }>('/setup_intents/:id', async (request, reply) => {
    const g = await gate(request, reply, 'GET /v1/setup_intents/{intent}');
    if (!g) return reply;
    const si = find('setup_intent', request.params.id, g.account);
    return si ? withExpanded(si, g.params, g.account) : missing(reply, 'setup_intent', request.params.id);
  });

  app.post<{ Params: { id: string } }>('/setup_intents/:id/confirm', async (request, reply) => {
    const g = await gate(request, reply, 'POST /v1/setup_intents/{intent}/confirm');
    if (!g) return reply;
    const si = find('setup_intent', request.params.id, g.account);
    if (!si) return missing(reply, 'setup_intent', request.params.id);
    const token = g.params.payment_method as string | undefined;
    const card = token ? STRIPE_TEST_PAYMENT_METHODS[token] : undefined;
    if (!token || !card) return missing(reply, 'payment_method', token ?? '');
    if (card.declinesOnConfirm) {
      si.last_setup_error = {
        type: 'card_error',
        code: 'card_declined',
        decline_code: 'generic_decline',
        message: 'Your card was declined.',
      };
      return stripeError(reply, 402, { ...(si.last_setup_error as Obj), setup_intent: si });
    }
    const pm = paymentMethodOf(token, si.customer, g.account);
    Object.assign(si, { status: 'succeeded', payment_method: pm.id, last_setup_error: null });
    return si;
  });

  app.post('/payment_intents', async (request, reply) => {
    const g = await gate(request, reply, 'POST /v1/payment_intents');
    if (!g) return reply;
    const p = g.params;
    if (p.customer && !find('customer', p.customer as string, g.account)) return missing(reply, 'customer', p.customer as string);
    const piId = id('pi');
    const pi = store(
      fixture('payment_intent', {
        id: piId,
        client_secret: `${piId}_secret_${randomBytes(16).toString('hex')}`,
        amount: Number(p.amount),
        currency: p.currency,
        customer: p.customer ?? null,
        description: p.description ?? null,
        metadata: p.metadata ?? {},
        automatic_payment_methods: p.automatic_payment_methods ? { enabled: p.automatic_payment_methods } : null,
        payment_method: null,
        status: 'requires_payment_method',
        last_payment_error: null,
        next_action: null,
        canceled_at: null,
      }),
      g.account,
    );
    if (p.confirm !== 'true') return pi;
    const pm = p.payment_method ? find('payment_method', p.payment_method as string, g.account) : null;
    if (!pm) return missing(reply, 'payment_method', (p.payment_method as string) ?? '');
    if (p.customer !== pm.customer)
      return invalid(reply, { code: 'parameter_invalid', param: 'customer', message: 'The payment method belongs to another customer' });
    const card = STRIPE_TEST_PAYMENT_METHODS[(pm.metadata as Obj).test_card as string];
    pi.payment_method = pm.id;
    if (p.off_session === 'true' && card?.offSession) {
      const code = card.offSession === 'declined' ? 'card_declined' : 'authentication_required';
      pi.last_payment_error = {
        type: 'card_error',
        code,
        decline_code: code === 'card_declined' ? 'generic_decline' : code,
        message: 'Your card was declined.',
      };
      pi.status = code === 'card_declined' ? 'requires_payment_method' : 'requires_action';
      return stripeError(reply, 402, { ...(pi.last_payment_error as Obj), payment_intent: pi });
    }
    pi.status = 'succeeded';
    pi.amount_received = pi.amount;
    return pi;
  });

  app.get<{ Params: { id: string } }>('/payment_intents/:id', async (request, reply) => {
    const g = await gate(request, reply, 'GET /v1/payment_intents/{intent}');
    if (!g) return reply;
    const pi = find('payment_intent', request.params.id, g.account);
    return pi ? withExpanded(pi, g.params, g.account) : missing(reply, 'payment_intent', request.params.id);
  });

  app.post<{ Params: { id: string } }>('/payment_intents/:id/confirm', async (request, reply) => {
    const g = await gate(request, reply, 'POST /v1/payment_intents/{intent}/confirm');
    if (!g) return reply;
    const pi = find('payment_intent', request.params.id, g.account);
    if (!pi) return missing(reply, 'payment_intent', request.params.id);
    const token = g.params.payment_method as string | undefined;
    const card = token ? STRIPE_TEST_PAYMENT_METHODS[token] : undefined;
    if (!token || !card) return missing(reply, 'payment_method', token ?? '');
    if (card.declinesOnConfirm) {
      pi.last_payment_error = {
        type: 'card_error',
        code: 'card_declined',
        decline_code: 'generic_decline',
        message: 'Your card was declined.',
      };
      return stripeError(reply, 402, { ...(pi.last_payment_error as Obj), payment_intent: pi });
    }
    // On-session the cardholder is present: 3-D Secure completes in Stripe.js and the payment succeeds.
    Object.assign(pi, {
      payment_method: paymentMethodOf(token, pi.customer, g.account).id,
      status: 'succeeded',
      amount_received: pi.amount,
    });
    return pi;
  });
};
