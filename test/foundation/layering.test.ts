import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

// The layering issue 18 asks for, held by a test: the container builds everything, routes and
// plugins reach data only through the services it built, and no module depends on a surface; and
// issue 32's module boundaries: one public entry a module, and no cycle between modules.
const SRC = path.resolve(import.meta.dirname, '../../src');

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && e.name.endsWith('.ts'))
    .map((e) => path.join(e.parentPath, e.name));
}

const rel = (f: string) => path.relative(SRC, f);
const importsOf = (f: string) =>
  [...readFileSync(f, 'utf8').matchAll(/^(?:import|export)\b[^;]*?from '(\.[^']+)'/gms)].map((m) =>
    path.resolve(path.dirname(f), m[1]!.replace(/\.js$/, '.ts')),
  );

/** Every cycle a depth-first walk of `graph` meets, each as its nodes from the first back to it. */
function cyclesOf<T>(graph: Map<T, Iterable<T>>): T[][] {
  const state = new Map<T, 'open' | 'done'>();
  const cycles: T[][] = [];
  const visit = (n: T, trail: T[]) => {
    if (state.get(n) === 'done') return;
    if (state.get(n) === 'open') {
      cycles.push([...trail.slice(trail.indexOf(n)), n]);
      return;
    }
    state.set(n, 'open');
    for (const next of graph.get(n) ?? []) visit(next, [...trail, n]);
    state.set(n, 'done');
  };
  for (const n of graph.keys()) visit(n, []);
  return cycles;
}

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

  // Issue 32: a module is a boundary with one public entry, and the modules depend on each other
  // without a cycle (an owner of a table below the processes that use it).
  const moduleOf = (f: string) => /^modules\/([^/]+)\//.exec(rel(f))?.[1];
  const isIndex = (f: string) => path.basename(f) === 'index.ts';

  it('a module is entered only through its index.ts (from another module, the container, the surfaces and the rest of src/)', () => {
    const offenders = all.flatMap((f) =>
      importsOf(f)
        .filter((i) => moduleOf(i) && moduleOf(i) !== moduleOf(f) && !isIndex(i))
        .map((i) => `${rel(f)} > ${rel(i)}`),
    );
    expect(offenders).toEqual([]);
  });

  it('the module graph has no cycle (type imports included)', () => {
    const graph = new Map<string, Set<string>>();
    for (const f of all) {
      const from = moduleOf(f);
      if (!from) continue;
      const deps = graph.get(from) ?? new Set<string>();
      for (const i of importsOf(f)) {
        const to = moduleOf(i);
        if (to && to !== from) deps.add(to);
      }
      graph.set(from, deps);
    }
    expect(cyclesOf(graph).map((c) => c.join(' > '))).toEqual([]);
    // Not vacuous: the owners are below the processes that use them.
    expect(graph.get('billing')).toContain('invoices');
  });

  it('has no import cycle (type imports included)', () => {
    const graph = new Map(all.map((f) => [f, importsOf(f).filter((i) => i.startsWith(SRC))]));
    expect(cyclesOf(graph).map((c) => c.map(rel).join(' > '))).toEqual([]);
  });
});
