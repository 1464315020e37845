import { describe, expect, it } from 'vitest';
import { productionEnv } from '../helpers/production.js';
import { runScript, useChildDb, waitForOutput } from '../foundation/server-helpers.js';

// `npm start` on a database without the demo: no placeholder key, one line on how to onboard.
const childDb = useChildDb();

async function startAndStop(env: Record<string, string>) {
  const p = runScript('scripts/start.ts', [], childDb().dir, { ...childDb().env, PORT: '0', HOST: '127.0.0.1', ...env });
  try {
    await waitForOutput(p, /ready at \S+[\s\S]*\n\n/, 120_000);
    return p.out.stdout;
  } finally {
    p.child.kill('SIGTERM');
    await p.done;
  }
}

const ONBOARD = '  No provider yet: npm run ops -- provider create --help   (docs/go-live.md)\n';

describe('npm start without the demo', () => {
  it.skipIf(!process.env.DATABASE_URL)(
    'on an empty production database: says how to onboard the first provider, prints no key',
    async () => {
      const { DATABASE_URL: _, ...env } = productionEnv();
      const out = await startAndStop({ ...env, LOG_LEVEL: 'silent' });
      expect(out).toContain(ONBOARD);
      expect(out).toContain('NODE_ENV=production: the demo dataset is never loaded');
      expect(out).not.toMatch(/API key|<your|sk_/);
    },
  );

  it('with DEMO_SEED=false on an empty database: the same line; once a provider exists, where to list them instead', async () => {
    const out = await startAndStop({ NODE_ENV: 'development', DEMO_SEED: 'false', LOG_LEVEL: 'silent' });
    expect(out).toContain(ONBOARD);
    expect(out).not.toMatch(/API key|<your|sk_/);
    const created = await runScript(
      'scripts/ops.ts',
      ['provider', 'create', '--name', 'First', '--slug', 'first', '--support-email', 'a@first.test'],
      childDb().dir,
      {
        ...childDb().env,
        NODE_ENV: 'development',
      },
    ).done;
    expect(created.code, created.stderr).toBe(0);
    const again = await startAndStop({ NODE_ENV: 'development', DEMO_SEED: 'false', LOG_LEVEL: 'silent' });
    expect(again).not.toContain('No provider yet');
    expect(again).toContain('  Providers and keys    npm run ops -- provider list   (docs/operations.md)\n');
  });
});
