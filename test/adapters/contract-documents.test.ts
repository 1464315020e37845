// Issue 29 §3: the switch and billing contracts are published as OpenAPI 3.1 documents rendered from
// the same zod schemas the simulator server validates with and the HTTP adapters read answers with.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ADAPTER_CONTRACT_FILES, renderAdapterContracts } from '../../scripts/export-openapi.js';

describe('published adapter contracts', () => {
  it('openapi/adapters/*.json are the fresh rendering of src/adapters/contracts (run `npm run openapi` after a change)', () => {
    const fresh = renderAdapterContracts();
    for (const [name, file] of Object.entries(ADAPTER_CONTRACT_FILES) as [keyof typeof ADAPTER_CONTRACT_FILES, string][]) {
      expect(readFileSync(file, 'utf8'), file).toBe(fresh[name]);
    }
  });

  it('every operation is OpenAPI 3.1, signed, keyed when it changes something, and documents the retry statuses', () => {
    for (const file of Object.values(ADAPTER_CONTRACT_FILES)) {
      const doc = JSON.parse(readFileSync(file, 'utf8'));
      expect(doc.openapi).toBe('3.1.0');
      expect(doc.info.description).toMatch(/Retries/);
      for (const item of Object.values<Record<string, any>>(doc.paths)) {
        for (const [method, op] of Object.entries<any>(item)) {
          const headers = op.parameters.filter((p: any) => p.in === 'header').map((p: any) => p.name);
          expect(headers).toEqual(expect.arrayContaining(['webhook-id', 'webhook-timestamp', 'webhook-signature']));
          expect(headers.includes('Idempotency-Key'), `${method} ${op.operationId}`).toBe(method !== 'get');
          expect(Object.keys(op.responses)).toEqual(expect.arrayContaining(['200', '400', '401', '429', '500', '503']));
          expect(op.responses['503'].content['application/json'].schema).toEqual({ $ref: '#/components/schemas/Error' });
        }
      }
    }
  });

  it('names exactly the operations of the SwitchController and BillingSystem interfaces', () => {
    const ids = (file: string) =>
      Object.values<Record<string, any>>(JSON.parse(readFileSync(file, 'utf8')).paths)
        .flatMap((item) => Object.values<any>(item).map((op) => op.operationId))
        .sort();
    expect(ids(ADAPTER_CONTRACT_FILES.switch)).toEqual(['provisionPort', 'resetPort', 'setCaptivePortal', 'updateBandwidth']);
    expect(ids(ADAPTER_CONTRACT_FILES.billing)).toEqual(['getCreditNote', 'listCreditNotes', 'rescheduleNextInvoice']);
  });
});
