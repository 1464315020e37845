import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { simpleParser } from 'mailparser';
import pino from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import { createMailer } from '../../src/mail/mailer.js';
import {
  activationMail,
  installationBookingMail,
  passwordResetMail,
  paymentLinkMail,
  staffInviteMail,
  verificationCodeMail,
  type MailContent,
  type MailContext,
} from '../../src/mail/templates.js';

// The outbox folder is where a person reads the demo's mails (README walkthrough: grep the .eml).
const dir = mkdtempSync(path.join(tmpdir(), 'netsvc-outbox-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const mailer = createMailer({
  config: { MAIL_FROM: 'Support <support@netsvc.local>', MAIL_OUTBOX_DIR: dir },
  log: pino({ level: 'silent' }),
  jobs: { enqueue: async () => ({ id: 'unused' }) },
});

// A long base URL and names and a brand outside ASCII: what made the text part quoted-printable.
const ctx: MailContext = {
  brand: { name: 'Glasfaser Süd – Größe & Co.', supportEmail: 'hilfe@example.test', supportPhone: '+49 30 1234567' },
  baseUrl: 'https://kundenportal.glasfaser-sued.example/netsvc/api',
};
const token = 'tok_' + 'Ab9-_'.repeat(9);
const cases: [string, MailContent][] = [
  ['password reset', passwordResetMail(ctx, { firstName: 'Jürgen', token })],
  ['account activation', activationMail(ctx, { firstName: 'Zoë', token, customerNumber: 'K-100200' })],
  ['staff invite', staffInviteMail(ctx, { firstName: 'Ülkü', token, spRole: 'support', invitedBy: 'Renée Faß' })],
  ['installation booking', installationBookingMail(ctx, { firstName: 'Łukasz', token, address: 'Müllerstraße 12a, 13353 Berlin' })],
  ['payment link', paymentLinkMail(ctx, { firstName: 'Søren', token, invoiceNumber: 'INV-2026-0001', totalCents: 4999, currency: 'EUR' })],
];

async function written(content: MailContent): Promise<string> {
  const before = new Set(readdirSync(dir));
  await mailer.send({ to: 'kunde@example.test', ...content });
  const file = readdirSync(dir).find((f) => !before.has(f) && f.endsWith('.eml'));
  expect(file).toBeDefined();
  return path.join(dir, file!);
}

/** grep -F as a person runs it: exit 0 when the line is in the file. */
const grepFinds = (needle: string, file: string) => {
  try {
    execFileSync('grep', ['-qF', '--', needle, file]);
    return true;
  } catch {
    return false;
  }
};

describe('mails written to the outbox folder', () => {
  it.each(cases)(
    '%s: every link of the mail appears verbatim in the .eml (grep finds it), and the message parses back to the same text and HTML',
    async (_, content) => {
      const file = await written(content);
      const links = [...content.text.matchAll(/https?:\/\/\S+/g)].map((m) => m[0]);
      expect(links.length).toBeGreaterThan(0);
      expect(links.some((l) => l.includes(token))).toBe(true);
      for (const link of links) expect(grepFinds(link, file), link).toBe(true);
      const parsed = await simpleParser(readFileSync(file));
      expect(parsed.text).toBe(content.text);
      expect(parsed.html).toBe(content.html);
      expect(parsed.subject).toBe(content.subject);
    },
  );

  it("with an attachment (the invoice copy's shape) the text part stays verbatim and the attachment intact", async () => {
    const content = paymentLinkMail(ctx, { firstName: 'Søren', token, invoiceNumber: 'INV-2026-0002', totalCents: 100, currency: 'EUR' });
    const pdf = Buffer.from('%PDF-1.4 stand-in \u00ff bytes');
    const before = new Set(readdirSync(dir));
    await mailer.send({
      to: 'kunde@example.test',
      ...content,
      attachments: [{ filename: 'INV-2026-0002.pdf', content: pdf, contentType: 'application/pdf' }],
    });
    const file = path.join(
      dir,
      readdirSync(dir).find((f) => !before.has(f))!,
    );
    for (const link of content.text.match(/https?:\/\/\S+/g)!) expect(grepFinds(link, file), link).toBe(true);
    const parsed = await simpleParser(readFileSync(file));
    expect(parsed.text).toBe(content.text);
    expect(parsed.attachments.map((a) => [a.filename, a.content.equals(pdf)])).toEqual([['INV-2026-0002.pdf', true]]);
  });

  it('the verification code line is greppable as the README reads it', async () => {
    const file = await written(verificationCodeMail(ctx, { firstName: 'Jürgen', code: '042917' }));
    expect(grepFinds('Verification code: 042917', file)).toBe(true);
  });
});
