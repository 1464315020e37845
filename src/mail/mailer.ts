import { mkdir, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import nodemailer, { type Transporter } from 'nodemailer';
import type { FastifyBaseLogger } from 'fastify';
import type { Config } from '../config.js';
import type { JobQueue } from '../jobs/types.js';
import { randomToken } from '../lib/ids.js';
import { mailOutcome } from '../ops/events.js';
import type { Mailer, MailMessage } from './types.js';

export interface MailerDeps {
  config: Pick<Config, 'SMTP_URL' | 'MAIL_FROM' | 'MAIL_OUTBOX_DIR'>;
  log: FastifyBaseLogger;
  jobs: Pick<JobQueue, 'enqueue'>;
}

/**
 * How long a send waits on the SMTP relay (ms), instead of nodemailer's defaults (2 minutes to
 * connect, 10 minutes of silence on an open connection): a stalled relay then fails the send soon,
 * and the mail.send job retries it with its backoff. Query parameters of SMTP_URL override them
 * (`smtp://relay:587?socketTimeout=60000`).
 */
export const SMTP_TIMEOUTS = { connectionTimeout: 10_000, greetingTimeout: 10_000, socketTimeout: 30_000 };

/**
 * The plain-text part of a mail written to the outbox folder, as it reads: 8bit, never
 * quoted-printable, which folds lines at 76 characters and writes `=` as `=3D`, so a link with a
 * token could not be found by grep in the .eml (nodemailer picks quoted-printable for any text
 * with a long line or a character outside ASCII; its `textEncoding` offers only that or base64).
 * A file on disk has no transport to carry it over; SMTP keeps nodemailer's own choice, which
 * every relay accepts. RFC 5322 caps a line at 998 octets: a longer one keeps the default too.
 */
function outboxText(text: string): string | { raw: string } {
  if (text.split('\n').some((line) => Buffer.byteLength(line, 'utf8') > 998)) return text;
  return { raw: `Content-Type: text/plain; charset=utf-8\r\nContent-Transfer-Encoding: 8bit\r\n\r\n${text}` };
}

/**
 * SMTP when SMTP_URL is set; otherwise each message is written to the outbox folder as an .eml
 * file (and logged by tag and recipient, never by body: bodies hold codes and links).
 */
export function createMailer({ config, log, jobs }: MailerDeps): Mailer {
  const transport: Transporter = config.SMTP_URL
    ? nodemailer.createTransport({ url: config.SMTP_URL, ...SMTP_TIMEOUTS })
    : nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'unix' });

  async function send(msg: MailMessage) {
    try {
      await deliver(msg);
    } catch (err) {
      mailOutcome('failed');
      throw err;
    }
    mailOutcome(config.SMTP_URL ? 'sent' : 'written');
  }

  async function deliver(msg: MailMessage) {
    const info = await transport.sendMail({
      from: config.MAIL_FROM,
      to: msg.to,
      subject: msg.subject,
      text: config.SMTP_URL ? msg.text : outboxText(msg.text),
      html: msg.html,
      attachments: msg.attachments,
      headers: { 'X-Mail-Tag': msg.tag },
    });
    if (!config.SMTP_URL) {
      await mkdir(config.MAIL_OUTBOX_DIR, { recursive: true });
      const name = `${new Date().toISOString().replace(/[:.]/g, '-')}-${msg.tag}-${randomToken(4)}.eml`;
      const file = path.join(config.MAIL_OUTBOX_DIR, name);
      // Written under a name no reader looks at (a dot file, not .eml), then renamed: a reader polling the
      // folder (demo:verify, demo:agent, grep) sees a mail whole or not at all, never a file being written.
      const partial = path.join(config.MAIL_OUTBOX_DIR, `.${name}.partial`);
      await writeFile(partial, (info as unknown as { message: Buffer }).message);
      await rename(partial, file);
      log.info({ mail: msg.tag, to: msg.to, file }, 'mail written to outbox folder');
    } else {
      log.info({ mail: msg.tag, to: msg.to }, 'mail sent');
    }
  }

  return {
    send,
    async enqueue(executor, msg) {
      await jobs.enqueue(executor, { kind: 'mail.send', payload: { ...msg }, maxAttempts: 10 });
    },
    async close() {
      transport.close();
    },
  };
}
