import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createServer as createNetServer, type AddressInfo, type Socket } from 'node:net';
import { simpleParser } from 'mailparser';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { createPlanVersion, createProvider, createSubscriber, createSubscription } from '../helpers/factories.js';
import { pdfText } from '../helpers/pdf-text.js';
import { startSmtpSink, type SinkMessage, type SmtpSink } from '../helpers/smtp-sink.js';
import { renderInvoicePdf } from '../../src/documents/index.js';
import { enqueueInvoiceCopy, INVOICE_COPY_JOB } from '../../src/mail/invoice-copy.js';
import {
  activationMail,
  installationBookingMail,
  invoiceCopyMail,
  mailBrand,
  paymentLinkMail,
  passwordResetMail,
  platformBrand,
  staffInviteMail,
  staffInviteRefusedMail,
  ticketNotificationMail,
  verificationCodeMail,
  type MailContent,
  type MailContext,
} from '../../src/mail/templates.js';
import { newId, randomAlnum } from '../../src/lib/ids.js';
import type { MailAttachment } from '../../src/mail/types.js';
import { SMTP_TIMEOUTS } from '../../src/mail/mailer.js';
import { MAIL_SEND_SLOTS, registerMailJobs } from '../../src/mail/mail.jobs.js';
import { createJobQueue } from '../../src/jobs/queue.js';

let sink: SmtpSink;
let t: TestApp;
let ctx: MailContext;
let providerId: string;

beforeAll(async () => {
  sink = await startSmtpSink();
  t = await buildTestApp({ env: { SMTP_URL: sink.url } });
  const p = await createProvider(t.db, { name: 'Fibre Nord' });
  providerId = p.id;
  const row = await t.db
    .selectFrom('providers')
    .select(['name', 'support_email', 'branding'])
    .where('id', '=', p.id)
    .executeTakeFirstOrThrow();
  ctx = { brand: mailBrand(row), baseUrl: t.config.publicBaseUrl };
});
afterAll(async () => {
  await t.close();
  await sink.close();
});
afterEach(() => sink.clear());

const to = () => `cust-${randomAlnum(8)}@example.test`;
const jobsOf = (kind: string) =>
  t.db.selectFrom('jobs').select(['id', 'status', 'attempts', 'last_error', 'run_at', 'payload']).where('kind', '=', kind).execute();

/** Sends through the real mailer over SMTP and returns the parsed message the sink received. */
async function deliver(rcpt: string, content: MailContent & { attachments?: MailAttachment[] }): Promise<SinkMessage> {
  await t.deps.mailer.send({ to: rcpt, ...content });
  return sink.waitFor((m) => m.to.includes(rcpt));
}

function expectBranded(m: SinkMessage) {
  expect(m.subject).toContain('Fibre Nord');
  expect(m.text).toContain(ctx.brand.supportEmail);
  expect(m.html).toContain(`mailto:${ctx.brand.supportEmail}`);
  expect(m.html).toMatch(/^<!DOCTYPE html>\s*<html lang="en">/);
}

