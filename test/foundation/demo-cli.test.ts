import { describe, expect, it } from 'vitest';
import { runScript, useChildDb } from './server-helpers.js';

// `npm run seed:demo` as a user runs it: a child process on a fresh database of its own.
const childDb = useChildDb();

const seed = (args: string[], env: Record<string, string> = {}) =>
  runScript('scripts/seed-demo.ts', args, childDb().dir, { ...childDb().env, ...env }).done;

describe('npm run seed:demo', () => {
  it('refuses NODE_ENV=production with a clear line and exit code 1, printing nothing on stdout', async () => {
    const r = await seed(['--json'], { NODE_ENV: 'production', JWT_SECRET: 'x'.repeat(40) });
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('refusing to load the demo dataset: NODE_ENV=production');
  });

  it('--json prints only the JSON document on stdout; a second run reprints the same document; the summary says it is loaded', async () => {
    const first = await seed(['--json']);
    expect(first.code).toBe(0);
    const doc = JSON.parse(first.stdout);
    expect(doc.providers.main.api_key).toMatch(/^sk_[a-z0-9]{8}_[A-Za-z0-9_-]{32,}$/);
    expect(Object.keys(doc.customers)).toEqual(
      expect.arrayContaining([
        'invoiced',
        'not_invoiced',
        'missing_billing_document',
        'missing_invoice',
        'changed_today',
        'activated',
        'not_activated',
        'suspended',
        'pending_install',
        'ambiguous',
        'other_provider',
      ]),
    );
    expect(first.stderr).toContain('seed:demo: loading into');
    const second = await seed(['--json']);
    expect(second.code).toBe(0);
    expect(second.stdout).toBe(first.stdout);
    const summary = await seed([]);
    expect(summary.code).toBe(0);
    expect(summary.stdout).toContain('Demo dataset already loaded');
    expect(summary.stdout).toContain(doc.providers.main.api_key);
  });
});
