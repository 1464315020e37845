import type { FastifyBaseLogger } from 'fastify';
import type { Config } from './config.js';
import type { Db, DbHandle } from './db/database.js';
import type { Clock } from './lib/clock.js';
import type { Adapters } from './adapters/types.js';
import type { JobQueue } from './jobs/types.js';
import type { Mailer } from './mail/types.js';
import type { Webhooks } from './webhooks/types.js';
import { createJobQueue } from './jobs/queue.js';
import { createScheduler, type Scheduler } from './jobs/scheduler.js';
import { createMailer } from './mail/mailer.js';
import { registerMailJobs } from './mail/mail.jobs.js';
import { createWebhooks } from './webhooks/outbox.js';
import { registerWebhookJobs } from './webhooks/webhook.jobs.js';
import { createApiKeyService, createAuthService, createPasswordService } from './modules/auth/index.js';
import {
  createBillingRunService,
  createCardEventsService,
  createDunningService,
  createPayPageService,
  registerBillingJobs,
} from './modules/billing/index.js';
import { createCancellationService, registerCancellationJobs } from './modules/cancellation/index.js';
import { createCheckoutService, createCompletionService, createSandboxCheckoutService } from './modules/checkout/index.js';
import { createIdempotencyService } from './modules/idempotency/index.js';
import { createBookingService, createShippingService } from './modules/install/index.js';
import { createIntegrationsService } from './modules/integrations/index.js';
import { createInventoryImportService } from './modules/inventory/index.js';
import { createLocationsService } from './modules/locations/index.js';
import { registerRetentionJobs } from './modules/maintenance/index.js';
import { createNotesService } from './modules/notes/index.js';
import { createPlanChangeService, registerPlanChangeJobs } from './modules/plan-change/index.js';
import { createPlansService } from './modules/plans/index.js';
import { createProbeService } from './modules/probe/index.js';
import { createProviderAdminService } from './modules/providers/index.js';
import { createConfirmInstallService, createProvisioningService, registerProvisioningJobs } from './modules/provisioning/index.js';
import { createRateLimitCounter } from './modules/rate-limit/index.js';
import { createRecentChanges, createRollbackService } from './modules/rollback/index.js';
import { createServiceabilityService } from './modules/serviceability/index.js';
import { createStaffService } from './modules/staff/index.js';
import {
  createBillingDayService,
  createCreditNoteService,
  createInvoiceCopyService,
  createPaymentMethodService,
  createSubscriberChangeService,
  createSubscriberOwnershipService,
  createSubscriberPasswordService,
  createSubscriberReadService,
  createSubscriberSearchService,
  createSubscriberService,
  searchWarmUp,
} from './modules/subscribers/index.js';
import { createSubscriptionStatusService } from './modules/subscription-status/index.js';
import { createTicketsService } from './modules/tickets/index.js';
import { createVerificationService } from './modules/verification/index.js';
import { createStripeEventVerifier } from './adapters/stripe.events.js';

/**
 * The infrastructure every service, job handler and test may be given: the database, the clock,
 * the queue, mail, webhooks and the outside systems. A service never takes this whole: it declares
 * the narrow part it uses in an interface next to itself, and only this file hands it over.
 */
export interface Deps {
  config: Config;
  db: Db;
  dbHandle: DbHandle;
  clock: Clock;
  log: FastifyBaseLogger;
  jobs: JobQueue;
  /** Recurring jobs: `scheduler.every(kind, intervalMs, payload?)` beside `jobs.register(kind, ...)`. */
  scheduler: Scheduler;
  mailer: Mailer;
  webhooks: Webhooks;
  adapters: Adapters;
}

/** Parts a test (or a script) may supply instead of the defaults. */
export type DepsOverrides = Partial<Pick<Deps, 'clock' | 'adapters' | 'mailer'>>;

/** The container's parts built before it: the adapters (createAdapters starts their simulator server, async). */
type ContainerParts = DepsOverrides & Pick<Deps, 'adapters'>;

/**
 * Every service, built once (the partner routes are mounted twice and share these). Routes and
 * plugins reach the business rules only through this object (`app.services.planChange`).
 */
