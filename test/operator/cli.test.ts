import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import type { Command } from 'commander';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildOpsProgram, runOps } from '../../src/cli/ops-program.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { childEnv, useChildDb } from '../foundation/server-helpers.js';

const run = promisify(execFile);
let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(() => t.close());

/** One command line in this process, against the test app's services; its exit code and output. */
async function ops(...argv: string[]) {
  let out = '';
  let err = '';
  const code = await runOps(argv, async () => t.services, { out: (s) => void (out += s), err: (s) => void (err += s) });
  return { code, out, err, json: () => JSON.parse(out) };
}

function leaves(cmd: Command, trail: string[] = []): string[][] {
  const subs = cmd.commands.filter((c) => c.name() !== 'help');
  return subs.length ? subs.flatMap((c) => leaves(c, [...trail, c.name()])) : [trail];
}

describe('the operator CLI, in-process', () => {
  it('every command answers --help (exit 0) and takes --json', async () => {
    const program = buildOpsProgram(async () => t.services, { out: () => undefined, err: () => undefined });
    const all = leaves(program);
    expect(all.length).toBeGreaterThanOrEqual(18);
    for (const path of all) {
      const r = await ops(...path, '--help');
      expect(r.code, path.join(' ')).toBe(0);
      expect(r.out, path.join(' ')).toContain('Usage: ops');
      expect(r.out, path.join(' ')).toContain('--json');
    }
    expect((await ops('provider', '--help')).out).toContain('create');
  });

  it('provider create → key issue → plan create → admin, as JSON for scripts; the rows are there', async () => {
    const p = await ops('provider', 'create', '--name', 'CLI Fibre', '--slug', 'cli-fibre', '--support-email', 'help@cli.test', '--json');
    expect(p.code).toBe(0);
    const created = p.json();
    expect(created).toMatchObject({ provider: { slug: 'cli-fibre', currency: 'EUR' }, checkout_secret: expect.stringMatching(/^whs_/) });
    const k = await ops('key', 'issue', 'cli-fibre', '--name', 'agent', '--scope', 'agent_api_access,serviceability:read', '--json');
    expect(k.json()).toMatchObject({
      name: 'agent',
      features: ['agent_api_access', 'serviceability:read'],
      key: expect.stringMatching(/^sk_/),
    });
    const search = await t.app.inject({ method: 'GET', url: '/agent/customers/search?q=Nobody', headers: { 'x-api-key': k.json().key } });
    expect(search.statusCode).toBe(200);
    const plan = await ops(
      'plan',
      'create',
      'cli-fibre',
      '--name',
      'Fibre 100',
      '--down',
      '100',
      '--up',
      '20',
      '--price',
      '24.90',
      '--json',
    );
    expect(plan.json().versions).toEqual([expect.objectContaining({ monthly_price: '24.90', download_mbps: 100, active: true })]);
    const v2 = await ops('plan', 'version', plan.json().id, '--price', '26.90', '--json');
    expect(v2.json().versions.map((v: { active: boolean }) => v.active)).toEqual([false, true]);
    const admin = await ops('provider', 'admin', 'cli-fibre', '--email', 'owner@cli.test', '--json');
    expect(admin.json()).toMatchObject({ sp_role: 'sp_admin', status: 'invited' });
    const row = await t.db
      .selectFrom('users')
      .select(['sp_role', 'provider_id'])
      .where('email', '=', 'owner@cli.test')
      .executeTakeFirstOrThrow();
    expect(row).toEqual({ sp_role: 'sp_admin', provider_id: created.provider.id });
  });

  it('key rotate prints the new key once and the old key with its expiry; revoke; human output names the key once', async () => {
    await ops('provider', 'create', '--name', 'Rot Fibre', '--slug', 'rot-fibre', '--support-email', 'help@rot.test');
    const k = (await ops('key', 'issue', 'rot-fibre', '--scope', 'agent_api_access', '--json')).json();
    const r = await ops('key', 'rotate', k.id, '--overlap-hours', '6');
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/old {2}.* expiring until 2026-11-16T16:00:00.000Z/);
    expect(r.out.match(/sk_[a-z0-9]{8}_[A-Za-z0-9_-]{32,}/g)).toHaveLength(1);
    const list = await ops('key', 'list', 'rot-fibre', '--json');
    expect(
      list
        .json()
        .map((x: { status: string }) => x.status)
        .sort(),
    ).toEqual(['active', 'expiring']);
    expect((await ops('key', 'revoke', k.id, '--json')).json().status).toBe('revoked');
  });

  it('an operation refused answers exit 1 with one clear line (JSON with --json); a usage error exit 2', async () => {
    const missing = await ops('provider', 'show', 'no-such-provider');
    expect(missing).toMatchObject({ code: 1, out: '', err: 'error: No provider no-such-provider (give its id or slug)\n' });
    const asJson = await ops('provider', 'show', 'no-such-provider', '--json');
    expect(JSON.parse(asJson.err)).toEqual({
      error: { status: 404, code: 'not_found', message: 'No provider no-such-provider (give its id or slug)' },
    });
    const bad = await ops('provider', 'create', '--name', 'X', '--slug', 'x-y', '--support-email', 'nope');
    expect(bad).toMatchObject({ code: 1, err: 'error: support_email: must be a valid email address\n' });
    const usage = await ops('provider', 'create', '--name', 'X');
    expect(usage.code).toBe(2);
    expect(usage.err).toContain("required option '--slug <slug>' not specified");
    expect((await ops('plan', 'create', 'x', '--name', 'n', '--down', 'fast', '--up', '1', '--price', '1')).code).toBe(2);
    expect((await ops('nonsense')).code).toBe(2);
  });
});

