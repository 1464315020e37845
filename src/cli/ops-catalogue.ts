import type { Command } from 'commander';
import type { ApiKeySummary } from '../modules/auth/index.js';
import type { PlanView } from '../modules/plans/index.js';
import type { OpsServices } from './ops-services.js';
import { collect, intArg, jsonOption, printer, type JsonOpts, type OpsIo } from './ops-io.js';

const keyLine = (k: ApiKeySummary) =>
  `${k.id}  sk_${k.prefix}_…  ${k.name}  ${k.status}${k.expires_at ? ` until ${k.expires_at}` : ''}  [${k.features.join(', ')}]`;

const planLines = (p: PlanView) => [
  `plan ${p.name} (${p.id})`,
  ...p.versions.map(
    (v) =>
      `  v${v.version} ${v.id}  ${v.name}  ${v.download_mbps}/${v.upload_mbps} Mbit/s  ${v.monthly_price} ${v.currency}/month  ${v.active ? 'on sale' : 'off sale'}`,
  ),
];

/** The plan version options (versionOptions): all given to create, the changed ones to version. */
type VersionOpts = { name?: string; down?: number; up?: number; price?: string; currency?: string; storeProductId?: string };

const SCOPES = 'agent_api_access (the /agent surface), provisioning:write, serviceability:read; comma-separated or repeated';

export function registerCatalogueCommands(program: Command, open: () => Promise<OpsServices>, io: OpsIo) {
  const print = printer(io);
  const key = program.command('key').description('API keys: issue, list, rotate, revoke, scopes');

  jsonOption(
    key
      .command('issue')
      .description('issue an API key with its scopes; prints the key once (only its SHA-256 is stored)')
      .argument('<provider>', 'id or slug')
      .option('--name <name>', 'what the key is for (e.g. support-agent)', 'default')
      .option('--scope <scope>', SCOPES, collect, []),
  ).action(async (ref: string, o: JsonOpts & { name: string; scope: string[] }) =>
    print(
      o,
      async () => {
        const s = await open();
        return s.apiKeys.issue((await s.providerAdmin.resolve(ref)).id, { name: o.name, features: o.scope });
      },
      (k) => [keyLine(k), `API key (X-API-Key)  ${k.key}  (shown once: store it now)`],
    ),
  );

  jsonOption(
    key.command('list').description("a provider's keys and their status (never the key)").argument('<provider>', 'id or slug'),
  ).action(async (ref: string, o: JsonOpts) =>
    print(
      o,
      async () => {
        const s = await open();
        return s.apiKeys.list((await s.providerAdmin.resolve(ref)).id);
      },
      (ks) => (ks.length ? ks.map(keyLine) : ['no API key']),
    ),
  );

  jsonOption(
    key
      .command('rotate')
      .description('issue a successor with the same name and scopes; the old key keeps working for the overlap window')
      .argument('<key-id>')
      .option('--overlap-hours <hours>', 'how long the old key keeps working (0 to 720)', intArg('--overlap-hours'), 24),
  ).action(async (id: string, o: JsonOpts & { overlapHours: number }) =>
    print(
      o,
      async () => (await open()).apiKeys.rotate(id, { overlapHours: o.overlapHours }),
      (r) => [`old  ${keyLine(r.previous)}`, `new  ${keyLine(r.key)}`, `new API key (X-API-Key)  ${r.key.key}  (shown once: store it now)`],
    ),
  );

  jsonOption(key.command('revoke').description('refuse the key from now on (within 10 s in a running server)').argument('<key-id>')).action(
    async (id: string, o: JsonOpts) =>
      print(
        o,
        async () => (await open()).apiKeys.revoke(id),
        (k) => [keyLine(k)],
      ),
  );

  jsonOption(
    key.command('scopes').description("replace the key's scopes").argument('<key-id>').option('--scope <scope>', SCOPES, collect, []),
  ).action(async (id: string, o: JsonOpts & { scope: string[] }) =>
    print(
      o,
      async () => (await open()).apiKeys.setFeatures(id, o.scope),
      (k) => [keyLine(k)],
    ),
  );

  const plan = program.command('plan').description('plans and plan versions: create, list, version, retire, offer');
  const versionOptions = (c: Command, required: boolean) => {
    const add = (flags: string, text: string, parse?: (v: string) => unknown) =>
      required ? c.requiredOption(flags, text, parse as never) : c.option(flags, text, parse as never);
    add('--name <name>', 'the plan name subscribers see');
    add('--down <mbps>', 'download speed in Mbit/s', intArg('--down'));
    add('--up <mbps>', 'upload speed in Mbit/s', intArg('--up'));
    add('--price <amount>', 'monthly price incl. VAT, e.g. 29.90');
    c.option('--currency <code>', "ISO 4217 code (default: the provider's, or the latest version's)");
    c.option('--store-product-id <id>', "the billing system's product id");
    return c;
  };
  const versionInput = (o: VersionOpts) => ({
    ...(o.name !== undefined ? { name: o.name } : {}),
    ...(o.down !== undefined ? { download_mbps: o.down } : {}),
    ...(o.up !== undefined ? { upload_mbps: o.up } : {}),
    ...(o.price !== undefined ? { monthly_price: o.price } : {}),
    ...(o.currency !== undefined ? { currency: o.currency } : {}),
    ...(o.storeProductId !== undefined ? { store_product_id: o.storeProductId } : {}),
  });

  jsonOption(
    versionOptions(
      plan.command('create').description('create a plan with its first version, on sale').argument('<provider>', 'id or slug'),
      true,
    ).option('--description <text>'),
  ).action(async (ref: string, o: JsonOpts & VersionOpts & { description?: string }) =>
    print(
      o,
      async () => {
        const s = await open();
        const p = await s.providerAdmin.resolve(ref);
        return s.plans.create(p, { ...versionInput(o), description: o.description } as never);
      },
      planLines,
    ),
  );

  jsonOption(plan.command('list').description("a provider's plans and versions").argument('<provider>', 'id or slug')).action(
    async (ref: string, o: JsonOpts) =>
      print(
        o,
        async () => {
          const s = await open();
          return s.plans.list((await s.providerAdmin.resolve(ref)).id);
        },
        (ps) => (ps.length ? ps.flatMap(planLines) : ['no plan']),
      ),
  );

  jsonOption(
    versionOptions(
      plan
        .command('version')
        .description(
          'a new version from the latest with the given changes, on sale; earlier versions go off sale unless --keep-previous (their subscriptions keep them)',
        )
        .argument('<plan-id>'),
      false,
    ).option('--keep-previous', 'keep the earlier versions on sale'),
  ).action(async (id: string, o: JsonOpts & VersionOpts & { keepPrevious?: boolean }) =>
    print(o, async () => (await open()).plans.addVersion(id, { ...versionInput(o), keep_previous: Boolean(o.keepPrevious) }), planLines),
  );

  for (const [name, active, text] of [
    ['retire', false, 'take a plan version off sale (no new checkouts or plan changes; its subscriptions keep it)'],
    ['offer', true, 'put a plan version on sale again'],
  ] as const) {
    jsonOption(plan.command(name).description(text).argument('<plan-version-id>')).action(async (id: string, o: JsonOpts) =>
      print(o, async () => (await open()).plans.setVersionActive(id, active), planLines),
    );
  }
}
