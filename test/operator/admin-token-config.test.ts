import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { productionEnv } from '../helpers/production.js';

describe('ADMIN_TOKEN', () => {
  it('production refuses a weak ADMIN_TOKEN with one line naming the setting', () => {
    expect(() => loadConfig(productionEnv({ ADMIN_TOKEN: 'a'.repeat(40) }))).toThrow(/ADMIN_TOKEN: too weak when NODE_ENV=production/);
  });
  it('production accepts a random one, and no ADMIN_TOKEN at all', () => {
    expect(loadConfig(productionEnv({ ADMIN_TOKEN: 'Q3v9mZ2kLx8pT4wR7nB1cY6hJ0sD5fG2aE9uI3oP7lK' })).ADMIN_TOKEN).toBeDefined();
    expect(loadConfig(productionEnv()).ADMIN_TOKEN).toBeUndefined();
  });
  it('a token shorter than 32 characters is refused everywhere', () => {
    expect(() => loadConfig({ ADMIN_TOKEN: 'short-token' })).toThrow(/ADMIN_TOKEN: must be at least 32 characters/);
  });
});
