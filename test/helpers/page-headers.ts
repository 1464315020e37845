import { expect } from 'vitest';

/** decisions.md "HTML pages": CSP with frame-ancestors 'none', no referrer, nosniff; token pages no-store. */
export function expectPageHeaders(r: { headers: Record<string, unknown> }, o: { token: boolean }) {
  const csp = String(r.headers['content-security-policy'] ?? '');
  expect(csp).toMatch(/default-src 'none'|default-src 'self'/);
  expect(csp).toContain("frame-ancestors 'none'");
  expect(csp).not.toContain("'unsafe-eval'");
  expect(csp).not.toMatch(/script-src[^;]*'unsafe-inline'/);
  expect(r.headers['referrer-policy']).toBe('no-referrer');
  expect(r.headers['x-content-type-options']).toBe('nosniff');
  if (o.token) expect(r.headers['cache-control']).toBe('no-store');
}
