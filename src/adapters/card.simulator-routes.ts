import Fastify, { type FastifyPluginAsync } from 'fastify';
import type { CardProcessorSimulator } from './card.simulator.js';
import type { SimulatorPlugin } from './simulator-server.js';
import { CardRequestError } from './types.js';

// The card simulator's own server, the browser's side of it (what Stripe.js does with Stripe): the pay
// page's test form posts the card number here, never to this server's routes. It confirms the payment
// in the simulator and sends the browser back to the page's return_url with the payment's id, as
// Stripe redirects after confirmPayment; the server then asks the simulator whether it succeeded.

export interface CardSimulatorRoutesOptions {
  /** The app's card simulator, or a getter for it (the simulator server may start before the app is built). */
  simulator: CardProcessorSimulator | (() => CardProcessorSimulator);
  /** Origins a return_url may point to (the API server's PUBLIC_BASE_URL): no open redirect. */
  returnOrigins: string[];
}

export const cardSimulatorRoutes: FastifyPluginAsync<CardSimulatorRoutesOptions> = async (app, opts) => {
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_req, body, done) => {
    done(null, Object.fromEntries(new URLSearchParams(body as string)));
  });

  app.post<{ Params: { id: string }; Body: Record<string, string> }>('/payments/:id/confirm', async (request, reply) => {
    const body = request.body ?? {};
    let back: URL;
    try {
      back = new URL(String(body.return_url ?? ''));
    } catch {
      return reply.code(400).send({ error: 'return_url must be a URL' });
    }
    if (!opts.returnOrigins.includes(back.origin))
      return reply.code(400).send({ error: 'return_url points to an origin this simulator does not serve' });
    let status: 'succeeded' | 'failed';
    try {
      const simulator = typeof opts.simulator === 'function' ? opts.simulator() : opts.simulator;
      const p = await simulator.confirmPayment({
        paymentIntentId: request.params.id,
        clientSecret: String(body.client_secret ?? ''),
        cardNumber: String(body.card_number ?? ''),
      });
      status = p.status === 'succeeded' ? 'succeeded' : 'failed';
    } catch (err) {
      if (!(err instanceof CardRequestError)) throw err;
      if (err.code === 'payment_not_found') return reply.code(404).send({ error: 'no such payment' });
      status = 'failed';
    }
    back.searchParams.set('payment_intent', request.params.id);
    back.searchParams.set('redirect_status', status);
    return reply.code(303).header('location', back.toString()).send();
  });
};

/**
 * The card simulator's browser routes as an entry of the simulator server (mounted at /card): what the
 * pay page's test form posts to when CARD_SIMULATOR_URL is unset. Not contract-signed: a browser posts here.
 */
export function cardSimulatorPlugin(opts: CardSimulatorRoutesOptions): SimulatorPlugin {
  return { name: 'card', signed: false, plugin: async (scope) => scope.register(cardSimulatorRoutes, opts) };
}

/** The card simulator's server on its own port (tests: 127.0.0.1:0); CARD_SIMULATOR_URL is `url`. */
export async function startCardSimulatorServer(opts: CardSimulatorRoutesOptions & { host?: string; port?: number }) {
  const app = Fastify({ logger: false });
  await app.register(cardSimulatorRoutes, { simulator: opts.simulator, returnOrigins: opts.returnOrigins });
  const url = await app.listen({ host: opts.host ?? '127.0.0.1', port: opts.port ?? 0 });
  return { url, close: () => app.close() };
}
