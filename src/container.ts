import type { FastifyBaseLogger } from 'fastify';
import type { Config } from './config.js';
import type { Db, DbHandle } from './db/database.js';
import type { Clock } from './lib/clock.js';
import type { Adapters } from './adapters/types.js';
import type { JobQueue } from './jobs/types.js';
import type { Mailer } from './mail/types.js';
import type { Webhooks } from './webhooks/types.js';
import { createAdapters } from './adapters/index.js';
import { applyFaultSpec } from './adapters/fault-spec.js';
import { createJobQueue } from './jobs/queue.js';
import { createScheduler, type Scheduler } from './jobs/scheduler.js';
import { createMailer } from './mail/mailer.js';
import { registerMailJobs } from './mail/mail.jobs.js';
import { createWebhooks } from './webhooks/outbox.js';
import { registerWebhookJobs } from './webhooks/webhook.jobs.js';
import { createAuthService } from './modules/auth/auth.service.js';
import { createPasswordService } from './modules/auth/password.service.js';
import { createBillingRunService } from './modules/billing/billing-run.service.js';
import { createDunningService } from './modules/billing/dunning.service.js';
import { createPayPageService } from './modules/billing/pay-page.service.js';
import { registerBillingJobs } from './modules/billing/billing.jobs.js';
import { createCancellationService } from './modules/cancellation/cancellation.service.js';
import { registerCancellationJobs } from './modules/cancellation/cancellation.jobs.js';
import { createCheckoutService } from './modules/checkout/checkout.service.js';
import { createSandboxCheckoutService } from './modules/checkout/sandbox.service.js';
import { createCustomerChangeService } from './modules/subscribers/subscriber-changes.service.js';
import { createCustomerOwnershipService } from './modules/subscribers/ownership.service.js';
import { createCustomerReadService } from './modules/subscribers/profile.service.js';
import { createInvoiceCopyService } from './modules/subscribers/invoice-copy.service.js';
import { createCustomerSearchService } from './modules/subscribers/search.service.js';
import { createIdempotencyService } from './modules/idempotency/idempotency.service.js';
import { createBookingService } from './modules/install/booking.service.js';
import { createLocationsService } from './modules/locations/locations.service.js';
import { registerRetentionJobs } from './modules/maintenance/retention.jobs.js';
import { createNotesService } from './modules/notes/notes.service.js';
import { createPlanChangeService } from './modules/plan-change/plan-change.service.js';
import { createRollbackService } from './modules/rollback/rollback.service.js';
import { registerPlanChangeJobs } from './modules/plan-change/plan-change.jobs.js';
import { createProbeService } from './modules/probe/probe.service.js';
import { createCompletionService } from './modules/provisioning/completion.service.js';
import { createConfirmInstallService } from './modules/provisioning/confirm-install.service.js';
import { createProvisioningService } from './modules/provisioning/provisioning.service.js';
import { registerProvisioningJobs } from './modules/provisioning/provisioning.jobs.js';
import { createRateLimitCounter } from './modules/rate-limit/rate-limit.service.js';
import { createServiceabilityService } from './modules/serviceability/serviceability.service.js';
import { createStaffService } from './modules/staff/staff.service.js';
import { createBillingDayService } from './modules/subscribers/billing-day.service.js';
import { createCreditNoteService } from './modules/subscribers/credit-notes.service.js';
import { createPaymentMethodService } from './modules/subscribers/payment-method.service.js';
import { createSubscriberPasswordService } from './modules/subscribers/subscriber-password.service.js';
import { createSubscriberService } from './modules/subscribers/account.service.js';
import { createSubscriptionStatusService } from './modules/subscription-status/subscription-status.service.js';
import { createTicketsService } from './modules/tickets/tickets.service.js';
import { createVerificationService } from './modules/verification/verification.service.js';

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
  return {
    auth: createAuthService({ ...deps, jwtSecret: config.jwtSecret, jwtTtlSeconds: config.JWT_TTL_SECONDS }),
    passwords: createPasswordService(deps),
    idempotency: createIdempotencyService(deps),
    rateLimitCounter: createRateLimitCounter(deps),
    probe: createProbeService(deps),
    // the /agent surface
    verification: createVerificationService(deps),
    customerOwnership: createCustomerOwnershipService(deps),
    customerSearch: createCustomerSearchService(deps),
    customerReads: createCustomerReadService(deps),
    customerChanges: createCustomerChangeService(deps),
    invoiceCopies: createInvoiceCopyService(deps),
    notes: createNotesService(deps),
    tickets: createTicketsService(deps),
    planChange,
    rollback: createRollbackService({ ...deps, planChange }),
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
    subscribers,
    subscriberPasswords: createSubscriberPasswordService(deps),
    creditNotes: createCreditNoteService({ ...deps, subscribers }),
    billingDays: createBillingDayService(deps),
    paymentMethods: createPaymentMethodService({ ...deps, subscribers }),
    payPage: createPayPageService(deps),
    cancellation: createCancellationService(deps),
    staff: createStaffService(deps),
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

/** The composition root: infrastructure, then services, then job handlers. Only this file wires them. */
export function createContainer(
  config: Config,
  dbHandle: DbHandle,
  clock: Clock,
  log: FastifyBaseLogger,
  overrides: DepsOverrides = {},
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
    adapters: overrides.adapters ?? createAdapters({ db, clock }),
  };
  if (!overrides.adapters) applyFaultSpec(deps.adapters, config.SIMULATOR_FAULTS);
  const services = createServices(deps);
  registerJobHandlers(deps, services);
  return { deps, services };
}
