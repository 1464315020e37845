import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort } from '../helpers/processes.js';
import { childEnv, collect, useChildDb, waitForOutput } from './server-helpers.js';

// `npm start` exactly as a person or a container runs it, signalled through npm's own pid: the
// server behind it must drain and exit, leaving no process and no bound port behind.
const childDb = useChildDb();
const outbox = mkdtempSync(path.join(tmpdir(), 'netsvc-signals-outbox-'));
afterAll(() => rmSync(outbox, { recursive: true, force: true }));

/** Every process below `pid` (from /proc: Linux, as CI and the container). */
function descendants(pid: number): number[] {
  const parentOf = new Map<number, number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      // "pid (comm) state ppid ...": comm may hold spaces, so read after its closing parenthesis.
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      parentOf.set(Number(entry), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    } catch {
      /* gone meanwhile */
    }
  }
  const found: number[] = [];
  const walk = (p: number) => {
    for (const [child, parent] of parentOf) {
      if (parent === p) {
        found.push(child);
        walk(child);
      }
    }
  };
  walk(pid);
  return found;
}

/** The command line of a live process, or null once it is gone (a zombie counts as gone). */
function running(pid: number): string | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    if (stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z')) return null;
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ').trim();
  } catch {
    return null;
  }
}

/**
 * The processes of `pids` still running, once none is or after a generous guard. A helper of the
 * server's (tsx's esbuild service) ends on its own when its parent's pipe closes, a moment after.
 */
async function leftRunning(pids: number[]): Promise<string[]> {
  const left = () => pids.map(running).filter((c): c is string => c !== null);
  for (let i = 0; i < 300 && left().length > 0; i++) await new Promise((r) => setTimeout(r, 100));
  return left();
}

function portFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = createServer();
    s.once('error', () => resolve(false));
    s.listen(port, '127.0.0.1', () => s.close(() => resolve(true)));
  });
}

describe('npm start and signals', () => {
  it.each(['SIGTERM', 'SIGINT'] as const)(
    '%s to the npm process stops the server gracefully: exit 0, port free, no orphan',
    { timeout: 600_000 },
    async (signal) => {
      const port = await freePort();
      const npm = spawn('npm', ['start'], {
        cwd: path.resolve('.'),
        env: childEnv({
          ...childDb().env,
          PORT: String(port),
          HOST: '127.0.0.1',
          NODE_ENV: 'development',
          DEMO_SEED: 'false',
          MAIL_OUTBOX_DIR: outbox,
          LOG_LEVEL: 'info',
          npm_config_update_notifier: 'false',
        }),
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      const p = collect(npm);
      try {
        // A generous guard: npm, tsx and the migrations on a machine the whole suite shares.
        await waitForOutput(p, /ready at http:\/\//, 300_000);
        const below = descendants(npm.pid!);
        // npm runs the script through a shell that `exec`s node: the server is npm's only child.
        expect(below.length).toBeGreaterThan(0);
        expect((await fetch(`http://127.0.0.1:${port}/openapi.json`)).status).toBe(200);

        npm.kill(signal);
        const r = await p.done;
        expect({ code: r.code, signal: r.signal }).toEqual({ code: 0, signal: null });
        expect(r.stdout).toMatch(new RegExp(`"signal":"${signal}".*"msg":"shutting down"`));
        expect(await leftRunning(below)).toEqual([]);
        expect(await portFree(port)).toBe(true);
      } finally {
        for (const pid of descendants(npm.pid!)) process.kill(pid, 'SIGKILL');
        npm.kill('SIGKILL');
      }
    },
  );
});
