import { pipeline } from 'node:stream/promises';
import { Readable } from 'node:stream';
import type pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';

/** One value in COPY text format. */
export function cell(v: unknown): string {
  if (v === null || v === undefined) return '\\N';
  const s = v instanceof Date ? v.toISOString() : Array.isArray(v) ? `{${v.join(',')}}` : String(v);
  return s.replace(/\\/g, '\\\\').replace(/\t/g, '\\t').replace(/\n/g, '\\n').replace(/\r/g, '\\r');
}

/**
 * Streams rows into `table` with COPY: `rows` yields arrays in `columns` order; `onRows` is
 * called with the count of each chunk written (progress bars).
 */
export async function copyRows(
  client: pg.PoolClient,
  table: string,
  columns: string[],
  rows: Iterable<unknown[]>,
  onRows: (n: number) => void = () => undefined,
): Promise<void> {
  const sink = client.query(copyFrom(`COPY ${table} (${columns.join(', ')}) FROM STDIN`));
  function* chunks() {
    let buf: string[] = [];
    for (const r of rows) {
      buf.push(r.map(cell).join('\t'));
      if (buf.length === 5000) {
        yield `${buf.join('\n')}\n`;
        onRows(buf.length);
        buf = [];
      }
    }
    if (buf.length) {
      yield `${buf.join('\n')}\n`;
      onRows(buf.length);
    }
  }
  await pipeline(Readable.from(chunks()), sink);
}
