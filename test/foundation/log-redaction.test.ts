import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { createProvider } from '../helpers/factories.js';
import { redactUrl } from '../../src/plugins/log-redaction.js';

let t: TestApp;
const lines: string[] = [];
beforeAll(async () => {
  const stream = new Writable({
    write(chunk, _enc, cb) {
      lines.push(chunk.toString());
      cb();
    },
  });
  t = await buildTestApp({ env: { LOG_LEVEL: 'debug' }, build: { logStream: stream } });
});
afterAll(() => t.close());

describe('logs never carry secrets', () => {
  it('masks link tokens in unmatched paths and every query value', () => {
    expect(redactUrl('/booking/abcDEF123_-x/slots?x=1')).toBe('/booking/[redacted]/slots?x=[redacted]');
    expect(redactUrl('/Booking/abcDEF123_-x')).toBe('/Booking/[redacted]');
    expect(redactUrl('/pay/tok_123')).toBe('/pay/[redacted]');
    expect(redactUrl('/set-password?token=abc&x=1')).toBe('/set-password?token=[redacted]&x=[redacted]');
    expect(redactUrl('/booking/abc/slots?from=1', '/booking/:token/slots')).toBe('/booking/:token/slots?from=[redacted]');
  });

  it('a customer search logs the route pattern and a redacted query: the searched phone, email and name appear in no log line', async () => {
    const p = await createProvider(t.db);
    const searches = ['+4915199887766', 'leaky.person@example.test', 'Leakyname Searchperson'];
    lines.length = 0;
    for (const q of searches) {
      const r = await t.app.inject({
        method: 'GET',
        url: `/agent/customers/search?q=${encodeURIComponent(q)}&limit=5`,
        headers: { 'x-api-key': p.apiKey },
      });
      expect(r.statusCode).toBe(200);
    }
    const all = lines.join('');
    const requestLines = lines.map((l) => JSON.parse(l)).filter((l) => l.req);
    expect(requestLines).toHaveLength(searches.length);
    for (const l of requestLines) expect(l.req.url).toBe('/agent/customers/search?q=[redacted]&limit=[redacted]');
    for (const q of searches) {
      for (const piece of [q, encodeURIComponent(q), q.slice(3, 12), 'Leakyname', 'Searchperson', 'leaky.person', '15199887766'])
        expect(all).not.toContain(piece);
    }
  });

  it('API keys, bearer tokens, passwords and link tokens sent to the server are absent from every log line', async () => {
    const p = await createProvider(t.db);
    const secretToken = 'linktoken_SHOULD_NOT_APPEAR_123456';
    await t.app.inject({
      method: 'GET',
      url: '/agent/customers/search?q=ab',
      headers: { 'x-api-key': p.apiKey, 'x-verified-session': 'vs_SHOULD_NOT_APPEAR' },
    });
    await t.app.inject({
      method: 'POST',
      url: '/auth/login',
      payload: { email: 'a@b.de', password: 'PASSWORD_SHOULD_NOT_APPEAR' },
      headers: { authorization: 'Bearer JWT_SHOULD_NOT_APPEAR' },
    });
    await t.app.inject({ method: 'GET', url: `/booking/${secretToken}` });
    await t.app.inject({
      method: 'POST',
      url: '/auth/set-password',
      payload: { token: secretToken, password: 'PASSWORD_SHOULD_NOT_APPEAR' },
    });
    const all = lines.join('');
    expect(lines.length).toBeGreaterThan(4);
    expect(all).toContain('incoming request');
    for (const secret of [
      p.apiKey,
      p.apiKey.slice(12),
      'vs_SHOULD_NOT_APPEAR',
      'PASSWORD_SHOULD_NOT_APPEAR',
      'JWT_SHOULD_NOT_APPEAR',
      secretToken,
    ]) {
      expect(all).not.toContain(secret);
    }
  });
});
