import { describe, expect, it } from 'vitest';
import { buildTestApp } from '../helpers/app.js';
import { loadDemo } from '../../src/demo/seed.js';
import { monthStart } from '../../src/lib/dates.js';
import { createBillingRunService } from '../../src/modules/billing/billing-run.service.js';
import { createDunningService } from '../../src/modules/billing/dunning.service.js';

// `npm start` runs the monthly billing run and dunning daily. Whatever day the demo is loaded on,
// they must not erase the states the document promises (a preview case, an ACTIVE customer).
describe.each(['2026-11-01T00:30:00.000Z', '2026-11-10T12:00:00.000Z', '2026-12-31T23:30:00.000Z'])('demo loaded at %s', (now) => {
  it('keeps every named state through the billing run and dunning of that day', async () => {
    const t = await buildTestApp({ now });
    try {
      const { document: doc } = await loadDemo({ db: t.db, clock: t.clock, config: t.config });
      const billing = createBillingRunService(t.deps);
      const run = await billing.runMonthly();
      expect(run.failed).toBe(0);
      const dunning = await createDunningService(t.deps).runDunning();
      expect(dunning.suspended).toBe(0);

      const month = monthStart(t.clock.now());
      const state = async (subscriptionId: string) => ({
        invoice: Boolean(
          await t.db
            .selectFrom('invoices')
            .select('id')
            .where('subscription_id', '=', subscriptionId)
            .where('period_start', '=', month)
            .executeTakeFirst(),
        ),
        document: Boolean(
          await t.db
            .selectFrom('billing_documents')
            .select('id')
            .where('subscription_id', '=', subscriptionId)
            .where('period_start', '=', month)
            .executeTakeFirst(),
        ),
      });
      const c = doc.customers;
      expect(await state(c.invoiced.subscription_id)).toEqual({ invoice: true, document: true });
      expect(await state(c.not_invoiced.subscription_id)).toEqual({ invoice: false, document: false });
      expect(await state(c.missing_billing_document.subscription_id)).toEqual({ invoice: true, document: false });
      expect(await state(c.missing_invoice.subscription_id)).toEqual({ invoice: false, document: true });
      const statuses = await t.db
        .selectFrom('subscriptions')
        .select(['id', 'status'])
        .where(
          'id',
          'in',
          [c.invoiced, c.not_invoiced, c.changed_today, c.activated, c.not_activated, c.missing_invoice, c.missing_billing_document].map(
            (x) => x.subscription_id,
          ),
        )
        .execute();
      expect(statuses.map((s) => s.status)).toEqual(Array(7).fill('ACTIVE'));
      // Nothing the demo built is new business for the run: it only finds what the demo left out on purpose.
      const billed = await t.db
        .selectFrom('invoices')
        .innerJoin('subscriptions', 'subscriptions.id', 'invoices.subscription_id')
        .select(['subscriptions.status', 'subscriptions.activated_at', 'subscriptions.billing_day', 'subscriptions.ended_at'])
        .where('invoices.id', 'in', run.invoice_ids.length ? run.invoice_ids : ['00000000-0000-0000-0000-000000000000'])
        .execute();
      expect(billed).toEqual([]);
    } finally {
      await t.close();
    }
  });
});
