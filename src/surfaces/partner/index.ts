import type { FastifyPluginAsync } from 'fastify';
import { usePartnerErrors } from '../../plugins/error-handlers.js';
import { useExamples } from '../../plugins/openapi-examples.js';
import { PARTNER_EXAMPLES } from './examples/index.js';
import { authRoutes } from './auth.routes.js';
import { adminPlanChangeRoutes, partnerPlanChangeRoutes } from './plan-change.routes.js';
import { serviceabilityRoutes } from './serviceability.routes.js';
import { locationRoutes } from './location.routes.js';
import { checkoutRoutes } from './checkout.routes.js';
import { checkoutStatusRoutes } from './checkout-status.routes.js';
import { subscriptionStatusRoutes } from './subscription-status.routes.js';
import { sandboxRoutes } from './sandbox.routes.js';
import { provisioningRoutes } from './provisioning.routes.js';
import { completionRoutes } from './completion.routes.js';
import { bookingRoutes } from './booking.routes.js';
import { installRoutes } from './install.routes.js';
import { subscriberRoutes } from './subscriber.routes.js';
import { paymentRoutes } from './payment.routes.js';
import { rollbackRoutes } from './rollback.routes.js';
import { stripeEventRoutes } from './stripe-events.routes.js';
import { creditNoteRoutes } from './credit-notes.routes.js';
import { cancellationRoutes } from './cancellation.routes.js';
import { staffRoutes } from './staff.routes.js';
import { adminProviderRoutes } from './admin-providers.routes.js';
import { adminCatalogueRoutes } from './admin-catalogue.routes.js';
import { adminIntegrationRoutes } from './admin-integrations.routes.js';
import { adminImportRoutes } from './admin-import.routes.js';

/**
 * The partner routers, mounted at `/` and again at `/api/v1` (mirror) with the same auth.
 * The mirror's copies are hidden from the OpenAPI document so every operationId stays unique.
 */
export const partnerSurface: FastifyPluginAsync<{ mirror?: boolean }> = async (app, opts) => {
  usePartnerErrors(app);
  if (opts.mirror) {
    app.addHook('onRoute', (route) => {
      route.schema = { ...(route.schema ?? {}), hide: true };
    });
  }
  useExamples(app, PARTNER_EXAMPLES);
  await app.register(authRoutes);
  await app.register(partnerPlanChangeRoutes);
  await app.register(serviceabilityRoutes);
  await app.register(locationRoutes);
  await app.register(checkoutRoutes);
  await app.register(checkoutStatusRoutes);
  await app.register(subscriptionStatusRoutes);
  await app.register(sandboxRoutes);
  await app.register(provisioningRoutes);
  await app.register(completionRoutes);
  await app.register(bookingRoutes);
  await app.register(installRoutes);
  await app.register(subscriberRoutes);
  await app.register(paymentRoutes);
  await app.register(rollbackRoutes);
  await app.register(stripeEventRoutes);
};

/** Internal API routes that exist only under /api/v1 (dashboard JWT). */
export const internalSurface: FastifyPluginAsync = async (app) => {
  usePartnerErrors(app);
  useExamples(app, PARTNER_EXAMPLES);
  await app.register(creditNoteRoutes);
  await app.register(cancellationRoutes);
  await app.register(staffRoutes);
  await app.register(adminPlanChangeRoutes);
  await app.register(adminProviderRoutes);
  await app.register(adminCatalogueRoutes);
  await app.register(adminIntegrationRoutes);
  await app.register(adminImportRoutes);
};
