import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { bearer } from '../../plugins/auth.js';
import { limit } from '../../plugins/rate-limit.js';
import { ConfirmBody, Detail, PaymentMethodResponse, SetupResponse } from '../../modules/subscribers/subscriber.schemas.js';
import { type PayResultState } from '../../modules/billing/pay-page.service.js';
import { renderPayPage } from '../../modules/billing/pay-page.html.js';
import { noStore, pageHelmet } from '../../plugins/page-headers.js';

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
};

export const paymentRoutes: FastifyPluginAsyncZod = async (app) => {
  const methods = app.services.paymentMethods;
  const payPage = app.services.payPage;
  const auth = bearer(['subscriber']);
  const sandbox = app.config.SANDBOX;

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
        description:
          '`payment_method` is null when no card is saved. 409 when the provider has no card-processor connection; 404 without a subscriber record.',
        security,
        response: { 200: PaymentMethodResponse, ...AUTH, 404: NO_RECORD, 409: NO_PROCESSOR },
      },
    },
    (request) => methods.get(request.user!.userId),
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
        description:
          "Starts a card setup with the provider's card processor and returns its `client_secret` for the processor's card form; " +
          'finish with POST .../confirm. A new setup replaces one still in progress. 409 when the provider has no card-processor ' +
          'connection; 502 when the processor is unreachable.',
        security,
        response: { 201: SetupResponse, ...AUTH, 404: NO_RECORD, 409: NO_PROCESSOR, 502: Detail },
      },
    },
    async (request, reply) => reply.code(201).send(await methods.setup(request.user!.userId)),
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
        description:
          "Confirms the setup started with POST .../setup (`client_secret` must be that setup's) and saves the card, replacing a " +
          'saved one; only brand, last 4 digits and expiry are kept. 402: the card was declined (nothing saved); 409: no card-processor ' +
          'connection, or no setup with this client_secret in progress; 422: malformed or incorrect card number; 502: processor unreachable.',
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
    (request) => methods.confirm(request.user!.userId, request.body),
  );

  app.get(
    '/pay/:token',
    {
      config: { rateLimit: limit('payment.page') },
      helmet: pageHelmet(),
      onRequest: noStore,
      schema: {
        operationId: 'paymentPage',
        tags: ['payment'],
        summary: 'Payment page of an emailed payment link (HTML)',
        description:
          'The link of a payment mail (no other credential). Shows the invoice and a card form that posts to the same address. ' +
          'A paid invoice shows a confirmation; an unknown, expired or void link answers 404.',
        params: TokenParams,
        produces: ['text/html'],
        response: {
          200: z.string().describe('text/html page'),
          404: z.string().describe('text/html page'),
          409: z.string().describe('text/html page'),
        },
      },
    },
    async (request, reply) => {
      const v = await payPage.view(request.params.token);
      reply.header('cache-control', 'no-store').header('referrer-policy', 'no-referrer').type('text/html; charset=utf-8');
      if (v.state === 'invalid')
        return reply.code(404).send(
          renderPayPage(request.params.token, {
            title: 'Link not valid',
            message: 'This payment link is invalid or has expired.',
            form: false,
            error: true,
            sandbox,
          }),
        );
      if (v.state === 'paid')
        return renderPayPage(request.params.token, {
          title: 'Invoice paid',
          message: 'This invoice is paid. Thank you.',
          invoice: v.invoice,
          form: false,
          sandbox,
        });
      if (v.state === 'in_progress')
        return reply.code(409).send(
          renderPayPage(request.params.token, {
            title: 'Payment in progress',
            message: 'A payment with this link is being processed; reload this page in a moment.',
            invoice: v.invoice,
            form: false,
            sandbox,
          }),
        );
      return renderPayPage(request.params.token, {
        title: v.invoice!.first ? 'Pay your first invoice' : 'Pay your invoice',
        invoice: v.invoice,
        form: true,
        sandbox,
      });
    },
  );

  app.post(
    '/pay/:token',
    {
      config: { rateLimit: limit('payment.page') },
      helmet: pageHelmet(),
      onRequest: noStore,
      schema: {
        operationId: 'payWithPaymentLink',
        tags: ['payment'],
        summary: 'Pay the invoice of a payment link by card (form post)',
        description:
          "Form post (application/x-www-form-urlencoded, or JSON) from the payment page. Charges the card through the provider's " +
          'card processor and marks the invoice paid; a first invoice activates the installed subscription, and paying the last ' +
          'overdue invoice lifts a non-payment suspension. The link works once; a declined card (402), an incorrect number (422) ' +
          'or an unreachable processor (502) leave it usable for another try. Answers an HTML page.',
        params: TokenParams,
        body: PayBody,
        consumes: ['application/x-www-form-urlencoded', 'application/json'],
        produces: ['text/html'],
        response: Object.fromEntries([200, 402, 404, 409, 422, 502].map((s) => [s, z.string().describe('text/html page')])),
      },
    },
    async (request, reply) => {
      const saveCard = request.body.save_card === 'on' || request.body.save_card === 'true';
      const r = await payPage.pay(request.params.token, { cardNumber: request.body.card_number, saveCard });
      const done = r.state === 'paid' || r.state === 'already_paid';
      const retry = r.state === 'declined' || r.state === 'incorrect_number' || r.state === 'unavailable';
      reply.header('cache-control', 'no-store').header('referrer-policy', 'no-referrer').type('text/html; charset=utf-8');
      return reply.code(STATUS[r.state]).send(
        renderPayPage(request.params.token, {
          title: done ? 'Invoice paid' : retry ? 'Payment not completed' : 'Payment not possible',
          message: r.message,
          invoice: r.invoice,
          form: retry,
          error: !done,
          sandbox,
        }),
      );
    },
  );
};
