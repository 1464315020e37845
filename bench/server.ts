// The server process a bench loads: started from a checkout's src/server.ts, and waited for.
import { spawn, type ChildProcess, type StdioOptions } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { SERVER_NODE_FLAGS } from '../src/runtime.js';

/**
 * The environment of a server the bench starts, as `npm start` would run it but with the bench routes
 * on, rate limits, the scheduler and the demo off, and a random JWT key of its own.
 */
export function benchServerEnv(port: string, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return {
    ...process.env,
    // Not NODE_ENV=production: production refuses webhook targets on loopback (decisions.md, Safety), and the
    // drain's receiver is on this machine. On the server NODE_ENV only gates start-up checks and that refusal.
    NODE_ENV: 'development',
    PORT: port,
    HOST: '127.0.0.1',
    LOG_LEVEL: 'warn',
    BENCH_ROUTES: 'true',
    RATE_LIMIT_ENABLED: 'false',
    SCHEDULER_ENABLED: 'false',
    DEMO_SEED: 'false',
    JWT_SECRET: randomBytes(32).toString('base64url'),
    DATABASE_POOL_SIZE: process.env.DATABASE_POOL_SIZE ?? '20',
    ...extra,
  };
}

/**
 * Starts `src/server.ts` of `cwd` with `env`. BENCH_SERVER_CPU_PROF=<dir> writes V8 CPU profiles of
 * the server process (NODE_OPTIONS may not carry --cpu-prof).
 */
export function spawnServer(env: NodeJS.ProcessEnv, o: { cwd?: string; stdio?: StdioOptions } = {}): ChildProcess {
  const prof = process.env.BENCH_SERVER_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_SERVER_CPU_PROF}`] : [];
  return spawn(process.execPath, [...SERVER_NODE_FLAGS, ...prof, '--import', 'tsx', 'src/server.ts'], {
    cwd: o.cwd,
    env,
    stdio: o.stdio ?? ['ignore', 'inherit', 'inherit'],
  });
}

/**
 * Waits until `url` answers 2xx, for five minutes at most: a changed function file makes the server's
 * migration rebuild the indexes over it, which takes a minute or more at a million rows.
 */
export async function waitForServer(url: string, server: ChildProcess): Promise<void> {
  for (let i = 0; i < 3000; i++) {
    if (server.exitCode !== null) throw new Error(`the server exited (${server.exitCode}) before ${url} answered`);
    const up = await fetch(url).then(
      (r) => r.ok,
      () => false,
    );
    if (up) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${url} did not answer within five minutes`);
}
