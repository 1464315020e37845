// Issue 28 §4: the README walkthrough's verification mail "did not appear within 120 s" under load. The
// cause: the outbox mailer wrote each .eml in place (open, then write), and demo:verify marked every new
// .eml as seen after one read, so a file caught between the two (empty or half written, no code yet) was
// skipped for good and the code never came. Now the mailer writes a hidden partial file and renames it,
// and the reader never gives up on a file it could not parse whole.
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { afterAll, describe, expect, it, vi } from 'vitest';

/**
 * writeFile, paused half-way through while the test has armed the gate, until it lets it go on.
 * Disarmed it is fs.writeFile: the files of one worker share loaded modules (isolate: false), so a
 * module loaded here may serve a later file, which must never wait on this gate.
 */
const gate = vi.hoisted(() => ({ armed: false, paused: null as null | { file: string; go: () => void } }));
vi.mock('node:fs/promises', async (importOriginal) => {
  const fs = await importOriginal<typeof import('node:fs/promises')>();
  return {
    ...fs,
    async writeFile(file: string, data: Buffer, ...rest: unknown[]) {
      if (!gate.armed) return (fs.writeFile as (...a: unknown[]) => Promise<void>)(file, data, ...rest);
      const half = Math.floor(data.length / 2);
      await fs.writeFile(file, data.subarray(0, half));
      await new Promise<void>((go) => (gate.paused = { file, go }));
      await fs.appendFile(file, data.subarray(half));
    },
  };
});

// The suite shares loaded modules between files (isolate: false): load the mailer afresh so it sees the mock.
vi.resetModules();
const { createMailer } = await import('../../src/mail/mailer.js');
const { verificationCodeMail } = await import('../../src/mail/templates.js');

const dirs: string[] = [];
const tempDir = () => {
  const d = mkdtempSync(path.join(tmpdir(), 'netsvc-outbox-'));
  dirs.push(d);
  return d;
};
afterAll(() => {
  gate.armed = false;
  dirs.forEach((d) => rmSync(d, { recursive: true, force: true }));
  // The next file of this worker loads its modules without this mock.
  vi.doUnmock('node:fs/promises');
  vi.resetModules();
});

describe('outbox mails appear whole or not at all', () => {
  it('while a mail is being written, no .eml file is visible in the outbox; after, exactly one, complete', async () => {
    const dir = tempDir();
    const mailer = createMailer({
      config: { MAIL_FROM: 'Support <support@netsvc.local>', MAIL_OUTBOX_DIR: dir },
      log: pino({ level: 'silent' }),
      jobs: { enqueue: async () => ({ id: 'unused' }) },
    });
    const content = verificationCodeMail(
      { brand: { name: 'Demo', supportEmail: 's@example.test' }, baseUrl: 'http://x.test' },
      { code: '482913' },
    );
    gate.armed = true;
    const sending = mailer.send({ to: 'erika@example.test', ...content });
    await vi.waitFor(() => expect(gate.paused).not.toBeNull());
    expect(readdirSync(dir).filter((f) => f.endsWith('.eml'))).toEqual([]);
    gate.armed = false;
    gate.paused!.go();
    gate.paused = null;
    await sending;
    const files = readdirSync(dir);
    expect(files.filter((f) => f.endsWith('.eml'))).toHaveLength(1);
    expect(files.filter((f) => !f.endsWith('.eml'))).toEqual([]);
    await mailer.close();
  });
});

describe('demo:verify reads a mail that was still being written when it first looked', () => {
  it('a half-written .eml (no code yet) completed later is read again, and the code is found', async () => {
    const dir = tempDir();
    const email = 'erika@example.test';
    const full = [
      'From: Support <support@netsvc.local>',
      `To: ${email}`,
      'Subject: Your verification code',
      'Content-Type: text/plain; charset=utf-8',
      '',
      'Verification code: 482913',
      '',
    ].join('\r\n');
    const file = path.join(dir, '2026-11-16T10-00-00-000Z-verification_code-abcd.eml');
    let checked: unknown = null;
    const server = createServer((req, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        if (req.url === '/agent/verify/issue') {
          // The mail appears empty first (as a file just opened for writing), and whole 1.5 s later.
          writeFileSync(file, '');
          setTimeout(() => writeFileSync(file, full), 1_500);
          res.writeHead(202, { 'content-type': 'application/json' }).end('{"sent":true}');
        } else {
          checked = JSON.parse(body);
          res.writeHead(200, { 'content-type': 'application/json' }).end('{"verified_session":"vs_demo"}');
        }
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const demoJson = path.join(dir, 'demo.json');
    writeFileSync(
      demoJson,
      JSON.stringify({
        base_url: base,
        providers: { main: { api_key: 'k' }, other: { api_key: 'o' } },
        customers: { invoiced: { id: 'c1', email } },
      }),
    );
    const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/demo-verify.ts', 'invoiced'], {
      env: { PATH: process.env.PATH, DEMO_JSON: demoJson, MAIL_OUTBOX_DIR: dir, DEMO_TIMEOUT_MS: '15000' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (c) => (out += c));
    child.stderr.on('data', (c) => (err += c));
    const code = await new Promise<number | null>((r) => child.on('close', r));
    server.close();
    expect(err).toBe('');
    expect(code).toBe(0);
    expect(out.trim()).toBe('vs_demo');
    expect(checked).toEqual({ customer_id: 'c1', code: '482913' });
  }, 60_000);
});
