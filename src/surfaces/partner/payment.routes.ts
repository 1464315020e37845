import type { FastifyReply } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { bearer, userOf } from '../../plugins/auth.js';
import { limit } from '../../plugins/rate-limit.js';
import { ConfirmBody, PaymentMethodResponse, SetupResponse } from '../../modules/subscribers/index.js';
import { type PayResultState } from '../../modules/billing/index.js';
import { payPageSources, renderPayPage, type PayPageView } from '../pages/pay.page.js';
import { noStore, pageHelmet } from '../../plugins/page-headers.js';
import { Detail } from './errors.schemas.js';
import { PARTNER_DESCRIPTIONS } from './examples/descriptions.js';

const security = [{ bearer: [] }];
const AUTH = {
  401: Detail.describe('No Bearer token: `Not authenticated`'),
  403: Detail.describe('Invalid or expired token (`Invalid credentials`), or not a subscriber token'),
};
const NO_PROCESSOR = Detail.describe('The provider has no card-processor connection');
const NO_RECORD = Detail.describe('The account has no subscriber record yet');

const TokenParams = z.object({ token: z.string().min(10).max(200).describe('The token of the emailed payment link') });
const PayBody = z.object({
  card_number: z
    .string()
    .regex(/^[\d -]{12,23}$/)
    .describe('Card number (sandbox: 4242424242424242 succeeds, 4000000000000002 is declined)'),
  save_card: z.enum(['on', 'true', 'false']).optional().describe('"on" (HTML checkbox) or "true": keep the card for future invoices'),
});

const STATUS: Record<PayResultState, number> = {
  paid: 200,
  already_paid: 200,
  declined: 402,
  incorrect_number: 422,
  unavailable: 502,
  no_card_processor: 409,
  in_progress: 409,
  invalid: 404,
  card_number_refused: 400,
};

