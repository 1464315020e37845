// The operator CLI's commands (scripts/ops.ts runs them; tests call runOps in-process). Each command
// calls one operator service, the same one the /api/v1/admin routes call, so both refuse the same
// input with the same words. Services are opened on first use: --help touches no database.
import { Command } from 'commander';
import { registerImportCommand } from './ops-import.js';
import { registerCatalogueCommands } from './ops-catalogue.js';
import type { OpsServices } from './ops-services.js';
import { reportFailure, type OpsIo } from './ops-io.js';
import { registerProviderCommands } from './ops-providers.js';
import { registerInstallCommands } from './ops-install.js';

export function buildOpsProgram(open: () => Promise<OpsServices>, io: OpsIo, isTty = () => Boolean(process.stderr.isTTY)): Command {
  const program = new Command('ops')
    .description(
      'The operator CLI: providers (with their card processor and SMS gateway), API keys, plans, the provider admin, inventory imports and install shipments, on DATABASE_URL (or the embedded database). ' +
        'Every command takes --help and --json. Details: docs/operations.md',
    )
    .usage('<command> [options]   (npm run ops -- <command>, or node dist/scripts/ops.js <command>)')
    .exitOverride()
    .configureOutput({ writeOut: io.out, writeErr: io.err })
    .showHelpAfterError('(add --help for usage)');
  registerProviderCommands(program, open, io);
  registerCatalogueCommands(program, open, io);
  registerImportCommand(program, open, io, isTty);
  registerInstallCommands(program, open, io);
  return program;
}

/** Runs one command line (without the node and script arguments); resolves to the exit code. */
export async function runOps(argv: string[], open: () => Promise<OpsServices>, io: OpsIo): Promise<number> {
  const program = buildOpsProgram(open, io);
  if (argv.length === 0) {
    io.out(program.helpInformation());
    return 0;
  }
  try {
    await program.parseAsync(argv, { from: 'user' });
    return 0;
  } catch (err) {
    return reportFailure(err, io, argv.includes('--json'));
  }
}
