import Fastify from 'fastify';
import { stripeSimulatorRoutes, type StripeStandIn } from './stripe.simulator-routes.js';

/**
 * The Stripe stand-in on its own port (tests: 127.0.0.1:0). Point the SDK at `url` with
 * STRIPE_API_URL (host/port/protocol options); `standIn.requests` holds what it was sent.
 */
export async function startStripeStandIn(o: { host?: string; port?: number } = {}) {
  const standIn: StripeStandIn = { requests: [], fault: 'none' };
  const app = Fastify({ logger: false });
  await app.register(stripeSimulatorRoutes, { prefix: '/v1', standIn });
  const address = await app.listen({ host: o.host ?? '127.0.0.1', port: o.port ?? 0 });
  return { url: address, standIn, close: () => app.close() };
}
