import { afterAll } from 'vitest';
import { RATE_LIMITS, type RateLimitName } from '../../src/plugins/rate-limit.js';

/**
 * Smaller budgets for this test file's apps (the table is read when routes register), put back
 * after the file: the files of one worker share the module (vitest.config.ts, isolate: false).
 * Call it at the top level of the file, before the apps are built.
 */
export function overrideRateLimits(overrides: Partial<Record<RateLimitName, number>>): void {
  const table = RATE_LIMITS as Record<string, number>;
  const saved = { ...table };
  Object.assign(table, overrides);
  afterAll(() => {
    Object.assign(table, saved);
  });
}
