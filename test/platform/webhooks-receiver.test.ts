import { afterEach, describe, expect, it } from 'vitest';
import { fixedClock } from '../../src/lib/clock.js';
import { signWebhook } from '../../src/webhooks/sender.js';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.js';

// The test helper other suites rely on: it must really verify, and really go down.
const SECRET = `whsec_${Buffer.from('0123456789abcdef0123456789abcdef').toString('base64')}`;
const OTHER = `whsec_${Buffer.from('fedcba9876543210fedcba9876543210').toString('base64')}`;
const clock = fixedClock('2026-11-16T10:00:00.000Z');
const envelope = (id: string) => ({
  id,
  type: 'subscription.activated',
  created_at: clock.now().toISOString(),
  provider_id: 'p1',
  data: { subscription_id: 's1', subscriber_id: 'c1' },
});

let rx: WebhookReceiver | undefined;
afterEach(async () => {
  await rx?.close();
  rx = undefined;
});

async function post(url: string, secret: string, id: string, at = clock.now()) {
  const req = signWebhook(secret, id, at, JSON.stringify(envelope(id)));
  return fetch(url, { method: 'POST', headers: req.headers, body: req.body });
}

describe('test/helpers/webhook-receiver', () => {
  it('accepts a correctly signed delivery (204) and records the envelope with its headers', async () => {
    rx = await startWebhookReceiver({ clock, secrets: [SECRET] });
    expect(rx.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/webhooks$/);
    const res = await post(rx.url, SECRET, 'msg_one');
    expect(res.status).toBe(204);
    expect(rx.events).toHaveLength(1);
    expect(rx.events[0]).toMatchObject({
      ...envelope('msg_one'),
      webhookId: 'msg_one',
      timestamp: Math.floor(clock.now().getTime() / 1000),
    });
    expect(rx.ids()).toEqual(['msg_one']);
  });

  it('rejects a wrong signature and a timestamp more than 5 minutes off the supplied clock with 401, recording nothing', async () => {
    rx = await startWebhookReceiver({ clock, secrets: [SECRET] });
    const wrong = await post(rx.url, OTHER, 'msg_wrong');
    expect(wrong.status).toBe(401);
    expect(await wrong.text()).toBe('no matching signature');
    const old = await post(rx.url, SECRET, 'msg_old', new Date(clock.now().getTime() - 301_000));
    expect(old.status).toBe(401);
    expect(await old.text()).toBe('timestamp too old');
    const future = await post(rx.url, SECRET, 'msg_future', new Date(clock.now().getTime() + 301_000));
    expect(future.status).toBe(401);
    const edge = await post(rx.url, SECRET, 'msg_edge', new Date(clock.now().getTime() - 299_000));
    expect(edge.status).toBe(204);
    const tampered = signWebhook(SECRET, 'msg_t', clock.now(), JSON.stringify(envelope('msg_t')));
    const res = await fetch(rx.url, { method: 'POST', headers: tampered.headers, body: tampered.body.replace('s1', 's2') });
    expect(res.status).toBe(401);
    expect(rx.ids()).toEqual(['msg_edge']);
    expect(rx.requests.map((r) => r.answered)).toEqual([401, 401, 401, 204, 401]);
  });

  it('trust() adds a secret later; setMode answers 500 or 429 with Retry-After; down closes the port and up reopens the same URL', async () => {
    rx = await startWebhookReceiver({ clock });
    expect((await post(rx.url, SECRET, 'msg_a')).status).toBe(401);
    rx.trust(SECRET);
    await rx.setMode({ status: 500 });
    expect((await post(rx.url, SECRET, 'msg_a')).status).toBe(500);
    await rx.setMode({ status: 429, retryAfter: 120 });
    const limited = await post(rx.url, SECRET, 'msg_a');
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBe('120');
    await rx.setMode('down');
    await expect(post(rx.url, SECRET, 'msg_a')).rejects.toMatchObject({ cause: { code: 'ECONNREFUSED' } });
    await rx.setMode('ok');
    expect((await post(rx.url, SECRET, 'msg_a')).status).toBe(204);
    expect(rx.ids()).toEqual(['msg_a']);
  });

  it('waitFor(n) resolves once n events arrived and rejects with a clear message on timeout', async () => {
    rx = await startWebhookReceiver({ clock, secrets: [SECRET] });
    const waiting = rx.waitFor(2, 2000);
    await post(rx.url, SECRET, 'msg_1');
    await post(rx.url, SECRET, 'msg_2');
    expect((await waiting).map((e) => e.id)).toEqual(['msg_1', 'msg_2']);
    await expect(rx.waitFor(3, 50)).rejects.toThrow('expected 3 event(s) within 50 ms, got 2');
    rx.reset();
    expect(rx.events).toHaveLength(0);
  });
});
