// Issue 28 §4: `cp .env.example .env; set -a; . ./.env; set +a` works: bash reads every setting as
// written (a value with spaces or <> is quoted), nothing is dropped, and sourcing prints no error.
import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

/** Every `NAME=value` line of the file, the value as a reader means it (one pair of quotes removed). */
function assignments(text: string) {
  const out: [string, string][] = [];
  for (const line of text.split('\n')) {
    const m = /^([A-Z][A-Z0-9_]*)=(.*)$/.exec(line);
    if (!m) continue;
    const raw = m[2]!;
    const quoted = /^'([^']*)'$/.exec(raw) ?? /^"([^"$`\\]*)"$/.exec(raw);
    out.push([m[1]!, quoted ? quoted[1]! : raw]);
  }
  return out;
}

describe('.env.example sourced by bash', () => {
  it('set -a; . ./.env.example; set +a exports every variable exactly as written, with no error', () => {
    const vars = assignments(readFileSync('.env.example', 'utf8'));
    expect(vars.length).toBeGreaterThan(30);
    expect(vars.find(([k]) => k === 'MAIL_FROM')?.[1]).toBe('Support <support@netsvc.local>');
    const script = `set -a; . ./.env.example; set +a; for v in ${vars.map(([k]) => k).join(' ')}; do if [ -n "\${!v+x}" ]; then printf '%s=%s\\0' "$v" "\${!v}"; else printf '%s\\0' "$v"; fi; done`;
    const r = spawnSync('bash', ['--norc', '--noprofile', '-c', script], {
      env: { PATH: process.env.PATH },
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    const got = new Map(
      r.stdout
        .split('\0')
        .filter(Boolean)
        .map((kv) => (kv.includes('=') ? [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)] : [kv, undefined])),
    );
    for (const [k, v] of vars) expect(got.get(k), k).toBe(v);
  });

  it('every value with a space or a shell metacharacter is quoted', () => {
    for (const line of readFileSync('.env.example', 'utf8').split('\n')) {
      const m = /^([A-Z][A-Z0-9_]*)=(.*)$/.exec(line);
      if (!m || /^'.*'$|^".*"$/.test(m[2]!)) continue;
      expect(m[2], line).not.toMatch(/[\s<>|&;()$`'"\\*?[\]#~]/);
    }
    // a POSIX sh (dash) reads it too
    expect(execFileSync('sh', ['-c', 'set -a; . ./.env.example; set +a; printf %s "$MAIL_FROM"'], { encoding: 'utf8' })).toBe(
      'Support <support@netsvc.local>',
    );
  });
});
