import { execFile, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { SERVER_NODE_FLAGS } from '../../src/runtime.js';
import { childEnv, collect, useChildDb, waitForOutput } from './server-helpers.js';

// `npm run build` and the compiled server, as the container runs it: `node dist/scripts/start.js`,
// no tsx. It builds dist/ itself (tsc, a minute or two on a busy machine).
const childDb = useChildDb();
const canBuild = existsSync('node_modules/typescript/bin/tsc');
if (!canBuild) process.stderr.write('\n### SKIPPED: npm run build and the built server (typescript is not installed: a production-only install) ###\n\n');

describe.skipIf(!canBuild)('npm run build and node dist/scripts/start.js', () => {
  it('builds, starts on a fresh database, serves both OpenAPI documents, stops with exit 0 on SIGTERM', { timeout: 900_000 }, async () => {
    await promisify(execFile)('npm', ['run', 'build'], { env: { ...process.env, npm_config_update_notifier: 'false' }, maxBuffer: 16 * 1024 * 1024 });
    expect(existsSync('dist/scripts/start.js')).toBe(true);
    expect(existsSync('dist/src/server.js')).toBe(true);

    const child = spawn(process.execPath, [...SERVER_NODE_FLAGS, path.resolve('dist/scripts/start.js')], {
      cwd: childDb().dir,
      env: childEnv({ ...childDb().env, PORT: '0', HOST: '127.0.0.1', NODE_ENV: 'development', DEMO_SEED: 'false', LOG_LEVEL: 'info' }),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const p = collect(child);
    try {
      const [, url] = await waitForOutput(p, /ready at (http:\/\/\S+)/, 300_000);
      for (const doc of ['/openapi.json', '/agent/openapi.json']) {
        const r = await fetch(`${url}${doc}`);
        expect(r.status, doc).toBe(200);
        expect(((await r.json()) as { openapi: string }).openapi).toBe('3.1.0');
      }
      expect((await fetch(`${url}/readyz`)).status).toBe(200);
      child.kill('SIGTERM');
      const r = await p.done;
      expect({ code: r.code, signal: r.signal }).toEqual({ code: 0, signal: null });
      expect(r.stdout).toMatch(/"signal":"SIGTERM".*"msg":"shutting down"/);
    } finally {
      child.kill('SIGKILL');
    }
  });
});