describe('mail templates over real SMTP', () => {
  it('verification code: 6 digits, valid 10 minutes', async () => {
    const rcpt = to();
    const m = await deliver(rcpt, verificationCodeMail(ctx, { firstName: 'Erika', code: '042917' }));
    expect(m.to).toEqual([rcpt]);
    expect(m.subject).toBe('Your verification code – Fibre Nord');
    expect(m.tag).toBe('verification_code');
    expect(m.text).toContain('Verification code: 042917');
    expect(m.text).toContain('valid for 10 minutes');
    expect(m.html).toContain('aria-label="Verification code: 0 4 2 9 1 7"');
    expectBranded(m);
    expect(() => verificationCodeMail(ctx, { code: '12345' })).toThrow(RangeError);
  });

  it('password reset: a /set-password?token= link, 15 minutes', async () => {
    const rcpt = to();
    const m = await deliver(rcpt, passwordResetMail(ctx, { firstName: 'Erika', token: 'tok_reset-123' }));
    expect(m.subject).toBe('Reset your password – Fibre Nord');
    expect(m.tag).toBe('password_reset');
    expect(m.text).toContain('http://api.test/set-password?token=tok_reset-123');
    expect(m.text).toContain('expires in 15 minutes');
    expect(m.html).toContain('href="http://api.test/set-password?token=tok_reset-123"');
    expectBranded(m);
  });

  it('account activation: a /set-password?token= link, 14 days, the customer number', async () => {
    const rcpt = to();
    const m = await deliver(rcpt, activationMail(ctx, { firstName: 'Erika', token: 'tok_act', customerNumber: 'ABCD-1234' }));
    expect(m.subject).toBe('Set up your account – Fibre Nord');
    expect(m.tag).toBe('account_activation');
    expect(m.text).toContain('http://api.test/set-password?token=tok_act');
    expect(m.text).toContain('expires in 14 days');
    expect(m.text).toContain('Customer number: ABCD-1234');
    expectBranded(m);
  });

  it('staff invite: a /set-password?token= link, 14 days, the role', async () => {
    const rcpt = to();
    const m = await deliver(rcpt, staffInviteMail(ctx, { firstName: 'Tom', token: 'tok_inv', spRole: 'support', invitedBy: 'Ada Admin' }));
    expect(m.subject).toBe('You are invited to the provider dashboard – Fibre Nord');
    expect(m.tag).toBe('staff_invite');
    expect(m.text).toContain('http://api.test/set-password?token=tok_inv');
    expect(m.text).toContain('Ada Admin invited you');
    expect(m.text).toContain('Role: Support');
    expect(m.text).toContain('expires in 14 days');
    expectBranded(m);
  });

  it('refused staff invitation: sent by the platform (MAIL_FROM), naming the inviting provider and nothing else of it; no link', async () => {
    const rcpt = to();
    const brand = platformBrand('"Netsvc Platform" <platform@netsvc.example>');
    expect(brand).toEqual({ name: 'Netsvc Platform', supportEmail: 'platform@netsvc.example' });
    expect(platformBrand('ops@netsvc.example')).toEqual({ name: 'ops@netsvc.example', supportEmail: 'ops@netsvc.example' });
    const m = await deliver(rcpt, staffInviteRefusedMail({ brand, baseUrl: 'http://api.test' }, { providerName: 'Fibre Nord' }));
    expect(m.subject).toBe('A staff invitation was not created – Netsvc Platform');
    expect(m.tag).toBe('staff_invite_refused');
    expect(m.text).toContain('Fibre Nord tried to invite this address to its provider dashboard');
    expect(m.text).toContain('Write to platform@netsvc.example');
    expect(m.text).not.toContain(ctx.brand.supportEmail);
    expect(m.text).not.toMatch(/token=|http/);
  });

  it('invoice copy: arrives with the invoice PDF attached', async () => {
    const rcpt = to();
    const pdf = await renderInvoicePdf({
      issuer: { name: 'Fibre Nord', addressLines: [] },
      customer: { name: 'Erika M', customerNumber: 'ABCD-1234', addressLines: [] },
      invoiceNumber: 'INV-7',
      invoiceDate: '2026-11-01',
      dueDate: '2026-11-15',
      currency: 'EUR',
      lines: [{ description: 'Fibre', amountCents: 3999 }],
    });
    const m = await deliver(
      rcpt,
      invoiceCopyMail(ctx, {
        firstName: 'Erika',
        invoiceNumber: 'INV-7',
        invoiceDate: '2026-11-01',
        dueDate: '2026-11-15',
        totalCents: 3999,
        currency: 'EUR',
        pdf,
      }),
    );
    expect(m.subject).toBe('Your invoice INV-7 – Fibre Nord');
    expect(m.tag).toBe('invoice_copy');
    expect(m.text).toContain('Total: 39.99 EUR');
    expect(m.attachments).toHaveLength(1);
    expect(m.attachments[0]).toMatchObject({ filename: 'invoice-INV-7.pdf', contentType: 'application/pdf' });
    expect(m.attachments[0]!.content.equals(pdf)).toBe(true);
    expect((await pdfText(m.attachments[0]!.content)).text).toContain('INV-7');
    expectBranded(m);
  });

  it('installation booking: a /booking/<token> link, four-hour weekday window, 24 h ahead, move or cancel', async () => {
    const rcpt = to();
    const m = await deliver(
      rcpt,
      installationBookingMail(ctx, {
        firstName: 'Erika',
        token: 'tok_book',
        address: 'Hauptstraße 5, 10115 Berlin',
        moveInDate: '2026-12-01',
        expiresAt: new Date('2027-01-15T10:00:00Z'),
      }),
    );
    expect(m.subject).toBe('Book your installation appointment – Fibre Nord');
    expect(m.tag).toBe('installation_booking');
    expect(m.text).toContain('http://api.test/booking/tok_book');
    expect(m.text).toMatch(/four-hour appointment window on a weekday \(Monday to Friday\), at least 24 hours ahead/);
    expect(m.text).toContain('move or cancel');
    expect(m.text).toContain('2026-12-01');
    expect(m.text).toContain('2027-01-15 10:00 UTC');
    expectBranded(m);
  });

  it("installation booking in the building's zone: window hours and the link's expiry in local time, the zone named", async () => {
    const m = await deliver(
      to(),
      installationBookingMail(ctx, {
        firstName: 'Erika',
        token: 'tok_book',
        expiresAt: new Date('2027-01-15T10:00:00Z'),
        timeZone: 'America/Toronto',
      }),
    );
    expect(m.text).toContain('starting at 08:00, 12:00 or 16:00 local time (America/Toronto)');
    expect(m.text).toContain('valid until 2027-01-15 05:00 America/Toronto');
    expect(m.text).not.toContain('UTC');
  });

  it('payment link for the first invoice: a /pay/<token> link with number and amount', async () => {
    const rcpt = to();
    const m = await deliver(
      rcpt,
      paymentLinkMail(ctx, {
        firstName: 'Erika',
        token: 'tok_pay',
        invoiceNumber: 'INV-9',
        totalCents: 5998,
        currency: 'eur',
        dueDate: '2026-11-30',
      }),
    );
    expect(m.subject).toBe('Pay your first invoice – Fibre Nord');
    expect(m.tag).toBe('payment_link');
    expect(m.text).toContain('http://api.test/pay/tok_pay');
    expect(m.text).toContain('Amount: 59.98 EUR');
    expect(m.text).toContain('Invoice number: INV-9');
    expectBranded(m);
  });

  it("support-ticket notification: to the provider's support address, with queue, priority and article", async () => {
    const content = ticketNotificationMail(ctx, {
      ticketId: 'a5c1e4f0-0000-4000-8000-000000000001',
      subject: 'No internet since\r\nmorning',
      priority: 'high',
      queue: 'support',
      contactEmail: 'erika@example.test',
      customer: { name: 'Erika M', customerNumber: 'ABCD-1234' },
      article: 'Summary: offline.\nDiagnosis: modem offline.',
      source: 'ai_agent',
    });
    expect(content.to).toBe(ctx.brand.supportEmail);
    await t.deps.mailer.send(content);
    const m = await sink.waitFor((x) => x.tag === 'ticket_notification');
    expect(m.to).toEqual([ctx.brand.supportEmail.toLowerCase()]);
    expect(m.subject).toBe('[high] New ticket: No internet since morning – Fibre Nord');
    expect(m.text).toContain('Queue: support');
    expect(m.text).toContain('Customer: Erika M (ABCD-1234)');
    expect(m.text).toContain('> Diagnosis: modem offline.');
    expect(m.text).toContain('Opened by: AI support agent');
  });

  it('escapes every interpolated value in the HTML (the text part keeps it as written)', async () => {
    const evil = { brand: { name: 'Evil <script>alert(1)</script> & Co', supportEmail: 'help@evil.test' }, baseUrl: 'http://api.test' };
    const c = ticketNotificationMail(evil, {
      ticketId: 't"1',
      subject: '<img src=x onerror=alert(1)>',
      priority: 'normal',
      queue: 'support',
      contactEmail: 'a"b@example.test',
      article: '<b>bold</b>',
    });
    const b = passwordResetMail(evil, { firstName: '<i>Eve</i>', token: '"><script>x</script>' });
    for (const html of [c.html, b.html]) {
      expect(html).not.toMatch(/<script|<img|<b>|<i>/);
    }
    expect(c.html).toContain('Evil &lt;script&gt;alert(1)&lt;/script&gt; &amp; Co');
    expect(c.html).toContain('&lt;img src=x onerror=alert(1)&gt;');
    expect(b.text).toContain('Hello <i>Eve</i>,');
    // the token is URL-encoded in the link itself
    expect(b.text).toContain('set-password?token=%22%3E%3Cscript%3Ex%3C%2Fscript%3E');
  });
});

