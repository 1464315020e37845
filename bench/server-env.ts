import { randomBytes } from 'node:crypto';

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
