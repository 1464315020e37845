import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBuilding } from '../helpers/factories.js';
import { expectError, expectNoLeaks, seedCustomer, setupAgent, type AgentKit, type SeededCustomer } from './helpers.js';

let kit: AgentKit;
let erikaA: SeededCustomer;
let erikaB: SeededCustomer;
let hans: SeededCustomer;
let foreign: SeededCustomer;

const search = (q: string, extra = '', key?: string) =>
  kit.call('GET', `/agent/customers/search?q=${encodeURIComponent(q)}${extra}`, { key });

beforeAll(async () => {
  kit = await setupAgent();
  // Same name, same building, different units: the demo's ambiguous pair.
  const shared = await createBuilding(kit.t.db, kit.main.id, {
    street: 'Sonnenweg',
    houseNumber: '7',
    postalCode: '10405',
    city: 'Berlin',
    units: ['3A', '4B'],
  });
  erikaA = await seedCustomer(kit, {
    firstName: 'Erika',
    lastName: 'Mustermann',
    building: shared,
    unit: '3A',
    phone: '+49 151 11112222',
    email: 'erika.a@example.com',
  });
  erikaB = await seedCustomer(kit, {
    firstName: 'Erika',
    lastName: 'Mustermann',
    building: shared,
    unit: '4B',
    phone: '+49 151 33334444',
    email: 'erika.b@example.com',
  });
  hans = await seedCustomer(kit, {
    firstName: 'Hans',
    lastName: 'Meyer-Schulz',
    street: 'Am Weinberg',
    houseNumber: '12a',
    city: 'Hamburg',
    postalCode: '20095',
    unit: '1',
    phone: '+1 416 555 0123',
    email: 'hans@meyer.example',
  });
  await kit.t.db
    .updateTable('subscribers')
    .set({ invoice_street: 'Postfachweg', invoice_house_number: '99', invoice_postal_code: '80331', invoice_city: 'München' })
    .where('id', '=', hans.id)
    .execute();
  // Another provider's customer with the very same name, phone and unit label.
  foreign = await seedCustomer(kit, {
    provider: kit.other,
    firstName: 'Erika',
    lastName: 'Mustermann',
    unit: '4B',
    phone: '+49 151 33334444',
    email: 'erika.other@example.com',
  });
});
afterAll(async () => {
  await expectNoLeaks(kit);
  await kit.close();
});