describe('mailer.enqueue and the mail.send job', () => {
  it('sends a mail enqueued in a transaction only when the job runs (deps.jobs.drain)', async () => {
    const rcpt = to();
    await t.db.transaction().execute((trx) => t.deps.mailer.enqueue(trx, { to: rcpt, ...passwordResetMail(ctx, { token: 'tok_q' }) }));
    const jobs = (await jobsOf('mail.send')).filter((j) => (j.payload as { to?: string }).to === rcpt);
    expect(jobs).toMatchObject([{ status: 'queued', attempts: 0 }]);
    await new Promise((r) => setTimeout(r, 100));
    expect(sink.messages.filter((m) => m.to.includes(rcpt))).toEqual([]);
    await t.deps.jobs.drain();
    const m = await sink.waitFor((x) => x.to.includes(rcpt));
    expect(m.text).toContain('set-password?token=tok_q');
    expect(await t.db.selectFrom('jobs').select(['status', 'attempts']).where('id', '=', jobs[0]!.id).executeTakeFirst()).toEqual({
      status: 'succeeded',
      attempts: 1,
    });
  });

  it('sends nothing when the transaction rolled back: the job row went with it', async () => {
    const rcpt = to();
    await expect(
      t.db.transaction().execute(async (trx) => {
        await t.deps.mailer.enqueue(trx, { to: rcpt, ...activationMail(ctx, { token: 'tok_rb' }) });
        throw new Error('business rule failed after the enqueue');
      }),
    ).rejects.toThrow('business rule failed');
    expect((await jobsOf('mail.send')).filter((j) => (j.payload as { to?: string }).to === rcpt)).toEqual([]);
    await t.deps.jobs.drain();
    await new Promise((r) => setTimeout(r, 100));
    expect(sink.messages.filter((m) => m.to.includes(rcpt))).toEqual([]);
  });

  it('retries the mail.send job when the SMTP server refuses (451), then delivers once', async () => {
    const rcpt = to();
    sink.fail({ times: 1, code: 451 });
    await t.deps.mailer.enqueue(t.db, { to: rcpt, ...verificationCodeMail(ctx, { code: '111222' }) });
    await t.deps.jobs.drain();
    const [job] = (await jobsOf('mail.send')).filter((j) => (j.payload as { to?: string }).to === rcpt);
    expect(job).toMatchObject({ status: 'queued', attempts: 1 });
    expect(job!.last_error).toMatch(/451/);
    expect(job!.run_at.getTime()).toBeGreaterThan(t.clock.now().getTime());
    expect(sink.messages.filter((m) => m.to.includes(rcpt))).toEqual([]);

    t.clock.set(new Date(job!.run_at.getTime() + 1));
    await t.deps.jobs.drain();
    await sink.waitFor((m) => m.to.includes(rcpt));
    expect(sink.messages.filter((m) => m.to.includes(rcpt))).toHaveLength(1);
    expect(await t.db.selectFrom('jobs').select(['status', 'attempts']).where('id', '=', job!.id).executeTakeFirst()).toEqual({
      status: 'succeeded',
      attempts: 2,
    });
  });

  it('retries when the SMTP server is unreachable', async () => {
    const down = await startSmtpSink();
    const url = down.url;
    await down.close();
    const t2 = await buildTestApp({ env: { SMTP_URL: url } });
    try {
      await t2.deps.mailer.enqueue(t2.db, { to: to(), ...verificationCodeMail(ctx, { code: '333444' }) });
      await t2.deps.jobs.drain();
      const [job] = await t2.db.selectFrom('jobs').select(['status', 'attempts', 'last_error']).where('kind', '=', 'mail.send').execute();
      expect(job).toMatchObject({ status: 'queued', attempts: 1 });
      expect(job!.last_error).toMatch(/ECONNREFUSED|connect/i);
    } finally {
      await t2.close();
    }
  });
});

