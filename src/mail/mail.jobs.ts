import type { Config } from '../config.js';
import type { Db } from '../db/database.js';
import type { JobQueue } from '../jobs/types.js';
import type { Mailer } from './types.js';
import { PermanentJobError } from '../jobs/types.js';
import { INVOICE_COPY_JOB, sendInvoiceCopy } from './invoice-copy.js';
import type { MailMessage } from './types.js';

/**
 * Mail runs in lanes of its own (a kind with `concurrency` gets its own slots): an SMTP relay that
 * stalls holds each send up to the SMTP timeouts (mailer.ts), and in the slots every other kind
 * shares it would hold up provisioning, billing and the plan-change bandwidth retries meanwhile.
 */
export const MAIL_SEND_SLOTS = 4;
const INVOICE_COPY_SLOTS = 2;

export interface MailJobsDeps {
  jobs: JobQueue;
  mailer: Mailer;
  db: Db;
  config: Config;
}

export function registerMailJobs({ jobs, mailer, db, config }: MailJobsDeps) {
  jobs.register('mail.send', {
    concurrency: MAIL_SEND_SLOTS,
    async run(job) {
      const msg = job.payload as unknown as MailMessage;
      if (!msg.to || !msg.subject || !msg.text) throw new PermanentJobError('mail.send payload lacks to, subject or text');
      await mailer.send(msg);
    },
  });

  jobs.register(INVOICE_COPY_JOB, {
    concurrency: INVOICE_COPY_SLOTS,
    async run(job) {
      const { invoice_id: invoiceId, to, today } = job.payload as { invoice_id?: unknown; to?: unknown; today?: unknown };
      if (typeof invoiceId !== 'string') throw new PermanentJobError('mail.invoice_copy payload lacks invoice_id');
      const sent = await sendInvoiceCopy(
        { db, mailer, config },
        { invoiceId, to: typeof to === 'string' ? to : undefined, today: typeof today === 'string' ? today : undefined },
      );
      if (!sent) throw new PermanentJobError(`invoice ${invoiceId} not found`);
      return sent;
    },
  });
}
