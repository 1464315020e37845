// A real SMTP server in the test process: the mailer talks SMTP to it exactly as to a production
// relay, and each message is parsed (mailparser) and recorded.
//
//   const sink = await startSmtpSink();                 // or createSmtpSink().start()
//   const t = await buildTestApp({ env: { SMTP_URL: sink.url } });
//   ... await t.deps.jobs.drain();
//   const m = await sink.waitFor((m) => m.to.includes(email) && m.tag === 'password_reset');
//   sink.fail({ times: 1 });                            // the next message is refused with 451
//   sink.clear(); await sink.close();
import type { AddressInfo } from 'node:net';
import { simpleParser } from 'mailparser';
import { SMTPServer } from 'smtp-server';

interface SinkAttachment {
  filename: string | null;
  contentType: string;
  content: Buffer;
  size: number;
}

export interface SinkMessage {
  /** Envelope recipients (RCPT TO), lower-cased. */
  to: string[];
  /** Envelope sender (MAIL FROM). */
  from: string;
  subject: string;
  text: string;
  /** The HTML part, or null for a text-only message. */
  html: string | null;
  attachments: SinkAttachment[];
  /** The X-Mail-Tag header the mailer sets (e.g. 'password_reset'), or null. */
  tag: string | null;
  headers: Record<string, string>;
  raw: Buffer;
  receivedAt: Date;
}

export interface SmtpSink {
  start(): Promise<SmtpSink>;
  /** smtp://127.0.0.1:<port> — plain SMTP, no TLS, no auth; for SMTP_URL. */
  readonly url: string;
  readonly port: number;
  /** Every message received so far, oldest first. */
  readonly messages: SinkMessage[];
  /** The first message (already received or arriving) that matches; rejects after timeoutMs. */
  waitFor(predicate?: (m: SinkMessage) => boolean, timeoutMs?: number): Promise<SinkMessage>;
  /** Refuses the next `times` messages (default 1) with an SMTP error (default 451, temporary). */
  fail(opts?: { times?: number; code?: number; message?: string }): void;
  clear(): void;
  close(): Promise<void>;
}

function createSmtpSink(): SmtpSink {
  const messages: SinkMessage[] = [];
  const waiters = new Set<(m: SinkMessage) => void>();
  let failures: { times: number; code: number; message: string } | null = null;
  let port = 0;

  const server = new SMTPServer({
    secure: false,
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    size: 25 * 1024 * 1024,
    onMailFrom(_address, _session, callback) {
      if (failures && failures.times > 0) {
        failures.times -= 1;
        const err = Object.assign(new Error(failures.message), { responseCode: failures.code });
        if (failures.times === 0) failures = null;
        return callback(err);
      }
      callback();
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('error', callback);
      stream.on('end', () => {
        const raw = Buffer.concat(chunks);
        simpleParser(raw)
          .then((parsed) => {
            const headers: Record<string, string> = {};
            for (const [k, v] of parsed.headers) headers[k] = typeof v === 'string' ? v : JSON.stringify(v);
            const msg: SinkMessage = {
              to: session.envelope.rcptTo.map((a) => a.address.toLowerCase()),
              from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
              subject: parsed.subject ?? '',
              text: parsed.text ?? '',
              html: typeof parsed.html === 'string' ? parsed.html : null,
              attachments: parsed.attachments.map((a) => ({
                filename: a.filename ?? null,
                contentType: a.contentType,
                content: a.content,
                size: a.size,
              })),
              tag: typeof parsed.headers.get('x-mail-tag') === 'string' ? (parsed.headers.get('x-mail-tag') as string) : null,
              headers,
              raw,
              receivedAt: new Date(),
            };
            messages.push(msg);
            for (const w of [...waiters]) w(msg);
            callback();
          })
          .catch((err: Error) => callback(err));
      });
    },
  });

  const sink: SmtpSink = {
    async start() {
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(0, '127.0.0.1', () => {
          server.off('error', reject);
          resolve();
        });
      });
      // smtp-server keeps its net.Server on `.server`.
      port = (server as unknown as { server: { address(): AddressInfo } }).server.address().port;
      return sink;
    },
    get url() {
      if (!port) throw new Error('smtp sink not started');
      return `smtp://127.0.0.1:${port}`;
    },
    get port() {
      return port;
    },
    messages,
    waitFor(predicate = () => true, timeoutMs = 5_000) {
      const found = messages.find(predicate);
      if (found) return Promise.resolve(found);
      return new Promise<SinkMessage>((resolve, reject) => {
        const timer = setTimeout(() => {
          waiters.delete(w);
          reject(
            new Error(
              `smtp sink: no matching message within ${timeoutMs} ms (${messages.length} received: ${messages.map((m) => m.subject).join(' | ')})`,
            ),
          );
        }, timeoutMs);
        const w = (m: SinkMessage) => {
          if (!predicate(m)) return;
          clearTimeout(timer);
          waiters.delete(w);
          resolve(m);
        };
        waiters.add(w);
      });
    },
    fail({ times = 1, code = 451, message = 'Temporary failure, try again later' } = {}) {
      failures = { times, code, message };
    },
    clear() {
      messages.length = 0;
      failures = null;
    },
    close() {
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  return sink;
}

export function startSmtpSink(): Promise<SmtpSink> {
  return createSmtpSink().start();
}
