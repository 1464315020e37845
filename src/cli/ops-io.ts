import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import { AppError } from '../lib/errors.js';

/** Where the CLI writes: the process's stdout and stderr, or a test's buffers. */
export interface OpsIo {
  out: (text: string) => void;
  err: (text: string) => void;
  /** Tests: what stdin holds (`provider sms set --auth-token -`); else the process's stdin. */
  stdin?: () => Promise<string>;
  /** Tests: the environment secrets are read from (OPS_SMS_AUTH_TOKEN); else process.env. */
  env?: Record<string, string | undefined>;
}

/** The option every command takes (jsonOption); a command's action adds its own to it. */
export type JsonOpts = { json?: boolean };

/** `--json` on every command: the result as one JSON document on stdout (for scripts), else lines for people. */
export function jsonOption(cmd: Command): Command {
  return cmd.addOption(new Option('--json', 'print the result as JSON (for scripts) instead of lines for people'));
}

/** Runs a command's operation and prints its result: JSON with --json, else `human(result)`. */
export function printer(io: OpsIo) {
  return async <T>(opts: JsonOpts, work: () => Promise<T>, human: (r: T) => string[]) => {
    const result = await work();
    io.out(opts.json ? `${JSON.stringify(result, null, 2)}\n` : `${human(result).join('\n')}\n`);
  };
}

/** A failed command as its exit code and one clear line on stderr (a JSON object with --json). */
export function reportFailure(err: unknown, io: OpsIo, json: boolean): number {
  if (err instanceof CommanderError) {
    // --help and --version exit 0; a usage error (unknown option, missing argument) 2, its message already printed.
    return err.exitCode === 0 ? 0 : 2;
  }
  if (err instanceof Error && err.name === 'ImportFailed') return 1;
  if (err instanceof AppError) {
    io.err(
      json ? `${JSON.stringify({ error: { status: err.status, code: err.code, message: err.message } })}\n` : `error: ${err.message}\n`,
    );
    return 1;
  }
  throw err;
}

/** "a,b" or repeated: every value of a list option, split on commas. */
export const collect = (value: string, previous: string[] = []) => [
  ...previous,
  ...value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean),
];

export function intArg(name: string) {
  return (value: string) => {
    if (!/^\d+$/.test(value)) throw new InvalidArgumentError(`${name}: a whole number, got ${value}`);
    return Number(value);
  };
}
