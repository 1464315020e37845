/**
 * `npm run -s demo:verify -- <customer>` — verifies a named demo customer against a RUNNING server in
 * one line and prints only the verified session token on stdout, for the agent surface's
 * `X-Verified-Session` header:
 *
 *   SESSION=$(npm run -s demo:verify -- not_invoiced)
 *
 * <customer> is a key of `customers` in var/demo.json (`invoiced`, `not_invoiced`, `activated`, ...;
 * `ambiguous.0` / `ambiguous.1` for the pair; `other_provider` uses provider `other`'s key). It does
 * what an agent does: POST /agent/verify/issue (email), reads the code from the mail the server
 * wrote to the outbox folder, POST /agent/verify/check.
 *
 * Environment: BASE_URL (default: `base_url` of the document, else http://127.0.0.1:3000),
 * DEMO_JSON (default var/demo.json), MAIL_OUTBOX_DIR (default var/outbox; with SMTP_URL set the
 * code goes out by real mail and this helper cannot read it), DEMO_TIMEOUT_MS (default 20000).
 * Exits 1 with one line on stderr when something is off.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { simpleParser } from 'mailparser';

const DEMO_JSON = process.env.DEMO_JSON ?? 'var/demo.json';
const OUTBOX = process.env.MAIL_OUTBOX_DIR ?? 'var/outbox';
const TIMEOUT_MS = Number(process.env.DEMO_TIMEOUT_MS ?? 20_000);

interface DemoCustomer {
  id: string;
  email: string;
}
interface DemoDoc {
  base_url?: string;
  providers: { main: { api_key: string }; other: { api_key: string } };
  customers: Record<string, DemoCustomer | DemoCustomer[]>;
}

class Fail extends Error {}

function pick(doc: DemoDoc, name: string): DemoCustomer {
  const [key = '', index] = name.split('.');
  const entry = Object.hasOwn(doc.customers, key) ? doc.customers[key] : undefined;
  const c = Array.isArray(entry) ? entry[Number(index ?? 0)] : index === undefined ? entry : undefined;
  if (!c?.id || !c.email) {
    const names = Object.entries(doc.customers).flatMap(([k, v]) => (Array.isArray(v) ? v.map((_, i) => `${k}.${i}`) : [k]));
    throw new Fail(`no named customer "${name}" in ${DEMO_JSON}; one of: ${names.join(', ')}`);
  }
  return c;
}

async function post(base: string, apiKey: string, urlPath: string, body: unknown): Promise<{ status: number; json: any }> {
  let res: Response;
  try {
    res = await fetch(`${base}${urlPath}`, {
      method: 'POST',
      headers: { 'x-api-key': apiKey, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
  } catch (err) {
    throw new Fail(`cannot reach the server at ${base} (${(err as Error).message}); start it first (npm start)`);
  }
  return { status: res.status, json: await res.json().catch(() => null) };
}

/** The code of the first verification mail to `email` among the files that were not there before. */
async function codeFromOutbox(email: string, before: Set<string>): Promise<string> {
  const deadline = Date.now() + TIMEOUT_MS;
  const seen = new Set(before);
  while (Date.now() < deadline) {
    const fresh = existsSync(OUTBOX) ? readdirSync(OUTBOX).filter((f) => f.endsWith('.eml') && !seen.has(f)) : [];
    for (const f of fresh.sort()) {
      // Parsed rather than grepped: the text part may be quoted-printable, folded or base64.
      const mail = await simpleParser(readFileSync(path.join(OUTBOX, f)));
      const to = [mail.to]
        .flat()
        .flatMap((a) => a?.value ?? [])
        .map((a) => a.address?.toLowerCase());
      // A file without recipients or text is one still being written (an outbox filled by something other
      // than this server's mailer, which renames whole files in): read it again, never skip it for good.
      if (to.length === 0 || !mail.text) continue;
      seen.add(f);
      const code = /Verification code:\s*(\d{6})/.exec(mail.text)?.[1];
      if (code && to.includes(email.toLowerCase())) return code;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Fail(
    `no verification mail for ${email} appeared in ${path.resolve(OUTBOX)} within ${TIMEOUT_MS} ms (is the server's MAIL_OUTBOX_DIR this one, and SMTP_URL unset?)`,
  );
}

async function main() {
  const name = process.argv[2];
  if (!name) throw new Fail('usage: npm run -s demo:verify -- <customer>   (e.g. invoiced, not_invoiced, ambiguous.1)');
  if (!existsSync(DEMO_JSON)) throw new Fail(`${DEMO_JSON} not found: start the server once on an empty database (npm start)`);
  const doc = JSON.parse(readFileSync(DEMO_JSON, 'utf8')) as DemoDoc;
  const fromEnv = process.env.BASE_URL?.startsWith('http') ? process.env.BASE_URL : undefined;
  const base = (fromEnv ?? doc.base_url ?? 'http://127.0.0.1:3000').replace(/\/+$/, '');
  const customer = pick(doc, name);
  const apiKey = name === 'other_provider' ? doc.providers.other.api_key : doc.providers.main.api_key;

  const before = new Set(existsSync(OUTBOX) ? readdirSync(OUTBOX) : []);
  const issued = await post(base, apiKey, '/agent/verify/issue', { customer_id: customer.id, channel: 'email' });
  if (issued.status !== 202) throw new Fail(`verify/issue answered ${issued.status}: ${JSON.stringify(issued.json)}`);
  const code = await codeFromOutbox(customer.email, before);
  const checked = await post(base, apiKey, '/agent/verify/check', { customer_id: customer.id, code });
  if (checked.status !== 200 || typeof checked.json?.verified_session !== 'string') {
    throw new Fail(`verify/check answered ${checked.status}: ${JSON.stringify(checked.json)}`);
  }
  process.stdout.write(`${checked.json.verified_session}\n`);
}

main().catch((err) => {
  process.stderr.write(`demo:verify: ${err instanceof Fail ? err.message : (err as Error).stack}\n`);
  process.exit(1);
});
