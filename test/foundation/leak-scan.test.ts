import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { RUN_ENV, scanCapturedResponses } from '../helpers/leaks.js';

const saved = process.env[RUN_ENV];
afterEach(() => {
  process.env[RUN_ENV] = saved;
});

function scan(lines: { url: string; body: unknown }[]) {
  const dir = mkdtempSync(path.join(tmpdir(), 'capture-'));
  writeFileSync(
    path.join(dir, '1.ndjson'),
    lines.map((l) => JSON.stringify({ url: l.url, status: 200, body: JSON.stringify(l.body) })).join('\n'),
  );
  process.env[RUN_ENV] = dir;
  return scanCapturedResponses();
}

describe('the suite-wide leak scan', () => {
  it('flags secrets and internal fields anywhere, and MAC/user ids/processor ids on /agent', () => {
    const r = scan([
      { url: '/subscriber/me', body: { password_hash: 'x' } },
      { url: '/agent/customers/1', body: { user_id: 'u' } },
      { url: '/agent/customers/1/payments', body: { reference: 'pi_3Nabcdefgh' } },
      { url: '/provisioning/jobs/1', body: { error: 'boom', stack: 'at x' } },
    ]);
    expect(r.scanned).toBe(4);
    expect(r.leaks).toHaveLength(4);
  });

  it('lets public fields through, including a MAC on the partner surface where the document lists it', () => {
    const r = scan([
      { url: '/agent/customers/search', body: { matches: [{ customer_id: 'c', name_masked: 'A. B.' }] } },
      { url: '/external-checkout/sessions/1', body: { mac_address: 'AA:BB:CC:DD:EE:FF' } },
    ]);
    expect(r).toEqual({ scanned: 2, leaks: [] });
  });
});
