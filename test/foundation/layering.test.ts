import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

// The layering issue 18 asks for, held by a test: the container builds everything, routes and
// plugins reach data only through the services it built, and no module depends on a surface.
const SRC = path.resolve(import.meta.dirname, '../../src');

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && e.name.endsWith('.ts'))
    .map((e) => path.join(e.parentPath, e.name));
}

const rel = (f: string) => path.relative(SRC, f);
const importsOf = (f: string) =>
  [...readFileSync(f, 'utf8').matchAll(/^(?:import|export)\b[^;]*?from '(\.[^']+)'/gms)].map((m) =>
    path.resolve(path.dirname(f), m[1].replace(/\.js$/, '.ts')),
  );

describe('layering', () => {
  const all = filesUnder(SRC);

  it('no route or plugin reaches the database, the infrastructure or a repository: they call app.services', () => {
    const offenders = all
      .filter((f) => /^(surfaces|plugins)\//.test(rel(f)))
      .filter((f) => {
        const text = readFileSync(f, 'utf8');
        return /\.deps\b/.test(text) || importsOf(f).some((i) => /\.repository\.ts$|\/db\/database\.ts$|\/container\.ts$/.test(i));
      });
    expect(offenders.map(rel)).toEqual([]);
  });

  it('nothing the container builds imports the container', () => {
    const container = path.join(SRC, 'container.ts');
    const offenders = all.filter((f) => f !== container && !/^(app|server|runtime)\.ts$/.test(rel(f)) && importsOf(f).includes(container));
    expect(offenders.map(rel)).toEqual([]);
  });

  it('modules know no HTTP request and no /agent route', () => {
    const offenders = all
      .filter((f) => rel(f).startsWith('modules/'))
      .filter((f) => {
        const text = readFileSync(f, 'utf8');
        return (
          /\bFastifyRequest\b/.test(text) ||
          /\b(GET|POST|PUT|PATCH|DELETE) \/agent\b/.test(text) ||
          importsOf(f).some((i) => rel(i).startsWith('surfaces/'))
        );
      });
    expect(offenders.map(rel)).toEqual([]);
  });

  it('has no import cycle (type imports included)', () => {
    const graph = new Map(all.map((f) => [f, importsOf(f).filter((i) => i.startsWith(SRC))]));
    const state = new Map<string, 'open' | 'done'>();
    const cycles: string[] = [];
    const visit = (f: string, trail: string[]) => {
      if (state.get(f) === 'done') return;
      if (state.get(f) === 'open') {
        cycles.push([...trail.slice(trail.indexOf(f)), f].map(rel).join(' > '));
        return;
      }
      state.set(f, 'open');
      for (const next of graph.get(f) ?? []) visit(next, [...trail, f]);
      state.set(f, 'done');
    };
    for (const f of graph.keys()) visit(f, []);
    expect(cycles).toEqual([]);
  });
});
