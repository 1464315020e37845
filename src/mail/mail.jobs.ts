import type { Deps } from '../container.js';
import { PermanentJobError } from '../jobs/types.js';
import { INVOICE_COPY_JOB, sendInvoiceCopy } from './invoice-copy.js';
import type { MailMessage } from './types.js';

export function registerMailJobs({ jobs, mailer, db, config }: Pick<Deps, 'jobs' | 'mailer' | 'db' | 'config'>) {
  jobs.register('mail.send', {
    async run(job) {
      const msg = job.payload as unknown as MailMessage;
      if (!msg.to || !msg.subject || !msg.text) throw new PermanentJobError('mail.send payload lacks to, subject or text');
      await mailer.send(msg);
    },
  });

  jobs.register(INVOICE_COPY_JOB, {
    async run(job) {
      const { invoice_id: invoiceId, to } = job.payload as { invoice_id?: unknown; to?: unknown };
      if (typeof invoiceId !== 'string') throw new PermanentJobError('mail.invoice_copy payload lacks invoice_id');
      const sent = await sendInvoiceCopy({ db, mailer, config }, { invoiceId, to: typeof to === 'string' ? to : undefined });
      if (!sent) throw new PermanentJobError(`invoice ${invoiceId} not found`);
      return sent;
    },
  });
}
