// `provider card ...`, `provider sms ...` and `provider integrations`: a provider's card-processor
// connection and SMS gateway (the integrations service, the same one /api/v1/admin/providers/{provider}/
// card-processor and /sms-gateway call). Nothing here prints a secret: the Twilio auth token goes in,
// sealed, and never comes out. It is read from --auth-token, "-" (stdin) or OPS_SMS_AUTH_TOKEN.
import { createInterface } from 'node:readline';
import type { Command } from 'commander';
import { AppError } from '../lib/errors.js';
import type { IntegrationsSummary } from '../modules/integrations/index.js';
import type { OpsServices } from './ops-services.js';
import { jsonOption, printer, type JsonOpts, type OpsIo } from './ops-io.js';

/** The environment variable `provider sms set` reads the auth token from when --auth-token is not given. */
const SMS_TOKEN_ENV = 'OPS_SMS_AUTH_TOKEN';

const integrationLines = (r: IntegrationsSummary) => {
  const c = r.card_processor;
  const s = r.sms;
  return [
    `provider ${r.provider_id}`,
    `  card processor     ${c.account ?? '(not connected: card endpoints answer 409, invoices go by payment link)'}` +
      (c.account
        ? `  via ${c.processor ?? 'no processor on this server'}${c.usable ? '' : ' (NOT USABLE: this server has no card processor)'}`
        : ''),
    `  SMS                ${s.enabled ? `on, via ${s.gateway ?? 'nothing (codes by SMS answer 503)'}` : 'off (codes by SMS answer 503)'}`,
    ...(s.account_sid
      ? [`  Twilio account     ${s.account_sid}`, `  sender             ${s.from}`, '  auth token         (stored sealed; never shown)']
      : []),
  ];
};

/** The first line of stdin (a terminal is asked for it on stderr; the input is not echoed back by this code). */
async function readStdinLine(io: OpsIo): Promise<string> {
  if (process.stdin.isTTY) io.err('Twilio auth token: ');
  const rl = createInterface({ input: process.stdin, terminal: false });
  try {
    for await (const line of rl) return line;
    return '';
  } finally {
    rl.close();
  }
}

/** The auth token: --auth-token <token>, --auth-token - (first line of stdin), else $OPS_SMS_AUTH_TOKEN. */
async function authTokenOf(given: string | undefined, io: OpsIo): Promise<string> {
  if (given === '-') return (io.stdin ? await io.stdin() : await readStdinLine(io)).split(/\r?\n/)[0]!.trim();
  if (given !== undefined) return given;
  const fromEnv = (io.env ?? process.env)[SMS_TOKEN_ENV];
  if (fromEnv) return fromEnv.trim();
  throw new AppError(422, 'unprocessable', `auth_token: none given; pass --auth-token - (read from stdin) or set ${SMS_TOKEN_ENV}`);
}

export function registerIntegrationCommands(provider: Command, open: () => Promise<OpsServices>, io: OpsIo) {
  const print = printer(io);
  const withProvider = async <T>(ref: string, work: (s: OpsServices, providerId: string) => Promise<T>) => {
    const s = await open();
    return work(s, (await s.providerAdmin.resolve(ref)).id);
  };

  jsonOption(
    provider
      .command('integrations')
      .description("the provider's card-processor connection and SMS gateway (never the auth token)")
      .argument('<provider>', 'id or slug'),
  ).action(async (ref: string, o: JsonOpts) =>
    print(o, () => withProvider(ref, (s, id) => s.integrations.showIntegrations(id)), integrationLines),
  );

  const card = provider.command('card').description("the provider's card-processor connection (a Stripe connected account)");
  jsonOption(
    card
      .command('set')
      .description('connect the Stripe connected account card payments go to')
      .argument('<provider>', 'id or slug')
      .requiredOption('--account <acct>', 'the connected account id, acct_…'),
  ).action(async (ref: string, o: JsonOpts & { account: string }) =>
    print(o, () => withProvider(ref, (s, id) => s.integrations.setCardProcessor(id, { account: o.account })), integrationLines),
  );
  jsonOption(
    card
      .command('clear')
      .description('disconnect: card endpoints answer 409; invoices are collected by payment link only')
      .argument('<provider>', 'id or slug'),
  ).action(async (ref: string, o: JsonOpts) =>
    print(o, () => withProvider(ref, (s, id) => s.integrations.clearCardProcessor(id)), integrationLines),
  );

  const sms = provider.command('sms').description("the provider's SMS gateway (Twilio) for verification codes");
  jsonOption(
    sms
      .command('set')
      .description(
        `store Twilio credentials (the auth token sealed) and turn SMS codes on; the token: --auth-token - reads stdin, else $${SMS_TOKEN_ENV}`,
      )
      .argument('<provider>', 'id or slug')
      .requiredOption('--account-sid <sid>', 'the Twilio account SID, AC…')
      .requiredOption('--from <sender>', 'an E.164 number (+4930123456) or a Messaging Service SID (MG…)')
      .option(
        '--auth-token <token>',
        `"-" reads it from stdin (preferred); a literal token stays in the shell history; left out: $${SMS_TOKEN_ENV}`,
      ),
  ).action(async (ref: string, o: JsonOpts & { accountSid: string; from: string; authToken?: string }) => {
    const authToken = await authTokenOf(o.authToken, io);
    await print(
      o,
      () => withProvider(ref, (s, id) => s.integrations.setSmsGateway(id, { accountSid: o.accountSid, authToken, from: o.from })),
      integrationLines,
    );
  });
  jsonOption(
    sms
      .command('clear')
      .description('forget the credentials and turn SMS codes off (they answer 503 again)')
      .argument('<provider>', 'id or slug'),
  ).action(async (ref: string, o: JsonOpts) =>
    print(o, () => withProvider(ref, (s, id) => s.integrations.clearSmsGateway(id)), integrationLines),
  );
}
