// Issue 28 §4: the clients/ts README example compiles against the generated client (a type check of the
// ```ts block, with '@netsvc/api-client' mapped to clients/ts/src).
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../..');

describe('clients/ts/README.md', () => {
  it('its TypeScript example type-checks against the generated client', () => {
    const readme = readFileSync(path.join(ROOT, 'clients/ts/README.md'), 'utf8');
    const blocks = [...readme.matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1]);
    expect(blocks.length).toBeGreaterThan(0);
    const dir = path.join(ROOT, 'var/test', `client-readme-${process.pid}`);
    mkdirSync(dir, { recursive: true });
    try {
      blocks.forEach((code, i) => writeFileSync(path.join(dir, `example-${i}.ts`), `${code}\nexport {};\n`));
      writeFileSync(
        path.join(dir, 'tsconfig.json'),
        JSON.stringify({
          extends: path.join(ROOT, 'tsconfig.json'),
          compilerOptions: { noEmit: true, baseUrl: '.', paths: { '@netsvc/api-client': [path.join(ROOT, 'clients/ts/src/index.ts')] } },
          include: ['*.ts'],
        }),
      );
      let out = '';
      try {
        execFileSync(process.execPath, [path.join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', dir], { encoding: 'utf8' });
      } catch (err) {
        out = String((err as { stdout?: string }).stdout ?? err);
      }
      expect(out).toBe('');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);
});