export const paymentRoutes: FastifyPluginAsyncZod = async (app) => {
  const methods = app.services.paymentMethods;
  const payPage = app.services.payPage;
  const auth = bearer(['subscriber']);
  const sandbox = app.config.SANDBOX;
  // The page's Content-Security-Policy lets the processor's form in: Stripe.js and its frames, or a form
  // posting to the card simulator's own server. Stripe.js loads from Stripe and nowhere else.
  const processor = payPage.processorKind();
  const payHelmet = pageHelmet(payPageSources({ processor, simulatorUrl: payPage.simulatorUrl() }));

  // The pay page's form posts application/x-www-form-urlencoded (only inside this plugin).
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_req, body, done) => {
    done(null, Object.fromEntries(new URLSearchParams(body as string)));
  });

  app.get(
    '/subscriber/me/payment-method',
    {
      onRequest: auth,
      config: { rateLimit: limit('subscriber.read') },
      schema: {
        operationId: 'getSubscriberPaymentMethod',
        tags: ['subscriber'],
        summary: 'The saved card (brand, last 4 digits, expiry)',
        description: PARTNER_DESCRIPTIONS.getSubscriberPaymentMethod,
        security,
        response: { 200: PaymentMethodResponse, ...AUTH, 404: NO_RECORD, 409: NO_PROCESSOR },
      },
    },
    (request) => methods.get(userOf(request).userId),
  );

  app.post(
    '/subscriber/me/payment-method/setup',
    {
      onRequest: auth,
      config: { rateLimit: limit('subscriber.write') },
      schema: {
        operationId: 'startSubscriberCardSetup',
        tags: ['subscriber'],
        summary: 'Start saving a card',
        description: PARTNER_DESCRIPTIONS.startSubscriberCardSetup,
        security,
        response: { 201: SetupResponse, ...AUTH, 404: NO_RECORD, 409: NO_PROCESSOR, 502: Detail },
      },
    },
    async (request, reply) => reply.code(201).send(await methods.setup(userOf(request).userId)),
  );

  app.post(
    '/subscriber/me/payment-method/confirm',
    {
      onRequest: auth,
      config: { rateLimit: limit('subscriber.write') },
      schema: {
        operationId: 'confirmSubscriberCardSetup',
        tags: ['subscriber'],
        summary: 'Confirm the card setup and save the card',
        description: PARTNER_DESCRIPTIONS.confirmSubscriberCardSetup,
        security,
        body: ConfirmBody,
        response: {
          200: PaymentMethodResponse,
          402: Detail.describe('Card declined'),
          ...AUTH,
          404: NO_RECORD,
          409: Detail,
          422: Detail,
          502: Detail,
        },
      },
    },
    (request) => methods.confirm(userOf(request).userId, request.body),
  );

  const page = (reply: FastifyReply, token: string, status: number, view: PayPageView) =>
    reply
      .code(status)
      .header('cache-control', 'no-store')
      .header('referrer-policy', 'no-referrer')
      .type('text/html; charset=utf-8')
      .send(renderPayPage(token, view));

  app.get(
    '/pay/:token',
    {
      config: { rateLimit: limit('payment.page') },
      helmet: payHelmet,
      onRequest: noStore,
      schema: {
        operationId: 'paymentPage',
        tags: ['payment'],
        summary: 'Payment page of an emailed payment link (HTML)',
        description: PARTNER_DESCRIPTIONS.paymentPage,
        params: TokenParams,
        produces: ['text/html'],
        response: Object.fromEntries([200, 404, 409, 502].map((s) => [s, z.string().describe('text/html page')])),
      },
    },
    async (request, reply) => {
      const token = request.params.token;
      const v = await payPage.view(token);
      const base = { invoice: v.invoice, sandbox };
      if (v.state === 'invalid')
        return page(reply, token, 404, {
          title: 'Link not valid',
          message: 'This payment link is invalid or has expired.',
          error: true,
          sandbox,
        });
      if (v.state === 'paid')
        return page(reply, token, 200, { ...base, title: 'Invoice paid', message: 'This invoice is paid. Thank you.' });
      if (v.state === 'in_progress')
        return page(reply, token, 409, {
          ...base,
          title: 'Payment in progress',
          message: 'A payment with this link is being processed; reload this page in a moment.',
        });
      if (v.state === 'no_card_processor')
        return page(reply, token, 409, { ...base, title: 'Payment not possible', message: v.message, error: true });
      if (v.state === 'unavailable')
        return page(reply, token, 502, { ...base, title: 'Payment not possible', message: v.message, error: true });
      return page(reply, token, 200, {
        ...base,
        title: v.invoice!.first ? 'Pay your first invoice' : 'Pay your invoice',
        checkout: v.checkout,
      });
    },
  );

  app.get(
    '/pay/:token/complete',
    {
      config: { rateLimit: limit('payment.page') },
      helmet: payHelmet,
      onRequest: noStore,
      schema: {
        operationId: 'paymentPageReturn',
        tags: ['payment'],
        summary: 'Where the card processor sends the browser back after a payment (HTML)',
        description: PARTNER_DESCRIPTIONS.paymentPageReturn,
        params: TokenParams,
        querystring: z.object({
          payment_intent: z
            .string()
            .min(3)
            .max(255)
            .regex(/^[A-Za-z0-9_]+$/)
            .describe("The processor's payment id"),
          payment_intent_client_secret: z.string().max(500).optional().describe('Added by Stripe; not used'),
          redirect_status: z.string().max(50).optional().describe('Added by Stripe; not trusted: the processor is asked'),
        }),
        produces: ['text/html'],
        response: {
          ...Object.fromEntries([200, 402, 404, 409, 502].map((s) => [s, z.string().describe('text/html page')])),
          422: Detail.describe('payment_intent missing or malformed'),
        },
      },
    },
    async (request, reply) => {
      const token = request.params.token;
      const r = await payPage.complete(token, request.query.payment_intent);
      const done = r.state === 'paid' || r.state === 'already_paid';
      const again = r.state === 'declined' ? await payPage.view(token) : undefined;
      return page(reply, token, STATUS[r.state], {
        title: done ? 'Invoice paid' : r.state === 'declined' ? 'Payment not completed' : 'Payment not possible',
        message: r.message,
        invoice: r.invoice,
        checkout: again?.checkout,
        error: !done,
        sandbox,
      });
    },
  );

  app.post(
    '/pay/:token',
    {
      config: { rateLimit: limit('payment.page') },
      helmet: payHelmet,
      onRequest: noStore,
      schema: {
        operationId: 'payWithPaymentLink',
        tags: ['payment'],
        summary: 'Sandbox only: pay the invoice of a payment link with a test card number (form post)',
        description: PARTNER_DESCRIPTIONS.payWithPaymentLink,
        params: TokenParams,
        body: PayBody,
        consumes: ['application/x-www-form-urlencoded', 'application/json'],
        produces: ['text/html'],
        response: Object.fromEntries([200, 400, 402, 404, 409, 422, 502].map((s) => [s, z.string().describe('text/html page')])),
      },
    },
    async (request, reply) => {
      const saveCard = request.body.save_card === 'on' || request.body.save_card === 'true';
      const r = await payPage.pay(request.params.token, { cardNumber: request.body.card_number, saveCard });
      const done = r.state === 'paid' || r.state === 'already_paid';
      const retry = r.state === 'declined' || r.state === 'incorrect_number' || r.state === 'unavailable';
      return page(reply, request.params.token, STATUS[r.state], {
        title: done ? 'Invoice paid' : retry ? 'Payment not completed' : 'Payment not possible',
        message: r.message,
        invoice: r.invoice,
        checkout: retry ? { kind: 'legacy' } : undefined,
        error: !done,
        sandbox,
      });
    },
  );
};
