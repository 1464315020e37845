import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const CONF = path.resolve('deploy/nginx.conf');
const conf = readFileSync(CONF, 'utf8');
const nginx = spawnSync('nginx', ['-v']).error ? null : 'nginx';
if (!nginx)
  process.stderr.write('\n###  SKIPPED: nginx -t of deploy/nginx.conf (nginx is not installed; apt-get install nginx-light)  ###\n\n');

describe('deploy/nginx.conf (N processes behind nginx)', () => {
  it.skipIf(!nginx)('nginx accepts it (nginx -t)', () => {
    const out = execFileSync('nginx', ['-t', '-c', CONF, '-e', 'stderr'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
    expect(out).toBe('');
  });

  it("balances over several local processes, passes only the client's own address as X-Forwarded-For, and retries only a failed connection", () => {
    const upstream = /upstream netsvc \{([\s\S]*?)\}/.exec(conf)?.[1] ?? '';
    expect([...upstream.matchAll(/^\s*server (127\.0\.0\.1:\d+)/gm)].map((m) => m[1]).length).toBeGreaterThanOrEqual(2);
    // $proxy_add_x_forwarded_for would keep what the client sent: a fresh rate-limit bucket per invented address.
    expect(conf).toMatch(/^\s*proxy_set_header X-Forwarded-For \$remote_addr;/m);
    expect(conf).not.toContain('$proxy_add_x_forwarded_for');
    // A request that reached a server is never sent to a second one (a write would run twice).
    expect(conf).toMatch(/^\s*proxy_next_upstream error;/m);
  });
});
