import { randomBytes } from 'node:crypto';
import { spawn, type ChildProcess } from 'node:child_process';
import { SERVER_NODE_FLAGS } from '../../src/runtime.js';
import { createServer } from 'node:net';

// Below Linux's ephemeral range (32768-60999): a port the OS hands out for listen(0) is also one it
// hands out as the local end of an outgoing connection (a pool's connection to PostgreSQL), so a
// port probed there and given to a child that binds seconds later can be taken meanwhile (CI once
// failed on EADDRINUSE that way). Random, so two test files probing at once rarely meet.
const FIRST = 20_000;
const LAST = 32_000;

/** A port free on 127.0.0.1 now, outside the range outgoing connections take theirs from. */
export async function freePort(): Promise<number> {
  for (;;) {
    const port = FIRST + Math.floor(Math.random() * (LAST - FIRST));
    if (await bindable(port)) return port;
  }
}

function bindable(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = createServer();
    s.once('error', () => resolve(false));
    s.listen(port, '127.0.0.1', () => s.close(() => resolve(true)));
  });
}

export interface ServerProcess {
  url: string;
  proc: ChildProcess;
  output: () => string;
  /** SIGTERM and wait for exit; returns the exit code. */
  stop(): Promise<number | null>;
  /** SIGKILL: the process dies mid-work, as in a crash. */
  kill(): Promise<void>;
}

// Random per test file, and shared by the servers it starts: one deployment, one key.
const SHARED_JWT_SECRET = randomBytes(32).toString('base64url');

/** Starts `src/server.ts` as a real process (its own pool, worker and rate-limit store). */
export async function startServerProcess(env: Record<string, string>): Promise<ServerProcess> {
  const port = await freePort();
  let out = '';
  const proc = spawn(process.execPath, [...SERVER_NODE_FLAGS, '--import', 'tsx', 'src/server.ts'], {
    env: {
      ...process.env,
      NODE_ENV: 'test',
      HOST: '127.0.0.1',
      PORT: String(port),
      LOG_LEVEL: 'info',
      JWT_SECRET: SHARED_JWT_SECRET,
      DEMO_SEED: 'false',
      SCHEDULER_ENABLED: 'false',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  proc.stdout.on('data', (d) => (out += d));
  proc.stderr.on('data', (d) => (out += d));
  const exited = new Promise<number | null>((r) => proc.once('exit', (code) => r(code)));
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; ; i++) {
    if (proc.exitCode !== null) throw new Error(`server exited early:\n${out}`);
    try {
      if ((await fetch(`${url}/openapi.json`)).ok) break;
    } catch {
      /* not up yet */
    }
    if (i > 300) throw new Error(`server did not start:\n${out}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    url,
    proc,
    output: () => out,
    async stop() {
      proc.kill('SIGTERM');
      return exited;
    },
    async kill() {
      proc.kill('SIGKILL');
      await exited;
    },
  };
}
