import type { Command } from 'commander';
import type { ProviderView } from '../modules/providers/index.js';
import type { OpsServices } from './ops-services.js';
import { jsonOption, printer, type JsonOpts, type OpsIo } from './ops-io.js';
import { registerIntegrationCommands } from './ops-integrations.js';

const providerLines = (p: ProviderView) => [
  `provider ${p.name} (${p.slug})${p.disabled ? ' DISABLED' : ''}`,
  `  id                 ${p.id}`,
  `  currency           ${p.currency}`,
  `  support email      ${p.support_email}`,
  `  checkout URL       ${p.external_checkout_url ?? '(none: checkout sessions answer 503)'}`,
  `  webhook URL        ${p.webhook_url ?? '(none: webhooks wait in the outbox)'}`,
  `  checkout secret    whs_${p.checkout_secret_prefix ?? '(none)'}_…`,
  `  SMS                ${p.sms_configured ? 'configured' : 'not configured'}`,
  `  card processor     ${p.card_processor_connected ? 'connected' : 'not connected'}`,
];

const ONCE = '(shown once: store it now; only its hash is kept)';

export function registerProviderCommands(program: Command, open: () => Promise<OpsServices>, io: OpsIo) {
  const print = printer(io);
  const provider = program
    .command('provider')
    .description('providers: create, list, show, disable, enable, settings, admin, card processor, SMS gateway');

  jsonOption(
    provider
      .command('create')
      .description('create a provider; prints its checkout secret and webhook signing secret once')
      .requiredOption('--name <name>', 'the name subscribers see (mails, pages)')
      .requiredOption('--slug <slug>', 'a short unique handle, lower-case letters, digits and dashes (e.g. glasfaser-nord)')
      .requiredOption('--support-email <email>', 'the reply address of its mails')
      .option('--currency <code>', 'ISO 4217 code of its prices', 'EUR')
      .option('--checkout-url <url>', 'the hosted checkout page checkout sessions point to'),
  ).action(async (o: JsonOpts & { name: string; slug: string; supportEmail: string; currency: string; checkoutUrl?: string }) =>
    print(
      o,
      async () =>
        (await open()).providerAdmin.create({
          name: o.name,
          slug: o.slug,
          support_email: o.supportEmail,
          currency: o.currency,
          external_checkout_url: o.checkoutUrl,
        }),
      (r) => [
        ...providerLines(r.provider),
        `checkout secret (X-Webhook-Secret)  ${r.checkout_secret}  ${ONCE}`,
        `webhook signing secret              ${r.signing_secret}  (shown once)`,
        `next: npm run ops -- key issue ${r.provider.slug} --scope agent_api_access,provisioning:write,serviceability:read`,
      ],
    ),
  );

  jsonOption(provider.command('list').description('every provider')).action(async (o: JsonOpts) =>
    print(
      o,
      async () => (await open()).providerAdmin.list(),
      (r) => (r.length ? r.map((p) => `${p.id}  ${p.slug}  ${p.name}${p.disabled ? '  DISABLED' : ''}`) : ['no provider yet']),
    ),
  );

  jsonOption(provider.command('show').description("a provider's settings (never a secret)").argument('<provider>', 'id or slug')).action(
    async (ref: string, o: JsonOpts) => print(o, async () => (await open()).providerAdmin.show(ref), providerLines),
  );

  for (const [name, disabled, text] of [
    ['disable', true, "refuse the provider's API keys, checkout secret and staff logins (its data stays)"],
    ['enable', false, 'accept them again'],
  ] as const) {
    jsonOption(provider.command(name).description(text).argument('<provider>', 'id or slug')).action(async (ref: string, o: JsonOpts) =>
      print(o, async () => (await open()).providerAdmin.setDisabled(ref, disabled), providerLines),
    );
  }

  jsonOption(
    provider
      .command('set')
      .description("change a provider's name, support email or checkout URL")
      .argument('<provider>', 'id or slug')
      .option('--name <name>')
      .option('--support-email <email>')
      .option('--checkout-url <url>', 'the hosted checkout page; "none" removes it'),
  ).action(async (ref: string, o: JsonOpts & { name?: string; supportEmail?: string; checkoutUrl?: string }) =>
    print(
      o,
      async () =>
        (await open()).providerAdmin.updateSettings(ref, {
          ...(o.name !== undefined ? { name: o.name } : {}),
          ...(o.supportEmail !== undefined ? { support_email: o.supportEmail } : {}),
          ...(o.checkoutUrl !== undefined ? { external_checkout_url: o.checkoutUrl === 'none' ? null : o.checkoutUrl } : {}),
        }),
      providerLines,
    ),
  );

  jsonOption(
    provider
      .command('webhook')
      .description('set where webhooks go (https; "none" keeps them in the outbox); --rotate-signing-secret prints a new secret once')
      .argument('<provider>', 'id or slug')
      .requiredOption('--url <url>', 'the receiver URL, or "none"')
      .option('--rotate-signing-secret', 'draw a new signing secret (receivers must switch to it)'),
  ).action(async (ref: string, o: JsonOpts & { url: string; rotateSigningSecret?: boolean }) =>
    print(
      o,
      async () =>
        (await open()).providerAdmin.setWebhook(ref, {
          url: o.url === 'none' ? null : o.url,
          rotate_signing_secret: Boolean(o.rotateSigningSecret),
        }),
      (r) => [
        ...providerLines(r.provider),
        r.signing_secret ? `new webhook signing secret  ${r.signing_secret}  (shown once)` : 'signing secret unchanged',
        `released ${r.released_deliveries} delivery(ies) that waited for a URL`,
      ],
    ),
  );

  jsonOption(
    provider
      .command('checkout-secret')
      .description('rotate the checkout secret (X-Webhook-Secret): prints the new one once; the old one stops at once')
      .argument('<provider>', 'id or slug'),
  ).action(async (ref: string, o: JsonOpts) =>
    print(
      o,
      async () => (await open()).providerAdmin.rotateCheckoutSecret(ref),
      (r) => [`new checkout secret (X-Webhook-Secret)  ${r.checkout_secret}  ${ONCE}`],
    ),
  );

  jsonOption(
    provider
      .command('admin')
      .description("invite the provider's admin (sp_admin): the staff invitation mail, sent by the running server")
      .argument('<provider>', 'id or slug')
      .requiredOption('--email <email>')
      .option('--first-name <name>')
      .option('--last-name <name>'),
  ).action(async (ref: string, o: JsonOpts & { email: string; firstName?: string; lastName?: string }) =>
    print(
      o,
      async () => {
        const s = await open();
        const p = await s.providerAdmin.resolve(ref);
        return s.staff.inviteProviderAdmin(p.id, { email: o.email, first_name: o.firstName, last_name: o.lastName });
      },
      (r) => [
        `invited ${r.email} as sp_admin (${r.id})`,
        'the invitation mail (a 14-day link to choose a password) goes out through SMTP_URL once the server runs',
      ],
    ),
  );

  registerIntegrationCommands(provider, open, io);
  return provider;
}