describe('the operator CLI as a process (npm run ops)', () => {
  // A migrated empty database (the run's template): creating one from nothing is the go-live test's.
  const childDb = useChildDb();
  const cli = (...argv: string[]) => cliWithInput(undefined, ...argv);
  const cliWithInput = (input: string | undefined, ...argv: string[]) => {
    const started = run(process.execPath, ['--import', 'tsx', 'scripts/ops.ts', ...argv], {
      env: { ...childEnv({ NODE_ENV: 'development', LOG_LEVEL: 'silent' }), ...childDb().env },
    });
    if (input !== undefined) started.child.stdin!.end(input);
    return started.then(
      (r) => ({ code: 0, ...r }),
      (e: { code: number; stdout: string; stderr: string }) => ({ code: e.code, stdout: e.stdout, stderr: e.stderr }),
    );
  };

  it('--help lists the commands and exits 0', async () => {
    const r = await cli('--help');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/provider[\s\S]*key[\s\S]*plan/);
  }, 120_000);

  it('provider create --json prints a JSON document; a refused command exits 1 with its reason on stderr', async () => {
    const r = await cli(
      'provider',
      'create',
      '--name',
      'Proc Fibre',
      '--slug',
      'proc-fibre',
      '--support-email',
      'help@proc.test',
      '--json',
    );
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ provider: { slug: 'proc-fibre' }, checkout_secret: expect.stringMatching(/^whs_/) });
    const again = await cli('provider', 'create', '--name', 'Proc Fibre', '--slug', 'proc-fibre', '--support-email', 'help@proc.test');
    expect(again).toMatchObject({ code: 1, stdout: '', stderr: 'error: slug: a provider proc-fibre exists already\n' });
  }, 180_000);

  it('provider sms set --auth-token - reads the token from the piped stdin and never prints it', async () => {
    const token = 'Tk9f3b2c7d1e4a6f8b0c2d4e6f8a0b1c2';
    const r = await cliWithInput(
      `${token}\n`,
      'provider',
      'sms',
      'set',
      'proc-fibre',
      '--account-sid',
      `AC${'0a'.repeat(16)}`,
      '--from',
      '+4930123456',
      '--auth-token',
      '-',
      '--json',
    );
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).sms).toMatchObject({ enabled: true, gateway: 'twilio', from: '+4930123456' });
    expect(r.stdout + r.stderr).not.toContain(token);
  }, 120_000);
});
