import { execFile, spawn } from 'node:child_process';
import { builtinModules } from 'node:module';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { SERVER_NODE_FLAGS } from '../../src/runtime.js';
import { childEnv, collect, useChildDb, waitForOutput } from './server-helpers.js';

// `npm run build` and the compiled server, as the container runs it: `node dist/scripts/start.js`,
// no tsx. It builds dist/ itself (tsc, a minute or two on a busy machine).
const childDb = useChildDb();
const canBuild = existsSync('node_modules/typescript/bin/tsc');
if (!canBuild)
  process.stderr.write(
    '\n### SKIPPED: npm run build and the built server (typescript is not installed: a production-only install) ###\n\n',
  );

describe.skipIf(!canBuild)('npm run build and node dist/scripts/start.js', () => {
  it('builds, starts on a fresh database, serves both OpenAPI documents, stops with exit 0 on SIGTERM', { timeout: 900_000 }, async () => {
    await promisify(execFile)('npm', ['run', 'build'], {
      env: { ...process.env, npm_config_update_notifier: 'false' },
      maxBuffer: 16 * 1024 * 1024,
    });
    expect(existsSync('dist/scripts/start.js')).toBe(true);
    expect(existsSync('dist/src/server.js')).toBe(true);
    // The image installs production dependencies only: everything the compiled code imports must be one.
    const pkg = JSON.parse(readFileSync('package.json', 'utf8')) as { dependencies: Record<string, string> };
    const imported = new Set<string>();
    for (const f of readdirSync('dist', { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.js'))) {
      for (const m of readFileSync(path.join('dist', f), 'utf8').matchAll(
        /^\s*(?:import|export)\b[^'"]*?\bfrom\s*'([^'.][^']*)'|\bimport\(\s*'([^'.][^']*)'\s*\)/gm,
      )) {
        const spec = (m[1] ?? m[2])!;
        imported.add(spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0]!);
      }
    }
    const builtin = (s: string) => s.startsWith('node:') || builtinModules.includes(s);
    expect(imported.size).toBeGreaterThan(10);
    expect([...imported].filter((s) => !builtin(s) && !(s in pkg.dependencies))).toEqual([]);

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
