// The billing process: the monthly run, dunning, collection (card or payment link), the pay page and
// card-processor events. It reads invoices, subscribers and subscriptions through their owners.
export { createBillingRunService } from './billing-run.service.js';
export { createDunningService } from './dunning.service.js';
export { createPayPageService } from './pay-page.service.js';
export { createCardEventsService } from './card-events.service.js';
export { registerBillingJobs } from './billing.jobs.js';
export { collectFirstPayment } from './first-payment.js';
export type { CollectionDeps } from './collection.js';
export type { PayCheckout, PayInvoice, PayResultState } from './pay-page.service.js';
