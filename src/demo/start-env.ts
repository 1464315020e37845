// Kept apart from startup.ts (which loads the demo dataset's code) so that `npm start` reads its
// settings before loading the server.
/**
 * The environment `npm start` runs with: on the embedded demo database (no DATABASE_URL) outside
 * production, SANDBOX defaults to true, because the demo provider's checkout page is the sandbox
 * page. Anywhere else SANDBOX stays as set (default false). Returns the note for the banner.
 */
export function demoStartEnv(env: NodeJS.ProcessEnv): { env: NodeJS.ProcessEnv; sandboxNote: string } {
  const embedded = !env.DATABASE_URL;
  const production = env.NODE_ENV === 'production';
  if (env.SANDBOX === undefined || env.SANDBOX === '') {
    if (embedded && !production) {
      return {
        env: { ...env, SANDBOX: 'true' },
        sandboxNote: 'on (SANDBOX=true by default on the embedded demo database; set SANDBOX=false to turn it off)',
      };
    }
    return { env, sandboxNote: "off (SANDBOX unset; the demo's checkout links need SANDBOX=true)" };
  }
  return { env, sandboxNote: `SANDBOX=${env.SANDBOX}` };
}
