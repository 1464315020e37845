// `npm run test:fast`: the tier of pure rules (quote arithmetic, search folding, configuration,
// guards, layering, documents) that opens no database and builds no app, runnable alone in seconds.
// A test file belongs to it when it imports none of the helpers that build an app or a database;
// test/fast-setup.ts makes any database a test would open anyway fail loudly, so a file that slips
// in by an indirect import shows up as a failure rather than a slow test.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { defineConfig } from 'vitest/config';

const NEEDS_DATABASE =
  /from '[^']*(\/helpers\.js|\/fixtures\.js|helpers\/(app|db|factories|embedded-pool|processes|smtp-sink|webhook-receiver|template)\.js|server-helpers\.js|src\/db\/[^']*)'/;

function fastTests(dir = 'test'): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) return fastTests(p);
    return e.name.endsWith('.test.ts') && !NEEDS_DATABASE.test(readFileSync(p, 'utf8')) ? [p] : [];
  });
}

export default defineConfig({
  test: {
    include: fastTests(),
    setupFiles: ['test/fast-setup.ts'],
    pool: 'threads',
    maxWorkers: 2,
  },
});