describe('GET /agent/customers/search', () => {
  it("a name shared by two customers is ambiguous, with each candidate's service location as the discriminator", async () => {
    const r = await search('Erika Mustermann');
    expect(r.status).toBe(200);
    expect(r.body.ambiguous).toBe(true);
    expect(r.body.match_count).toBe(2);
    expect(r.body.matches.map((m: any) => m.customer_id).sort()).toEqual([erikaA.id, erikaB.id].sort());
    const b = r.body.matches.find((m: any) => m.customer_id === erikaB.id);
    expect(b.service_locations).toEqual([{ address: 'Sonnenweg 7, 10405 Berlin', unit_label: '4B', subscription_status: 'ACTIVE' }]);
  });

  it('appending the unit (or "unit 4B") narrows the ambiguous name to one customer', async () => {
    for (const q of ['Erika Mustermann 4B', 'Erika Mustermann unit 4B', 'mustermann, Sonnenweg 7 4b']) {
      const r = await search(q);
      expect(r.status).toBe(200);
      expect({ q, ambiguous: r.body.ambiguous, count: r.body.match_count, ids: r.body.matches.map((m: any) => m.customer_id) }).toEqual({
        q,
        ambiguous: false,
        count: 1,
        ids: [erikaB.id],
      });
    }
  });

  it('answers masked contact detail only: no full name, email, phone or customer number', async () => {
    const r = await search('Erika Mustermann 3A');
    expect(r.body.matches).toHaveLength(1);
    const m = r.body.matches[0];
    expect(Object.keys(m).sort()).toEqual([
      'customer_id',
      'customer_number_masked',
      'email_masked',
      'name_masked',
      'phone_masked',
      'service_locations',
    ]);
    expect(m).toMatchObject({
      name_masked: 'Erika M.',
      email_masked: 'e***@e***.com',
      phone_masked: '***22',
      customer_number_masked: `****-**${erikaA.customerNumber!.slice(-2)}`,
    });
    expect(r.raw).not.toContain('Mustermann');
    expect(r.raw).not.toContain('erika.a@example.com');
    expect(r.raw).not.toContain('11112222');
    expect(r.raw).not.toContain(erikaA.customerNumber!);
  });

  it('finds by phone in any formatting (international, national, 00-prefix, separators)', async () => {
    for (const q of ['+49 151 33334444', '+4915133334444', '0151 3333 4444', '0151/33334444', '(0151) 333-34444', '0049 151 33334444']) {
      const r = await search(q);
      expect({ q, ids: r.body.matches.map((m: any) => m.customer_id) }).toEqual({ q, ids: [erikaB.id] });
    }
    // A Canadian number, national format, is read in the countries the provider serves (DE here),
    // and in international format anywhere.
    const ca = await search('+1 (416) 555-0123');
    expect(ca.body.matches.map((m: any) => m.customer_id)).toEqual([hans.id]);
  });

  it('finds by the whole email (any case, spaces ignored) and the whole customer number (with or without dash); a part of either finds nothing', async () => {
    expect((await search('ERIKA.B@example.com')).body.matches.map((m: any) => m.customer_id)).toEqual([erikaB.id]);
    expect((await search(' erika.b @ example.com ')).body.matches.map((m: any) => m.customer_id)).toEqual([erikaB.id]);
    expect((await search('erika.a@')).body.match_count).toBe(0);
    expect((await search('erika.a@example.co')).body.match_count).toBe(0);
    const cn = erikaA.customerNumber!;
    expect((await search(cn)).body.matches.map((m: any) => m.customer_id)).toEqual([erikaA.id]);
    expect((await search(cn.replace('-', '').toLowerCase())).body.matches.map((m: any) => m.customer_id)).toEqual([erikaA.id]);
    expect((await search(cn.slice(0, 7))).body.match_count).toBe(0);
  });

  it('finds by invoice address, service building address, house number with suffix and city', async () => {
    expect((await search('Postfachweg 99')).body.matches.map((m: any) => m.customer_id)).toEqual([hans.id]);
    expect((await search('München')).body.matches.map((m: any) => m.customer_id)).toEqual([hans.id]);
    expect((await search('Am Weinberg 12a')).body.matches.map((m: any) => m.customer_id)).toEqual([hans.id]);
    expect((await search('Hans Hamburg')).body.matches.map((m: any) => m.customer_id)).toEqual([hans.id]);
    expect((await search('Sonnenweg 3A')).body.matches.map((m: any) => m.customer_id)).toEqual([erikaA.id]);
  });

  it('finds a whole word inside a name or street, and a name with one typo only when nothing matches exactly', async () => {
    // "Schulz" is a word of "Meyer-Schulz", "Weinberg" a word of "Am Weinberg"; "Mustermnn" a typo.
    expect((await search('Schulz')).body.matches.map((m: any) => m.customer_id)).toEqual([hans.id]);
    expect((await search('Weinberg')).body.matches.map((m: any) => m.customer_id)).toEqual([hans.id]);
    expect((await search('Mustermnn 4B')).body.matches.map((m: any) => m.customer_id)).toEqual([erikaB.id]);
  });

  it('a name with ß is found spelled with ss and the other way round, in any case; a shortened name still finds nothing', async () => {
    const weiss = await seedCustomer(kit, { firstName: 'Jörg', lastName: 'Weiß', street: 'Ulmenweg', email: 'j.w@example.com' });
    const strauss = await seedCustomer(kit, { firstName: 'Greta', lastName: 'Strauss', street: 'Ulmenweg', email: 'g.s@example.com' });
    const ids = async (q: string) => (await search(q)).body.matches.map((m: any) => m.customer_id);
    for (const q of ['Weiss', 'WEISS', 'weiß', 'Jörg Weiss', 'Jörg WEIẞ']) expect({ q, ids: await ids(q) }).toEqual({ q, ids: [weiss.id] });
    for (const q of ['Strauß', 'STRAUSS', 'Greta Strauß']) expect({ q, ids: await ids(q) }).toEqual({ q, ids: [strauss.id] });
    for (const q of ['Jörg Wei', 'Jörg Weis', 'Greta Strau']) expect({ q, ids: await ids(q) }).toEqual({ q, ids: [] });
  });

  it("is provider-scoped: another provider's customer never appears, even with the same name, phone and unit", async () => {
    for (const q of ['Erika Mustermann', '+49 151 33334444', 'erika.other@example.com', foreign.customerNumber!, 'Erika 4B']) {
      const r = await search(q);
      expect(r.body.matches.map((m: any) => m.customer_id)).not.toContain(foreign.id);
    }
    const theirs = await search('Erika Mustermann', '', kit.other.apiKey);
    expect(theirs.body.matches.map((m: any) => m.customer_id)).toEqual([foreign.id]);
    expect(theirs.body.ambiguous).toBe(false);
  });

  it('no match answers 200 with an empty list, not 404', async () => {
    const r = await search('Zacharias Nobody');
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ ambiguous: false, match_count: 0, match_count_capped: false, incomplete: false, matches: [] });
  });

  it('limit caps the list while match_count counts every match', async () => {
    const r = await search('Erika', '&limit=1');
    expect(r.status).toBe(200);
    expect(r.body.match_count).toBe(2);
    expect(r.body.matches).toHaveLength(1);
    expect(r.body.ambiguous).toBe(true);
  });

  it('treats LIKE wildcards in q literally', async () => {
    expect((await search('%%')).body.match_count).toBe(0);
    expect((await search('%_%')).body.match_count).toBe(0);
    expect((await search('E_ik')).body.match_count).toBe(0);
  });

  it('validates q (at least 2 characters) and limit (1..100) with 400 validation_error and details', async () => {
    const cases: [string, string][] = [
      ['?q=E', 'q'],
      ['?q=%20%20E%20', 'q'],
      ['', 'q'],
      ['?q=Erika&limit=0', 'limit'],
      ['?q=Erika&limit=101', 'limit'],
      ['?q=Erika&limit=abc', 'limit'],
    ];
    for (const [qs, field] of cases) {
      const r = await kit.call('GET', `/agent/customers/search${qs}`);
      expectError(r, 400, 'validation_error');
      expect(r.body.error.details.map((d: any) => d.field)).toContain(field);
    }
  });

  it('needs an agent key: missing or wrong key 403 invalid_api_key, key without agent access 403 feature_not_enabled', async () => {
    expectError(await search('Erika', '', null as unknown as string), 403, 'invalid_api_key');
    expectError(await kit.call('GET', '/agent/customers/search?q=Erika', { key: 'sk_abcdefgh_' + 'x'.repeat(40) }), 403, 'invalid_api_key');
    const { createProvider } = await import('../helpers/factories.js');
    const noAgent = await createProvider(kit.t.db, { features: ['provisioning:write'] });
    expectError(await kit.call('GET', '/agent/customers/search?q=Erika', { key: noAgent.apiKey }), 403, 'feature_not_enabled');
  });
});
