// Where `npm run demo:agent` and `demo:partner` find the server: BASE_URL when set, else the
// `base_url` that `npm start` wrote into the demo document (the address it listens on), else
// the default port.
import { readFileSync } from 'node:fs';

export const DEFAULT_BASE_URL = 'http://127.0.0.1:3000';

export class DemoSetupError extends Error {}

/** The demo document (var/demo.json unless DEMO_JSON), or a setup error saying how to get one. */
export function readDemoJson<T>(file: string): T {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new DemoSetupError(
      `cannot read ${file} (${(err as NodeJS.ErrnoException).code ?? (err as Error).message}): start the server once (npm start), which writes it, or run npm run seed:demo -- --json > ${file}`,
    );
  }
  try {
    return JSON.parse(text) as T;
  } catch (err) {
    throw new DemoSetupError(`${file} is not JSON (${(err as Error).message})`);
  }
}

export function demoBaseUrl(env: NodeJS.ProcessEnv, doc: { base_url?: string | null }): string {
  return (env.BASE_URL || doc.base_url || DEFAULT_BASE_URL).replace(/\/+$/, '');
}
