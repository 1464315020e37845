import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { Argument, type Command } from 'commander';
import cliProgress from 'cli-progress';
import { KINDS, type ImportReport, type Kind } from '../modules/inventory/index.js';
import { AppError } from '../lib/errors.js';
import type { OpsServices } from './ops-services.js';
import { jsonOption, printer, type OpsIo } from './ops-io.js';

const reportLines = (r: ImportReport) => [
  `${r.kind}: ${r.rows} row(s) read; ${r.inserted} new, ${r.updated} updated${r.dry_run ? ' (dry run: nothing written)' : r.committed ? '' : ' (nothing written)'}`,
  ...r.errors.map((e) => `  line ${e.line}${e.column ? `, column ${e.column}` : ''}: ${e.reason}`),
  ...(r.errors_total > r.errors.length ? [`  … and ${r.errors_total - r.errors.length} more problem(s)`] : []),
  ...(r.errors_total ? [`${r.errors_total} problem(s): nothing was imported; fix the file and run again`] : []),
];

export function registerImportCommand(program: Command, open: () => Promise<OpsServices>, io: OpsIo, isTty: () => boolean) {
  const print = printer(io);
  jsonOption(
    program
      .command('import')
      .description(
        'import inventory from a CSV file (docs/import.md): all rows or none; a re-import updates by the natural key. Exit 1 when the file has errors',
      )
      .addArgument(new Argument('<kind>', 'what the file holds').choices(KINDS))
      .argument('<provider>', 'id or slug')
      .argument('<file>', 'the CSV file (UTF-8, a header row)')
      .option('--dry-run', 'check and count everything, write nothing'),
  ).action(async (kind: Kind, ref: string, file: string, o: { json?: boolean; dryRun?: boolean }) => {
    let failed: ImportReport | null = null;
    await print(
      o,
      async () => {
        const s = await open();
        const p = await s.providerAdmin.resolve(ref);
        const size = await stat(file).then(
          (st) => st.size,
          () => {
            throw new AppError(404, 'not_found', `No file ${file}`);
          },
        );
        const stream = createReadStream(file);
        // A progress bar by bytes read, on a terminal only (never in --json output or a pipe).
        const bar =
          isTty() && !o.json
            ? new cliProgress.SingleBar({ format: `${kind} {bar} {percentage}% | {rows} rows`, stream: process.stderr })
            : null;
        // (No 'data' listener here: it would start the stream before the importer reads it.)
        bar?.start(size, 0, { rows: 0 });
        try {
          const r = await s.inventory.importCsv(p.id, kind, stream, {
            dryRun: o.dryRun,
            onProgress: (rows) => bar?.update(stream.bytesRead, { rows }),
          });
          if (r.errors_total) failed = r;
          return r;
        } finally {
          bar?.stop();
        }
      },
      reportLines,
    );
    if (failed) throw new ImportFailed();
  });
}

/** The file had errors: the report is printed; the command exits 1. */
class ImportFailed extends Error {
  override name = 'ImportFailed';
}
