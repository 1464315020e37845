// `npm run openapi`: writes openapi/agent.json and openapi/partner.json from the route table, and the
// adapter contracts openapi/adapters/{switch,billing}.json from src/adapters/contracts.
// The app is built on an in-memory embedded database and never listens. The files are committed;
// test/foundation/openapi.test.ts fails when they differ from a fresh export.
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { agentSpec, partnerSpec } from '../src/plugins/docs.js';
import { contractDocument } from '../src/adapters/contracts/openapi.js';
import { switchContract } from '../src/adapters/contracts/switch.contract.js';
import { billingContract } from '../src/adapters/contracts/billing.contract.js';

export const OPENAPI_FILES = { agent: 'openapi/agent.json', partner: 'openapi/partner.json' } as const;

/** The contracts this server speaks to the switch controller and the billing system (src/adapters/contracts). */
export const ADAPTER_CONTRACT_FILES = { switch: 'openapi/adapters/switch.json', billing: 'openapi/adapters/billing.json' } as const;

/** Both adapter contracts, as the text the committed files hold. */
export function renderAdapterContracts(): Record<keyof typeof ADAPTER_CONTRACT_FILES, string> {
  return { switch: stableJson(contractDocument(switchContract)), billing: stableJson(contractDocument(billingContract)) };
}

/** A fixed environment, so the export never depends on the machine that runs it. */
export const EXPORT_ENV = {
  NODE_ENV: 'test',
  LOG_LEVEL: 'silent',
  JOBS_ENABLED: 'false',
  SCHEDULER_ENABLED: 'false',
  RATE_LIMIT_ENABLED: 'false',
  PUBLIC_BASE_URL: 'http://localhost:3000',
  // Named in the documents' note on where mails go: the default of a checkout.
  MAIL_OUTBOX_DIR: 'var/outbox',
  EMBEDDED_DB_DIR: 'memory://', // and so a random JWT key of its own
};

/** Pretty JSON with object keys sorted at every depth: the same routes always give the same bytes. */
export function stableJson(value: unknown): string {
  const sort = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(sort);
    if (v && typeof v === 'object') {
      return Object.fromEntries(
        Object.keys(v)
          .sort()
          .map((k) => [k, sort((v as Record<string, unknown>)[k])]),
      );
    }
    return v;
  };
  return `${JSON.stringify(sort(value), null, 2)}\n`;
}

/** Both documents of a ready app, as the text the committed files hold. */
export async function renderSpecs(app: FastifyInstance): Promise<Record<keyof typeof OPENAPI_FILES, string>> {
  await app.ready();
  return { agent: stableJson(agentSpec(app)), partner: stableJson(partnerSpec(app)) };
}

async function main() {
  const app = await buildApp(loadConfig(EXPORT_ENV));
  try {
    const specs = await renderSpecs(app);
    for (const [name, file] of Object.entries(OPENAPI_FILES) as [keyof typeof OPENAPI_FILES, string][]) {
      await mkdir(path.dirname(file), { recursive: true });
      await writeFile(file, specs[name]);
      const paths = Object.keys(JSON.parse(specs[name]).paths).length;
      process.stdout.write(`wrote ${file} (${paths} paths)\n`);
    }
    const contracts = renderAdapterContracts();
    for (const [name, file] of Object.entries(ADAPTER_CONTRACT_FILES) as [keyof typeof ADAPTER_CONTRACT_FILES, string][]) {
      await mkdir(path.dirname(file), { recursive: true });
      await writeFile(file, contracts[name]);
      process.stdout.write(`wrote ${file} (${Object.keys(JSON.parse(contracts[name]).paths).length} paths)\n`);
    }
  } finally {
    await app.close();
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) await main();
