// Issue 28 §4: `npm run demo:partner` runs after a plain `npm start` (no webhook URL), after the README
// walkthrough took its ports, and again and again ("the demo port is taken" was the bug): it picks free
// ports, and cancels what it ordered at the end. `provider:webhook` updates var/demo.json too.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { freePort } from '../helpers/processes.js';
import { createProvider } from '../helpers/factories.js';
import { loadDemo, readDemoDocument, type DemoDocument } from '../../src/demo/seed.js';
import { createDb } from '../../src/db/database.js';
import { migrate } from '../../src/db/migrate.js';
import { killChildren, runScript } from './server-helpers.js';

vi.setConfig({ testTimeout: 240_000, hookTimeout: 240_000 });

describe('npm run demo:partner, repeatedly and in any order with the walkthrough', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'netsvc-demo-partner-'));
  let t: TestApp;
  let doc: DemoDocument;
  let receiverPort: number;
  let tick: NodeJS.Timeout;
  beforeAll(async () => {
    const port = await freePort();
    receiverPort = await freePort();
    const base = `http://127.0.0.1:${port}`;
    // The clock follows real time: webhook signatures carry it, and the receiver checks a 5-minute window.
    t = await buildTestApp({
      now: new Date().toISOString(),
      env: { PUBLIC_BASE_URL: base, DEMO_WEBHOOK_URL: `http://127.0.0.1:${receiverPort}/webhooks` },
    });
    tick = setInterval(() => t.clock.set(new Date()), 200);
    doc = { ...(await loadDemo({ db: t.db, clock: t.clock, config: t.config })).document, base_url: base };
    await t.app.listen({ host: '127.0.0.1', port });
    t.deps.jobs.start();
  });
  afterAll(async () => {
    clearInterval(tick);
    killChildren();
    await t?.deps.jobs.stop();
    await t?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const run = async (d: object, name: string) => {
    const file = path.join(dir, name);
    writeFileSync(file, JSON.stringify(d));
    return runScript('scripts/demo-partner.ts', [], dir, {
      BASE_URL: '',
      DEMO_JSON: file,
      DEMO_RECEIVER_PORT: String(receiverPort),
      DEMO_TIMEOUT_MS: '60000',
    }).done;
  };
  const expectOk = (r: Awaited<ReturnType<typeof run>>) => {
    expect(r.code, `${r.stdout}\n${r.stderr}`).toBe(0);
    expect(r.stdout).toContain('Demo complete');
  };

  it('twice in a row with webhooks: both complete, and each frees its ports at the end', async () => {
    const first = await run(doc, 'a.json');
    expectOk(first);
    expect(first.stdout).toContain('webhooks received and verified');
    expect(first.stdout).toContain('cleaned up');
    expectOk(await run(doc, 'b.json'));
  });

  it('after the walkthrough took a spare port, the last spare and the second-line unit: it still completes', async () => {
    const key = { 'x-api-key': doc.providers.main.api_key };
    const person = (who: string) => ({ email: `${who}@example.com`, first_name: 'Walk', last_name: who });
    const direct = await t.app.inject({
      method: 'POST',
      url: '/provisioning/provider-initiated',
      headers: key,
      payload: {
        delivery_mode: 'direct',
        plan_version_id: doc.plans.fast.plan_version_id,
        location_hash: doc.buildings.first_line.spare_location_hashes.at(-1),
        subscriber: person('lea'),
      },
    });
    expect(direct.statusCode).toBe(201);
    const checkout = await t.app.inject({
      method: 'POST',
      url: '/provisioning/provider-initiated',
      headers: key,
      payload: {
        delivery_mode: 'direct',
        plan_version_id: doc.plans.fast.plan_version_id,
        location_hash: doc.buildings.first_line.spare_location_hashes[0],
        subscriber: person('jana'),
      },
    });
    expect(checkout.statusCode).toBe(201);
    const unit = await t.app.inject({
      method: 'POST',
      url: '/provisioning/provider-initiated',
      headers: key,
      payload: {
        delivery_mode: 'home_drop',
        plan_version_id: doc.plans.fast.plan_version_id,
        unit_id: doc.buildings.second_line.free_unit_id,
        subscriber: person('max'),
      },
    });
    expect(unit.statusCode).toBe(201);
    expectOk(await run(doc, 'c.json'));
  });

  it('after a plain npm start (no webhook URL in the document): it completes without the webhook checks and says how to add them', async () => {
    const r = await run({ ...doc, webhook_url: null }, 'd.json');
    expectOk(r);
    expect(r.stdout).toContain('webhooks not checked');
    expect(r.stdout).toContain('provider:webhook');
  });
});

describe('npm run provider:webhook keeps var/demo.json in step', () => {
  it('sets webhook_url of the main provider and, with --rotate-secret, its signing secret; npm start reads the database again', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'netsvc-provider-webhook-'));
    try {
      const dbDir = path.join(dir, 'db');
      const handle = await createDb({ embeddedDir: dbDir });
      await migrate(handle);
      const p = await createProvider(handle.db);
      await handle.close();
      const file = path.join(dir, 'demo.json');
      writeFileSync(file, JSON.stringify({ webhook_url: null, providers: { main: { id: p.id, webhook_signing_secret: 'whsec_old' } } }));
      const r = await runScript(
        'scripts/provider-webhook.ts',
        ['--provider', p.id, '--url', 'http://127.0.0.1:4400/webhooks', '--rotate-secret'],
        dir,
        {
          EMBEDDED_DB_DIR: dbDir,
          DATABASE_URL: '',
          DEMO_JSON: file,
        },
      ).done;
      expect(r.code, r.stderr).toBe(0);
      const after = JSON.parse(readFileSync(file, 'utf8'));
      expect(after.webhook_url).toBe('http://127.0.0.1:4400/webhooks');
      const secret = /new signing secret[^:]*: (\S+)/.exec(r.stdout)![1];
      expect(after.providers.main.webhook_signing_secret).toBe(secret);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

// readDemoDocument overlays the providers' current endpoint (what npm start writes to var/demo.json).
describe('the document npm start writes', () => {
  it('names the webhook URL the database has now, not the seed-time one', async () => {
    const t = await buildTestApp();
    try {
      const loaded = (await loadDemo({ db: t.db, clock: t.clock, config: t.config })).document;
      await t.db
        .updateTable('providers')
        .set({ webhook_url: 'http://127.0.0.1:4999/hooks' })
        .where('id', '=', loaded.providers.main.id)
        .execute();
      expect((await readDemoDocument(t.db))!.webhook_url).toBe('http://127.0.0.1:4999/hooks');
    } finally {
      await t.close();
    }
  });
});
