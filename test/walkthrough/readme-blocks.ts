// The README walkthrough as a shell script, and the log of every curl call it makes.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

const START = '<!-- walkthrough:start';
const END = '<!-- walkthrough:end -->';

/** The ```bash blocks between the README's walkthrough markers, in order. */
export function walkthroughBlocks(readme: string): string[] {
  const from = readme.indexOf(START);
  const to = readme.indexOf(END);
  if (from < 0 || to < from) throw new Error('README.md lacks the walkthrough:start / walkthrough:end markers');
  return [...readme.slice(from, to).matchAll(/^```bash\n([\s\S]*?)^```$/gm)].map((m) => m[1]!);
}

/**
 * The script the test runs: the blocks as a reader pastes them, after a preamble that stops at the
 * first failing command and wraps `curl` so each call's arguments, status line and output land in
 * $WALK_LOG (numbered through a file, since `$(curl ...)` runs in a subshell).
 */
export function walkthroughScript(blocks: string[], baseUrl: string): string {
  const preamble = String.raw`set -e
curl() {
  local n=$(( $(cat "$WALK_LOG/n" 2>/dev/null || echo 0) + 1 ))
  echo "$n" > "$WALK_LOG/n"
  local f="$WALK_LOG/$(printf %03d "$n")"
  printf '%s\n' "$@" > "$f.args"
  command curl -D "$f.head" "$@" | tee "$f.body"
}
`;
  // The README's address is the default port; the test's server listens on a free one.
  return preamble + blocks.join('\n').replaceAll('http://127.0.0.1:3000', baseUrl);
}

export interface Call {
  n: number;
  method: string;
  path: string;
  status: number;
  /** The parsed JSON output, or the raw text when it is not JSON. */
  body: any;
}

/** The calls recorded in `dir`, in order. */
export function readCalls(dir: string, baseUrl: string): Call[] {
  return readdirSync(dir)
    .filter((f) => f.endsWith('.args'))
    .sort()
    .map((f) => {
      const stem = path.join(dir, f.slice(0, -'.args'.length));
      const args = readFileSync(`${stem}.args`, 'utf8').split('\n');
      const x = args.indexOf('-X');
      const url = args.find((a) => a.startsWith(baseUrl)) ?? '';
      const statuses = [...readFileSync(`${stem}.head`, 'utf8').matchAll(/^HTTP\/[\d.]+ (\d{3})/gm)];
      const text = readFileSync(`${stem}.body`, 'utf8');
      let body: any = text;
      try {
        body = JSON.parse(text);
      } catch {
        /* not JSON (the PDF download prints its -w line) */
      }
      return {
        n: Number(f.slice(0, 3)),
        method: x >= 0 ? args[x + 1]! : args.includes('-d') ? 'POST' : 'GET',
        path: url.slice(baseUrl.length),
        status: Number(statuses.at(-1)?.[1] ?? 0),
        body,
      };
    });
}
