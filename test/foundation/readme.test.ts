// Issue 28 §4: the README a newcomer reads first. Short, no template leftovers, no pointer outside the
// repository, versions that agree with package.json and the Dockerfile, a walkthrough that writes only
// under var/, and links that resolve.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { walkthroughBlocks } from '../walkthrough/readme-blocks.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const readme = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
const pkg = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
const dockerfile = readFileSync(path.join(ROOT, 'Dockerfile'), 'utf8');

describe('README.md', () => {
  it('is at most about 250 lines (long explanations live in docs/ and bench/README.md)', () => {
    expect(readme.split('\n').length).toBeLessThanOrEqual(250);
    expect(readme).not.toContain('| scenario |');
  });

  it('has no template leftovers and no pointer to a specification outside the repository', () => {
    expect(readme).not.toMatch(/Other engineers|fill the|TODO|TBD/i);
    expect(readme).not.toContain('shared/spec');
    for (const f of ['agent-surface.md', 'partner-surface.md', 'demo-dataset.md']) {
      expect(readme).toContain(`docs/${f}`);
      expect(existsSync(path.join(ROOT, 'docs', f)), f).toBe(true);
    }
  });

  it('names the Node versions package.json and the Dockerfile use: the supported range and the recommended major', () => {
    expect(pkg.engines.node).toBe('>=20.11');
    expect(readme).toContain('`>=20.11`');
    const image = /^FROM node:(\d+)/m.exec(dockerfile)![1];
    expect(readme).toContain(`${image} is recommended`);
    expect(readme).toContain(`node:${image}`);
    expect(readme).not.toMatch(/\(TypeScript, Node 20/);
  });

  it('has the "Go live" heading pointing to docs/go-live.md', () => {
    expect(readme).toMatch(/^## Go live\n\n[^#]*\(docs\/go-live\.md\)/m);
  });

  it('every relative link resolves to a file of the repository (docs/go-live.md excepted: the ops guide)', () => {
    const links = [...readme.matchAll(/\]\(([^)#\s]+)(?:#[^)]*)?\)/g)].map((m) => m[1]).filter((l) => !/^[a-z]+:/.test(l!));
    expect(links.length).toBeGreaterThan(5);
    for (const l of links) if (l !== 'docs/go-live.md') expect(existsSync(path.join(ROOT, l!)), l).toBe(true);
  });

  it('the walkthrough writes files only under var/ (no credit-note.pdf in the repository root)', () => {
    const blocks = walkthroughBlocks(readme).join('\n');
    const outputs = [...blocks.matchAll(/curl[^\n]*?\s(?:-o|--output)\s+(\S+)/g)].map((m) => m[1]);
    expect(outputs.length).toBeGreaterThan(0);
    for (const o of outputs) expect(o, o).toMatch(/^(var\/|\/dev\/null$)/);
    expect(blocks).not.toMatch(/>\s*(?!\/dev\/|&)[\w.-]+\.(pdf|json|eml|txt)\b/);
  });
});
