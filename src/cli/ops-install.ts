// `install ship <subscription_id> --carrier … --tracking …`: the SHIPPED step of an install job, as the
// platform operator (any provider; POST /provisioning/ship-install is the staff route). The shipping
// service mails the subscriber the tracking reference (queued; the running server sends it) and records
// an audit entry with the actor `system` / `ops-cli`.
import type { Command } from 'commander';
import type { OpsServices } from './ops-services.js';
import { jsonOption, printer, type JsonOpts, type OpsIo } from './ops-io.js';

/** Who the audit trail names for a change made with the operator CLI. */
const OPS_CLI_ACTOR = { actorType: 'system', actor: 'ops-cli' } as const;

export function registerInstallCommands(program: Command, open: () => Promise<OpsServices>, io: OpsIo) {
  const print = printer(io);
  const install = program.command('install').description('install jobs: mark the equipment shipped');

  jsonOption(
    install
      .command('ship')
      .description(
        'mark the install equipment of a PENDING_INSTALL subscription shipped (install job CREATED or BOOKED) and mail the subscriber ' +
          'the tracking reference; the same carrier and reference again is a replay (no second mail)',
      )
      .argument('<subscription_id>', 'the subscription (any provider)')
      .requiredOption('--carrier <carrier>', 'the carrier, e.g. DHL (at most 100 characters)')
      .requiredOption('--tracking <reference>', "the carrier's tracking reference, mailed as given (at most 100 characters)"),
  ).action(async (subscriptionId: string, o: JsonOpts & { carrier: string; tracking: string }) =>
    print(
      o,
      async () =>
        (await open()).shipping.ship({
          subscriptionId,
          carrier: o.carrier,
          trackingReference: o.tracking,
          providerId: null,
          actor: OPS_CLI_ACTOR,
        }),
      (r) => [
        `install job ${r.install_job_id} of subscription ${r.subscription_id}: SHIPPED (${r.kind})`,
        `  carrier            ${r.carrier}`,
        `  tracking           ${r.tracking_reference}`,
        `  shipped at         ${r.shipped_at}`,
        r.mailed
          ? '  the subscriber is mailed the tracking reference (sent by the running server)'
          : '  already shipped with this carrier and reference: nothing changed, no second mail',
        'next: the installation is confirmed with POST /provisioning/confirm-install',
      ],
    ),
  );
}