function createServices(deps: Deps) {
  const { config } = deps;
  const subscribers = createSubscriberService(deps);
  const provisioning = createProvisioningService(deps);
  const checkout = createCheckoutService(deps);
  const completion = createCompletionService({ ...deps, provisioning });
  const planChange = createPlanChangeService(deps);
  const auth = createAuthService({
    ...deps,
    jwtSecret: config.jwtSecret,
    jwtTtlSeconds: config.JWT_TTL_SECONDS,
    adminToken: config.ADMIN_TOKEN,
  });
  const integrations = createIntegrationsService(deps);
  return {
    auth,
    passwords: createPasswordService(deps),
    idempotency: createIdempotencyService(deps),
    rateLimitCounter: createRateLimitCounter(deps),
    probe: createProbeService(deps),
    // the /agent surface
    verification: createVerificationService({ ...deps, smsSenderFor: integrations.smsSenderFor }),
    subscriberOwnership: createSubscriberOwnershipService(deps),
    subscriberSearch: createSubscriberSearchService(deps),
    subscriberReads: createSubscriberReadService(deps),
    subscriberChanges: createSubscriberChangeService(deps),
    invoiceCopies: createInvoiceCopyService(deps),
    notes: createNotesService(deps),
    tickets: createTicketsService(deps),
    planChange,
    rollback: createRollbackService({ ...deps, planChange }),
    recentChanges: createRecentChanges(deps),
    // the partner surface
    serviceability: createServiceabilityService(deps),
    locations: createLocationsService(deps),
    checkout,
    sandboxCheckout: createSandboxCheckoutService({ ...deps, checkout, completion }),
    subscriptionStatus: createSubscriptionStatusService(deps),
    provisioning,
    confirmInstall: createConfirmInstallService(deps),
    completion,
    booking: createBookingService(deps),
    shipping: createShippingService(deps),
    subscribers,
    subscriberPasswords: createSubscriberPasswordService(deps),
    creditNotes: createCreditNoteService({ ...deps, subscribers }),
    billingDays: createBillingDayService(deps),
    paymentMethods: createPaymentMethodService({ ...deps, subscribers }),
    payPage: createPayPageService(deps),
    cardEvents: createCardEventsService({
      ...deps,
      verifyEvent: config.STRIPE_WEBHOOK_SECRET ? createStripeEventVerifier(config.STRIPE_WEBHOOK_SECRET) : null,
    }),
    cancellation: createCancellationService(deps),
    staff: createStaffService(deps),
    // the operator's toolkit (npm run ops, /api/v1/admin)
    apiKeys: createApiKeyService({ ...deps, forgetApiKey: auth.forgetApiKey }),
    providerAdmin: createProviderAdminService({
      ...deps,
      forgetAllApiKeys: auth.forgetAllApiKeys,
      // Tests stand loopback receivers in for the outside world (TEST_ALLOW_LOOPBACK, test runner only).
      productionUrls: config.NODE_ENV === 'production' && !config.TEST_ALLOW_LOOPBACK,
    }),
    plans: createPlansService(deps),
    inventory: createInventoryImportService(deps),
    // a provider's card-processor connection and SMS gateway (operator CLI, admin routes)
    integrations,
    // the scheduled runs
    billingRun: createBillingRunService(deps),
    dunning: createDunningService(deps),
  };
}

export type Services = ReturnType<typeof createServices>;

/** Every job kind's handler, registered once, after the services they call. */
function registerJobHandlers(deps: Deps, services: Services) {
  registerMailJobs(deps);
  registerWebhookJobs(deps);
  registerPlanChangeJobs(deps);
  registerProvisioningJobs(deps);
  registerBillingJobs({ ...deps, billingRun: services.billingRun, dunning: services.dunning });
  registerCancellationJobs(deps);
  registerRetentionJobs(deps);
}

/** What each new database connection runs first (DbHandle.warmUp): the hot reads' PL/pgSQL functions. */
export function connectionWarmUp(db: Db) {
  return [searchWarmUp(db)];
}

/** The composition root: infrastructure, then services, then job handlers. Only this file wires them. */
export function createContainer(
  config: Config,
  dbHandle: DbHandle,
  clock: Clock,
  log: FastifyBaseLogger,
  overrides: ContainerParts,
): { deps: Deps; services: Services } {
  const db = dbHandle.db;
  const jobs = createJobQueue({ db, clock, log, config });
  const deps: Deps = {
    config,
    db,
    dbHandle,
    clock,
    log,
    jobs,
    scheduler: createScheduler({ db, jobs, clock, log }),
    mailer: overrides.mailer ?? createMailer({ config, log, jobs }),
    webhooks: createWebhooks({ jobs, clock }),
    adapters: overrides.adapters,
  };
  const services = createServices(deps);
  registerJobHandlers(deps, services);
  return { deps, services };
}
