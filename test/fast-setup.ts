// The fast tier (vitest.fast.config.ts) opens no database: a test that tries is in the wrong tier.
import { vi } from 'vitest';

vi.mock('../src/db/database.js', async (original) => ({
  ...(await original<typeof import('../src/db/database.js')>()),
  createDb: () => {
    throw new Error('the fast tier opens no database: this test belongs to npm test (vitest.config.ts)');
  },
  openEmbedded: () => {
    throw new Error('the fast tier opens no database: this test belongs to npm test (vitest.config.ts)');
  },
}));
