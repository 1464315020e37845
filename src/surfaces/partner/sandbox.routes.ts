import type { FastifyReply, FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { emailAddress } from '../../lib/email.js';
import { AppError } from '../../lib/errors.js';
import { limit } from '../../plugins/rate-limit.js';
import { noStore, pageHelmet } from '../../plugins/page-headers.js';
import { renderSandboxCheckout, type SandboxPageView } from '../pages/sandbox-checkout.page.js';
import { pageErrorOf, SANDBOX_CHECKOUT_PATH } from '../../modules/checkout/index.js';

const blankToUndefined = (v: unknown) => (typeof v === 'string' && v.trim() === '' ? undefined : v);

const PageQuery = z.object({ session_id: z.uuid() });
const CancelBody = z.object({ session_id: z.uuid() });
const PayBody = z.object({
  session_id: z.uuid(),
  email: emailAddress().max(254),
  first_name: z.string().trim().min(1).max(100),
  last_name: z.string().trim().min(1).max(100),
  phone: z.preprocess(blankToUndefined, z.string().trim().max(40).optional()),
});

/**
 * The sandbox's fake payment page (config.SANDBOX only; hidden from OpenAPI). The demo provider's
 * external_checkout_url points here. The page reads the session the way a provider's checkout
 * page would, and its Pay button posts to a sandbox-only route that completes the session on the
 * provider's behalf through the provisioning module (a browser holds no X-Webhook-Secret); its
 * Cancel button moves the session to cancelled, as a provider's page calls the cancel endpoint.
 */
export const sandboxRoutes: FastifyPluginAsyncZod = async (app) => {
  if (!app.config.SANDBOX) return;
  const service = app.services.sandboxCheckout;

  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_req, body, done) => {
    done(null, Object.fromEntries(new URLSearchParams(body as string)));
  });

  const send = (reply: FastifyReply, status: number, view: SandboxPageView) =>
    reply.code(status).header('cache-control', 'no-store').type('text/html; charset=utf-8').send(renderSandboxCheckout(view));

  const failure = (reply: FastifyReply, err: unknown, view: Partial<SandboxPageView> = {}) => {
    if (!(err instanceof AppError)) throw err;
    const title = err.status === 410 ? 'Session no longer available' : err.status === 404 ? 'Session not found' : 'Payment not completed';
    return send(reply, err.status, { title, message: pageErrorOf(err), error: true, payAction: null, ...view });
  };

  const pagePath = (request: FastifyRequest) => request.url.split('?')[0] ?? request.url;

  app.get(
    SANDBOX_CHECKOUT_PATH,
    {
      config: { rateLimit: limit('checkout.public') },
      helmet: pageHelmet(),
      onRequest: noStore,
      attachValidation: true,
      schema: { hide: true, querystring: PageQuery },
    },
    async (request, reply) => {
      if (request.validationError) {
        return send(reply, 422, { title: 'Session not found', message: 'The link has no valid session_id.', error: true, payAction: null });
      }
      try {
        const session = await service.view(request.query.session_id);
        if (session.status === 'completed') {
          return send(reply, 200, { title: 'Already paid', message: 'This checkout is complete.', session, payAction: null });
        }
        return send(reply, 200, {
          title: 'Confirm and pay',
          session,
          payAction: `${pagePath(request)}/pay`,
          cancelAction: `${pagePath(request)}/cancel`,
        });
      } catch (err) {
        return failure(reply, err);
      }
    },
  );

  app.post(
    `${SANDBOX_CHECKOUT_PATH}/cancel`,
    {
      config: { rateLimit: limit('checkout.public') },
      helmet: pageHelmet(),
      onRequest: noStore,
      attachValidation: true,
      schema: { hide: true, body: CancelBody },
    },
    async (request, reply) => {
      if (request.validationError) {
        return send(reply, 422, { title: 'Session not found', message: 'The form has no valid session_id.', error: true, payAction: null });
      }
      try {
        await service.cancel(request.body.session_id);
        return send(reply, 200, { title: 'Checkout cancelled', message: 'Session cancelled. Nothing was charged.', payAction: null });
      } catch (err) {
        return failure(reply, err);
      }
    },
  );

  app.post(
    `${SANDBOX_CHECKOUT_PATH}/pay`,
    {
      config: { rateLimit: limit('checkout.public') },
      helmet: pageHelmet(),
      onRequest: noStore,
      attachValidation: true,
      schema: { hide: true, body: PayBody },
    },
    async (request, reply) => {
      const raw = (request.body ?? {}) as Record<string, string | undefined>;
      const values = { email: raw.email, first_name: raw.first_name, last_name: raw.last_name, phone: raw.phone };
      const base = pagePath(request).replace(/\/pay$/, '');
      if (request.validationError) {
        const sessionId = typeof raw.session_id === 'string' ? raw.session_id : '';
        let session;
        try {
          session = z.uuid().safeParse(sessionId).success ? await service.view(sessionId) : undefined;
        } catch (err) {
          return failure(reply, err);
        }
        const issues: unknown = request.validationError.validation;
        const first: unknown = Array.isArray(issues) ? issues[0] : undefined;
        const path = first && typeof first === 'object' && 'instancePath' in first ? first.instancePath : undefined;
        const field = (typeof path === 'string' && path.replace(/^\//, '')) || 'form';
        return send(reply, 422, {
          title: 'Confirm and pay',
          message: `Please check ${field.replace('_', ' ')}.`,
          error: true,
          session,
          values,
          payAction: session ? `${base}/pay` : null,
        });
      }
      const b = request.body;
      try {
        const r = await service.pay(
          b.session_id,
          { email: b.email, first_name: b.first_name, last_name: b.last_name, phone: b.phone ?? null },
          String(request.id),
        );
        return send(reply, r.replay ? 200 : 201, {
          title: r.replay ? 'Already paid' : 'Payment successful',
          message: r.message,
          session: r.session,
          payAction: null,
          result: {
            route: r.route,
            statusUrl: `${base.replace(/\/sandbox\/checkout$/, '')}/external-checkout/sessions/${b.session_id}/status`,
          },
        });
      } catch (err) {
        return failure(reply, err, { values });
      }
    },
  );
};
