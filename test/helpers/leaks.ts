import { appendFileSync, mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';

/**
 * Every response of the whole suite is captured (one file per test process) and scanned once at
 * the end of the run: no internal field or secret may appear in any of them. Each run captures
 * into a folder of its own (the global setup names it in the environment the workers inherit), so
 * runs side by side never see or reset each other's captures.
 */
const CAPTURE_ROOT = path.resolve('var/test/responses');
export const RUN_ENV = 'NETSVC_CAPTURE_DIR';
const captureDir = () => process.env[RUN_ENV] ?? path.join(CAPTURE_ROOT, 'adhoc');

export function captureResponses(app: FastifyInstance) {
  const dir = captureDir();
  mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `${process.pid}.ndjson`);
  app.addHook('onSend', async (request, reply, payload) => {
    if (typeof payload === 'string' && (reply.getHeader('content-type') ?? '').toString().includes('json')) {
      appendFileSync(file, `${JSON.stringify({ url: request.url.split('?')[0], status: reply.statusCode, body: payload })}\n`);
    }
    return payload;
  });
}

/** Fields that must never leave the service, on any surface. */
const ANYWHERE = [
  /"(password_hash|key_hash|token_hash|code_hash|request_hash|webhook_secret_hash|webhook_signing_secret|processor_customer_id|card_payment_method_id|payment_intent_id|operator_notes)"/,
  /internal: called twice about router/, // the operator note every test subscriber carries
  /\$argon2id\$/,
  /"stack"\s*:/,
];
/** Fields that stay internal on /agent (decisions.md): MAC, user ids, processor ids. */
const AGENT_ONLY = [/"(mac_address|user_id)"/i, /"(cus|pi|pm|seti)_[A-Za-z0-9]{6,}"/];

/** Global setup: a fresh capture folder for this run, named for the workers. */
export function startCapture() {
  const dir = path.join(CAPTURE_ROOT, `run-${process.pid}-${Date.now()}`);
  mkdirSync(dir, { recursive: true });
  process.env[RUN_ENV] = dir;
}

export function endCapture() {
  rmSync(captureDir(), { recursive: true, force: true });
}

export function scanCapturedResponses(): { scanned: number; leaks: string[] } {
  let scanned = 0;
  const leaks: string[] = [];
  let files: string[];
  try {
    files = readdirSync(captureDir());
  } catch {
    return { scanned, leaks };
  }
  for (const f of files) {
    for (const line of readFileSync(path.join(captureDir(), f), 'utf8').split('\n')) {
      if (!line) continue;
      scanned++;
      const r = JSON.parse(line) as { url: string; status: number; body: string };
      const rules = r.url.startsWith('/agent') ? [...ANYWHERE, ...AGENT_ONLY] : ANYWHERE;
      for (const re of rules) if (re.test(r.body)) leaks.push(`${r.url} (${r.status}) matched ${re}: ${r.body.slice(0, 300)}`);
    }
  }
  return { scanned, leaks };
}
