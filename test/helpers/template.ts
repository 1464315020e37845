import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { MIGRATIONS_DIR } from '../../src/db/migrate.js';

/** A name that changes whenever any migration or function file changes, so stale templates are never reused. */
function migrationsFingerprint(): string {
  const h = createHash('sha256');
  for (const dir of [MIGRATIONS_DIR, path.join(MIGRATIONS_DIR, 'functions')]) {
    for (const f of readdirSync(dir)
      .filter((f) => f.endsWith('.sql'))
      .sort()) {
      h.update(path.relative(MIGRATIONS_DIR, path.join(dir, f))).update(readFileSync(path.join(dir, f)));
    }
  }
  return h.digest('hex').slice(0, 12);
}

export const TEMPLATE_DIR = path.resolve('var/test');
export const embeddedTemplateFile = () => path.join(TEMPLATE_DIR, `template-${migrationsFingerprint()}.tar`);
export const pgTemplateName = () => `netsvc_tpl_${migrationsFingerprint()}`;

export function adminUrl(databaseUrl: string, database = 'postgres'): string {
  const u = new URL(databaseUrl);
  u.pathname = `/${database}`;
  return u.toString();
}
