// Helpers for tests that run the project's scripts as child processes (npm start, seed:demo),
// each on a fresh database of its own.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, vi } from 'vitest';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { openEmbedded } from '../../src/db/database.js';
import { createTestDb } from '../helpers/db.js';
import { embeddedTemplateFile } from '../helpers/template.js';

export interface ChildDb {
  /** The working directory of the child (var/ lands here). */
  dir: string;
  env: Record<string, string>;
  cleanup(): Promise<void>;
}

/**
 * A fresh, migrated, empty database for a child process: a clone of the run's template (real
 * Postgres when DATABASE_URL is set), or an embedded folder unpacked from the template.
 */
export async function childDb(): Promise<ChildDb> {
  const dir = mkdtempSync(path.join(tmpdir(), 'netsvc-child-'));
  if (process.env.DATABASE_URL) {
    const db = await createTestDb();
    await db.handle.close();
    return {
      dir,
      // A real database needs a real key (the embedded one generates its own under the child's var/).
      env: { DATABASE_URL: db.url!, JWT_SECRET: randomBytes(32).toString('base64url') },
      async cleanup() {
        await db.drop();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  }
  const dbDir = path.join(dir, 'db');
  const pg = await openEmbedded(dbDir, new Blob([readFileSync(embeddedTemplateFile())]));
  await pg.close();
  return { dir, env: { EMBEDDED_DB_DIR: dbDir }, cleanup: async () => rmSync(dir, { recursive: true, force: true }) };
}

/** The parent's environment without what would point the child at another database or mode. */
export function childEnv(extra: Record<string, string>): Record<string, string> {
  const base = Object.fromEntries(
    Object.entries(process.env).filter(
      ([k, v]) =>
        v !== undefined &&
        !['DATABASE_URL', 'NODE_ENV', 'EMBEDDED_DB_DIR', 'PORT', 'VITEST', 'VITEST_WORKER_ID', 'VITEST_POOL_ID'].includes(k),
    ),
  ) as Record<string, string>;
  return { ...base, LOG_LEVEL: 'silent', ...extra };
}

const require = createRequire(import.meta.url);

// A child must not outlive the test process (a failed wait, a timeout, an interrupted run).
const children = new Set<ReturnType<typeof spawn>>();
process.once('exit', () => {
  for (const c of children) c.kill('SIGKILL');
});

/**
 * Runs a script as `npm start` would (TypeScript through tsx), as ONE process: `node --import tsx`
 * rather than the tsx wrapper, so a signal (even SIGKILL) reaches the server itself and never
 * leaves an orphan behind.
 */
export function runScript(script: string, args: string[], cwd: string, env: Record<string, string>) {
  const tsx = pathToFileURL(require.resolve('tsx')).href;
  const child = spawn(process.execPath, ['--import', tsx, path.resolve(script), ...args], {
    cwd,
    env: childEnv(env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.add(child);
  child.on('close', () => children.delete(child));
  return collect(child);
}

/** Kills whatever child is still running (afterAll). */
export function killChildren() {
  for (const c of children) c.kill('SIGKILL');
}

export function collect(child: ChildProcessWithoutNullStreams | ReturnType<typeof spawn>) {
  const out = { stdout: '', stderr: '' };
  child.stdout!.on('data', (d) => (out.stdout += d));
  child.stderr!.on('data', (d) => (out.stderr += d));
  const done = new Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }>((resolve) =>
    child.on('close', (code, signal) => resolve({ code, signal, ...out })),
  );
  return { child, out, done };
}

/** Resolves with the first match of `re` in the child's stdout, or rejects when the child ends or time runs out. */
export function waitForOutput(p: ReturnType<typeof collect>, re: RegExp, timeoutMs = 60_000): Promise<RegExpMatchArray> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => finish(new Error(`no ${re} within ${timeoutMs} ms; stdout: ${p.out.stdout}\nstderr: ${p.out.stderr}`)),
      timeoutMs,
    );
    const check = () => {
      const m = p.out.stdout.match(re);
      if (m) finish(null, m);
    };
    const onExit = () => setImmediate(() => finish(new Error(`exited before ${re}; stdout: ${p.out.stdout}\nstderr: ${p.out.stderr}`)));
    function finish(err: Error | null, m?: RegExpMatchArray) {
      clearTimeout(timer);
      p.child.stdout!.off('data', check);
      p.child.off('close', onExit);
      if (err) reject(err);
      else resolve(m!);
    }
    p.child.stdout!.on('data', check);
    p.child.on('close', onExit);
    check();
  });
}

/**
 * Per test file: a fresh database for child processes (created before, removed after) and no child
 * left running. Child processes take about 3-7 s each on an idle machine; the timeout leaves room
 * for a busy one.
 */
export function useChildDb(): () => ChildDb {
  vi.setConfig({ testTimeout: 120_000 });
  let db: ChildDb;
  beforeAll(async () => {
    db = await childDb();
  });
  afterAll(async () => {
    killChildren();
    await db?.cleanup();
  });
  return () => db;
}