describe('a stalled SMTP relay', () => {
  /** Accepts connections and never says a word (no greeting): a relay that hangs. */
  async function startStalledRelay() {
    const sockets = new Set<Socket>();
    const server = createNetServer((sock) => {
      sockets.add(sock);
      sock.on('close', () => sockets.delete(sock));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    return {
      url: (query: string) => `smtp://127.0.0.1:${(server.address() as AddressInfo).port}?${query}`,
      close: () =>
        new Promise<void>((r) => {
          for (const sock of sockets) sock.destroy();
          server.close(() => r());
        }),
    };
  }

  it('fails the send after the greeting timeout (SMTP_TIMEOUTS, overridable in SMTP_URL), and the job retries', async () => {
    expect(SMTP_TIMEOUTS).toEqual({ connectionTimeout: 10_000, greetingTimeout: 10_000, socketTimeout: 30_000 });
    const relay = await startStalledRelay();
    const t2 = await buildTestApp({ env: { SMTP_URL: relay.url('greetingTimeout=300') } });
    try {
      await t2.deps.mailer.enqueue(t2.db, { to: to(), ...verificationCodeMail(ctx, { code: '555666' }) });
      await t2.deps.jobs.drain();
      const [job] = await t2.db.selectFrom('jobs').select(['status', 'attempts', 'last_error']).where('kind', '=', 'mail.send').execute();
      expect(job).toMatchObject({ status: 'queued', attempts: 1 });
      expect(job!.last_error).toMatch(/greeting/i);
    } finally {
      await t2.close();
      await relay.close();
    }
  });

  it('holds only the mail lane: other kinds keep running while every mail slot waits on the relay', async () => {
    const relay = await startStalledRelay();
    // The greeting timeout outlasts the wait for the slots (2 s) plus the other job's bound (1.5 s).
    const t2 = await buildTestApp({ env: { SMTP_URL: relay.url('greetingTimeout=4000') } });
    const q = createJobQueue({
      db: t2.db,
      clock: t2.clock,
      log: t2.app.log,
      config: { JOBS_POLL_MS: 10, JOBS_CONCURRENCY: 2, JOBS_LEASE_SECONDS: 60 },
    });
    registerMailJobs({ ...t2.deps, jobs: q });
    let ranAt = 0;
    q.register('test.other', {
      async run() {
        ranAt = performance.now();
      },
    });
    const mailStatuses = async () => {
      const rows = await t2.db.selectFrom('jobs').select(['status', 'attempts']).where('kind', '=', 'mail.send').execute();
      return rows.map((r) => `${r.status}/${r.attempts}`).sort();
    };
    // Every mail slot holding a mail on the stalled relay, the last two mails waiting their turn.
    const slotsHeld = [...Array(MAIL_SEND_SLOTS).fill('running/1'), 'queued/0', 'queued/0'].sort();
    try {
      for (let i = 0; i < MAIL_SEND_SLOTS + 2; i++)
        await t2.deps.mailer.enqueue(t2.db, { to: to(), ...verificationCodeMail(ctx, { code: '777888' }) });
      q.start();
      // The lanes claim on their own, so the other job is enqueued only once the mail lane is full.
      await vi.waitFor(async () => expect(await mailStatuses()).toEqual(slotsHeld), { timeout: 2_000, interval: 20 });
      t2.clock.advance(1_000); // enqueued after every mail: it is last in line
      await q.enqueue(t2.db, { kind: 'test.other', payload: {} });
      const enqueued = performance.now();
      for (let i = 0; i < 150 && !ranAt; i++) await new Promise((r) => setTimeout(r, 10));
      expect(ranAt).toBeGreaterThan(0);
      expect(ranAt - enqueued).toBeLessThan(1_500); // not after a greeting timeout
      expect(await mailStatuses()).toEqual(slotsHeld);
    } finally {
      await q.stop();
      await t2.close();
      await relay.close();
    }
  });
});

describe('mail without SMTP_URL', () => {
  it('writes each message as an .eml file to MAIL_OUTBOX_DIR', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'outbox-'));
    const t2 = await buildTestApp({ env: { MAIL_OUTBOX_DIR: dir } });
    try {
      const rcpt = to();
      await t2.deps.mailer.send({ to: rcpt, ...passwordResetMail(ctx, { token: 'tok_file' }) });
      const files = await readdir(dir);
      expect(files).toHaveLength(1);
      expect(files[0]).toMatch(/-password_reset-[\w-]+\.eml$/);
      const parsed = await simpleParser(await readFile(path.join(dir, files[0]!)));
      expect(parsed.subject).toBe('Reset your password – Fibre Nord');
      expect((parsed.to as { text: string }).text).toBe(rcpt);
      expect(parsed.text).toContain('http://api.test/set-password?token=tok_file');
      expect(parsed.html).toContain('href="http://api.test/set-password?token=tok_file"');
    } finally {
      await t2.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('invoice copy job (mail.invoice_copy)', () => {
  it('renders the invoice PDF in the worker and mails it to the invoice address; an unknown invoice fails the job for good', async () => {
    const sb = await createSubscriber(t.db, providerId, { firstName: 'Lena' });
    await t.db.updateTable('subscribers').set({ invoice_email: 'billing-lena@example.test' }).where('id', '=', sb.id).execute();
    const plan = await createPlanVersion(t.db, providerId);
    const sub = await createSubscription(t.db, { providerId, subscriberId: sb.id, planVersionId: plan.id });
    const invoiceId = newId();
    await t.db
      .insertInto('invoices')
      .values({
        id: invoiceId,
        provider_id: providerId,
        subscriber_id: sb.id,
        subscription_id: sub.id,
        invoice_number: 'INV-COPY-1',
        kind: 'monthly',
        period_start: '2026-11-01',
        invoice_date: '2026-11-01',
        due_date: '2026-11-15',
        currency: 'EUR',
        total_cents: 3999,
        status: 'paid',
        paid_at: new Date('2026-11-02T08:00:00Z'),
      })
      .execute();
    await t.db
      .insertInto('invoice_lines')
      .values({
        id: newId(),
        invoice_id: invoiceId,
        position: 1,
        kind: 'subscription',
        description: 'Fibre – November 2026',
        amount_cents: 3999,
      })
      .execute();

    await t.db.transaction().execute((trx) => enqueueInvoiceCopy(trx, t.deps.jobs, { invoiceId, providerId }));
    await enqueueInvoiceCopy(t.db, t.deps.jobs, { invoiceId: newId() });
    await t.deps.jobs.drain();

    const m = await sink.waitFor((x) => x.tag === 'invoice_copy');
    expect(m.to).toEqual(['billing-lena@example.test']);
    expect(m.subject).toBe('Your invoice INV-COPY-1 – Fibre Nord');
    expect(m.text).toContain('This invoice is paid');
    expect(m.attachments.map((a) => [a.filename, a.contentType])).toEqual([['invoice-INV-COPY-1.pdf', 'application/pdf']]);
    const pdf = await pdfText(m.attachments[0]!.content);
    for (const s of ['INV-COPY-1', sb.customerNumber!, '39.99 EUR', 'Paid on 2026-11-02']) expect(pdf.text).toContain(s);

    const jobs = await jobsOf(INVOICE_COPY_JOB);
    expect(jobs.map((j) => j.status).sort()).toEqual(['failed', 'succeeded']);
    expect(jobs.find((j) => j.status === 'failed')).toMatchObject({ attempts: 1, last_error: expect.stringMatching(/not found/) });
  });
});
