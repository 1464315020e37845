import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/global-setup.ts'],
    pool: 'forks',
    maxWorkers: 2,
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Each file gets its own database (and app); files in one worker run one after another and share
    // the loaded modules, which halves the suite's time (each file no longer imports the server anew).
    // So a test file must not leave module state changed (restore what it sets), and a file that
    // mocks a module loads the server after vi.resetModules() (test/foundation/login-lockout.test.ts).
    isolate: false,
  },
});
