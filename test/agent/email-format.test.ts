// `format: email` means what a JSON Schema validator means by it (issue 30 §5): an address whose
// domain label ends in a hyphen (`erika@example-.com`) is refused, in each surface's shape, and
// nothing is stored: the agent's contact PATCH (400 validation_error) and the partner's staff
// invitation (422 {detail}).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProvider, createUser } from '../helpers/factories.js';
import { bearerFor } from '../billing/fixtures.js';
import { expectError, seedCustomer, setupAgent, verify, type AgentKit } from './helpers.js';

let kit: AgentKit;
beforeAll(async () => {
  kit = await setupAgent();
});
afterAll(async () => kit.close());

const BAD = ['erika@example-.com', 'erika@-example.com', 'erika@exa_mple.com', 'erika@example.c'];

describe('format: email', () => {
  it('PATCH /agent/customers/{id}/contact refuses erika@example-.com with 400 validation_error naming email; the contact is unchanged', async () => {
    const c = await seedCustomer(kit, { lastName: 'Formatt', email: 'formatt@example.com' });
    const session = await verify(kit, c);
    for (const email of BAD) {
      const r = await kit.call('PATCH', `/agent/customers/${c.id}/contact`, { session, payload: { email } });
      expectError(r, 400, 'validation_error');
      expect(r.body.error.details, email).toEqual([{ field: 'email', message: expect.any(String) }]);
    }
    const row = await kit.t.db.selectFrom('subscribers').select('email').where('id', '=', c.id).executeTakeFirstOrThrow();
    expect(row.email).toBe('formatt@example.com');
    const ok = await kit.call('PATCH', `/agent/customers/${c.id}/contact`, { session, payload: { email: 'erika@mail.example-net.com' } });
    expect(ok.status).toBe(200);
  });

  it('POST /api/v1/provider/users/invite refuses erika@example-.com with 422 {detail} naming email; no user is created', async () => {
    const provider = await createProvider(kit.t.db);
    const u = await createUser(kit.t.db, { role: 'service_provider', spRole: 'sp_admin', providerId: provider.id });
    const headers = await bearerFor(kit.t, { id: u.id, role: 'service_provider', spRole: 'sp_admin', providerId: provider.id });
    for (const email of BAD) {
      const r = await kit.t.app.inject({
        method: 'POST',
        url: '/api/v1/provider/users/invite',
        headers,
        payload: { email, sp_role: 'support' },
      });
      expect(r.statusCode, email).toBe(422);
      expect(r.json(), email).toEqual({ detail: expect.stringMatching(/^email: /) });
    }
    const users = await kit.t.db.selectFrom('users').select('email').where('email', 'ilike', 'erika@%').execute();
    expect(users).toEqual([]);
  });
});
