import type { Deps } from '../container.js';
import { PermanentJobError } from '../jobs/types.js';
import type { MailMessage } from './types.js';

export function registerMailJobs({ jobs, mailer }: Pick<Deps, 'jobs' | 'mailer'>) {
  jobs.register('mail.send', {
    async run(job) {
      const msg = job.payload as unknown as MailMessage;
      if (!msg.to || !msg.subject || !msg.text) throw new PermanentJobError('mail.send payload lacks to, subject or text');
      await mailer.send(msg);
    },
  });
}
