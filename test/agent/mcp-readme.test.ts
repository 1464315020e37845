import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { README, renderToolTable, withToolTable } from '../../scripts/mcp-tools.js';
import { buildTestApp, type TestApp } from '../helpers/app.js';

let t: TestApp;
beforeAll(async () => {
  t = await buildTestApp();
});
afterAll(() => t.close());

it('the docs/agents.md tool table is the one the MCP endpoint lists (run `npx tsx scripts/mcp-tools.ts` when it is not)', async () => {
  const readme = readFileSync(README, 'utf8');
  const table = await renderToolTable(t.app);
  expect(table.split('\n').length).toBe(18 + 4);
  expect(withToolTable(readme, table)).toBe(readme);
});
