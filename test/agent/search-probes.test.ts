// The first pass of the customer search (agent_customer_search, migrations/functions/): the query
// read as a name, an address or a name plus its place, answered from index ranges in one
// statement. Runs on both databases (embedded and real Postgres).
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { planSearch, structuredProbes } from '../../src/modules/subscribers/search.query.js';
import { chooseDriver, pickDriver, searchSql } from '../../src/modules/subscribers/search-words.repository.js';
import { createBuilding, createLocation, createPlanVersion, createSubscriber, createSubscription } from '../helpers/factories.js';
import { expectNoLeaks, seedCustomer, setupAgent, type AgentKit, type SeededCustomer } from './helpers.js';

let kit: AgentKit;
let erikaA: SeededCustomer;
let erikaB: SeededCustomer;
let zoe: SeededCustomer;
let liam: SeededCustomer;
let anna12a: SeededCustomer;
let anna120: SeededCustomer;
let paul12: SeededCustomer;
let ida79: SeededCustomer;
let ole5o: SeededCustomer;
let moved: SeededCustomer;
let li: SeededCustomer;
let lina: SeededCustomer;
let hamburger: SeededCustomer;
let hansInHamburg: SeededCustomer;

const search = async (q: string, extra = '') => {
  const r = await kit.call('GET', `/agent/customers/search?q=${encodeURIComponent(q)}${extra}`);
  expect(r.status).toBe(200);
  return r.body as { ambiguous: boolean; match_count: number; matches: { customer_id: string; service_locations: unknown[] }[] };
};
const ids = async (q: string) => (await search(q)).matches.map((m) => m.customer_id).sort();
const setInvoice = (id: string, street: string, house: string, postal: string, city: string) =>
  kit.t.db
    .updateTable('subscribers')
    .set({ invoice_street: street, invoice_house_number: house, invoice_postal_code: postal, invoice_city: city })
    .where('id', '=', id)
    .execute();

beforeAll(async () => {
  kit = await setupAgent();
  const db = kit.t.db;
  const p = kit.main.id;
  const sonnenweg = await createBuilding(db, p, {
    street: 'Sonnenweg',
    houseNumber: '7',
    postalCode: '10405',
    city: 'Berlin',
    units: ['3A', '4B'],
  });
  erikaA = await seedCustomer(kit, {
    firstName: 'Erika',
    lastName: 'Mustermann',
    building: sonnenweg,
    unit: '3A',
    email: 'erika.a@example.com',
  });
  erikaB = await seedCustomer(kit, {
    firstName: 'Erika',
    lastName: 'Mustermann',
    building: sonnenweg,
    unit: '4B',
    email: 'erika.b@example.com',
  });
  const main594 = await createBuilding(db, p, {
    street: 'Main Street',
    houseNumber: '594',
    postalCode: 'M5V 2T6',
    city: 'Toronto',
    country: 'CA',
    units: ['8C'],
  });
  zoe = await seedCustomer(kit, { firstName: 'Zoë', lastName: 'Koch', building: main594, unit: '8C' });
  const main5940 = await createBuilding(db, p, {
    street: 'Main Street',
    houseNumber: '5940',
    postalCode: 'M5V 2T7',
    city: 'Toronto',
    country: 'CA',
    units: ['8C'],
  });
  liam = await seedCustomer(kit, { firstName: 'Liam', lastName: 'Wilson', building: main5940, unit: '8C' });
  anna12a = await seedCustomer(kit, {
    firstName: 'Anna',
    lastName: 'Schmidt',
    street: 'Bahnhofstraße',
    houseNumber: '12a',
    postalCode: '20095',
    city: 'Hamburg',
    unit: '1A',
  });
  anna120 = await seedCustomer(kit, {
    firstName: 'Anna',
    lastName: 'Becker',
    street: 'Bahnhofstraße',
    houseNumber: '120',
    postalCode: '20095',
    city: 'Hamburg',
    unit: '1A',
  });
  paul12 = await seedCustomer(kit, {
    firstName: 'Paul',
    lastName: 'Weber',
    street: 'Bahnhofstraße',
    houseNumber: '12',
    postalCode: '20095',
    city: 'Hamburg',
    unit: '2B',
  });
  // House numbers that go on after their digits with something other than a letter, or a letter past z.
  ida79 = await seedCustomer(kit, {
    firstName: 'Ida',
    lastName: 'Koch',
    street: 'Bahnhofstraße',
    houseNumber: '7-9',
    postalCode: '20095',
    city: 'Hamburg',
    unit: '1A',
  });
  ole5o = await seedCustomer(kit, {
    firstName: 'Ole',
    lastName: 'Lund',
    street: 'Bahnhofstraße',
    houseNumber: '5ø',
    postalCode: '20095',
    city: 'Hamburg',
    unit: '1A',
  });
  // Invoiced at Rathausstraße 62a, served in unit 3C of Rathausstraße 62c.
  moved = await seedCustomer(kit, {
    firstName: 'Mia',
    lastName: 'Vogel',
    street: 'Rathausstraße',
    houseNumber: '62c',
    postalCode: '20881',
    city: 'Hamburg',
    unit: '3C',
  });
  await setInvoice(moved.id, 'Rathausstraße', '62a', '20881', 'Hamburg');
  li = await seedCustomer(kit, { firstName: 'Li', lastName: 'Wang', street: 'Kantstraße', houseNumber: '3', unit: '4B' });
  lina = await seedCustomer(kit, { firstName: 'Lina', lastName: 'Berg', street: 'Kantstraße', houseNumber: '5', unit: '4B' });
  hamburger = await seedCustomer(kit, {
    firstName: 'Hans',
    lastName: 'Hamburger',
    street: 'Lindenallee',
    houseNumber: '1',
    city: 'Berlin',
    unit: '1',
  });
  hansInHamburg = await seedCustomer(kit, {
    firstName: 'Hans',
    lastName: 'Meyer',
    street: 'Jungfernstieg',
    houseNumber: '9',
    city: 'Hamburg',
    postalCode: '20354',
    unit: '2',
  });
  for (const c of [erikaA, erikaB, zoe, liam, anna12a, anna120, paul12, ida79, ole5o, li, lina, hamburger, hansInHamburg]) {
    await setInvoice(c.id, 'Postfach', String(100 + Math.floor(Math.random() * 800)), '99999', 'Nirgendwo');
  }
  await sql`ANALYZE`.execute(db);
});
afterAll(async () => {
  await expectNoLeaks(kit);
  await kit.close();
});

describe('search, first pass: a name is read in either order, word by whole word', () => {
  it('"First Last", "Last First" and "Last, First" find the same customers; a shortened last name finds nothing', async () => {
    for (const q of ['Erika Mustermann', 'Mustermann Erika', 'Mustermann, Erika']) {
      expect({ q, ids: await ids(q) }).toEqual({ q, ids: [erikaA.id, erikaB.id].sort() });
    }
    expect(await ids('erika muster')).toEqual([]);
  });

  it('one word is a whole first or last name, and match_count counts every match while limit caps the list', async () => {
    const r = await search('Erika', '&limit=1');
    expect({ ambiguous: r.ambiguous, match_count: r.match_count, n: r.matches.length }).toEqual({ ambiguous: true, match_count: 2, n: 1 });
    expect(await ids('Mustermann')).toEqual([erikaA.id, erikaB.id].sort());
  });

  it('answers each match with its service locations, in subscription order', async () => {
    const db = kit.t.db;
    const second = await createBuilding(db, kit.main.id, {
      street: 'Sonnenweg',
      houseNumber: '9',
      postalCode: '10405',
      city: 'Berlin',
      units: ['EG'],
    });
    const plan = await createPlanVersion(db, kit.main.id);
    const loc = await createLocation(db, kit.main.id, second.id, second.units[0]!.id);
    await createSubscription(db, {
      providerId: kit.main.id,
      subscriberId: zoe.id,
      planVersionId: plan.id,
      buildingId: second.id,
      unitId: second.units[0]!.id,
      locationId: loc.id,
      status: 'PENDING',
    });
    const r = await search('Zoë Koch');
    expect(r.matches).toHaveLength(1);
    expect(r.matches[0]!.service_locations).toEqual([
      { address: 'Main Street 594, M5V 2T6 Toronto', unit_label: '8C', subscription_status: 'ACTIVE' },
      { address: 'Sonnenweg 9, 10405 Berlin', unit_label: 'EG', subscription_status: 'PENDING' },
    ]);
  });

  it('a customer without any subscription is found, with no service locations', async () => {
    const lone = await createSubscriber(kit.t.db, kit.main.id, { firstName: 'Olga', lastName: 'Einsam', email: 'olga@einsam.example' });
    const r = await search('Olga Einsam');
    expect(r.matches.map((m) => [m.customer_id, m.service_locations])).toEqual([[lone.id, []]]);
  });
});

describe('search, first pass: street and house number are one key (several street words, either order)', () => {
  it('"Street House Unit" finds the customer in that unit; a street of several words needs no fuzzy pass', async () => {
    expect(await ids('Main Street 594 8C')).toEqual([zoe.id]);
    expect(await ids('Sonnenweg 7 4B')).toEqual([erikaB.id]);
    expect(await ids('Sonnenweg 7, 10405 Berlin, Whg. 3A')).toEqual([erikaA.id]);
  });

  it('the North American order "House Street Unit" works too', async () => {
    expect(await ids('594 Main Street 8C')).toEqual([zoe.id]);
    expect(await ids('594 Main Street, Toronto')).toEqual([zoe.id]);
  });

  it('a house number is exact: "12" finds 12 and 12a but not 120; "12a" and "12 a" find only 12a', async () => {
    expect(await ids('Bahnhofstraße 12')).toEqual([anna12a.id, paul12.id].sort());
    expect(await ids('Bahnhofstraße 12a')).toEqual([anna12a.id]);
    expect(await ids('Bahnhofstraße 12 a')).toEqual([anna12a.id]);
    expect(await ids('Main Street 594')).toEqual([zoe.id]);
    expect(await ids('Bahnhofstraße 7-9')).toEqual([ida79.id]);
    expect(await ids('Bahnhofstraße 5ø')).toEqual([ole5o.id]);
    expect(await ids('Bahnhofstraße 5 ø')).toEqual([ole5o.id]);
  });

  it('the invoice address with its postal code, city or a service unit finds the customer, in any spelling of the street', async () => {
    // Read through the search document's whole words: each place word kind, a street of several words with dots and
    // hyphens, and a postal code with a space.
    await setInvoice(li.id, 'Karl-Marx-Str.', '7b', 'M5V 2T6', 'Sankt Augustin');
    for (const q of ['Karl-Marx-Straße 7b M5V', 'Karl Marx Str 7 b Augustin', 'Karl-Marx-Str. 7b m5v2t6', 'Karl-Marx-Strasse 7b 4B']) {
      expect({ q, ids: await ids(q) }).toEqual({ q, ids: [li.id] });
    }
    for (const q of ['Karl-Marx-Str. 7b 99999', 'Karl-Marx-Str. 7 M5W', 'Marx-Str. 7b Augustin', 'Karl-Marx-Str. 7c Augustin']) {
      expect({ q, ids: await ids(q) }).toEqual({ q, ids: [] });
    }
    const invoiced = await kit.t.db
      .selectFrom('subscribers')
      .select(['id', 'invoice_house_number'])
      .where('invoice_street', '=', 'Postfach')
      .execute();
    expect(invoiced.length).toBeGreaterThan(5);
    for (const c of invoiced) {
      expect(await ids(`Postfach ${c.invoice_house_number} 99999`)).toContain(c.id);
      expect(await ids(`Postfach ${c.invoice_house_number} Nirgendwo`)).toContain(c.id);
    }
  });

  it("the invoice address with the unit of the customer's service location finds the customer", async () => {
    expect(await ids('Rathausstraße 62a 3C')).toEqual([moved.id]);
    expect(await ids('Rathausstraße 62c 3C')).toEqual([moved.id]);
    expect(await ids('Rathausstraße 62a 4B')).toEqual([]);
  });

  it('a name before the address narrows it ("Mustermann, Sonnenweg 7" and "Erika Mustermann Sonnenweg 7 4B")', async () => {
    expect(await ids('Schmidt Bahnhofstraße 12')).toEqual([anna12a.id]);
    expect(await ids('Erika Mustermann Sonnenweg 7 4B')).toEqual([erikaB.id]);
  });
});

describe('search, first pass: a name narrowed by its place', () => {
  it('"Name Unit" and "Name unit 4B" find the one customer in that unit', async () => {
    for (const q of ['Erika Mustermann 4B', 'Erika Mustermann unit 4B', 'Mustermann 3A', 'Erika 4b']) {
      const r = await search(q);
      expect({ q, n: r.match_count }).toEqual({ q, n: 1 });
    }
  });

  it('its house number is exact too: "Anna 12" finds house 12a, not 120; "Anna 1A" both in unit 1A', async () => {
    expect(await ids('Anna 12')).toEqual([anna12a.id]);
    expect(await ids('Anna 12a')).toEqual([anna12a.id]);
    expect(await ids('Anna 120')).toEqual([anna120.id]);
    expect(await ids('Anna 1A')).toEqual([anna12a.id, anna120.id].sort());
  });

  it('a name is a whole first or last name there, not a prefix ("Li 4B" is not Lina, "Lin 4B" nobody)', async () => {
    expect(await ids('Li 4B')).toEqual([li.id]);
    expect(await ids('Lina 4B')).toEqual([lina.id]);
    expect(await ids('Lin 4B')).toEqual([]);
  });
});

describe('search: the passes answer in turn', () => {
  it('the first pass answers alone when it finds someone: a name reading hides any-field matches', async () => {
    // "Hans Hamburger" is a full name; "Hans Hamburg" is not Hans Hamburger's name (a name word
    // matches whole), so the second pass answers it: Hans Meyer of Hamburg (first name + city).
    expect(await ids('Hans Hamburger')).toEqual([hamburger.id]);
    expect(await ids('Hans Hamburg')).toEqual([hansInHamburg.id]);
    expect(await ids('Meyer Hamburg')).toEqual([hansInHamburg.id]);
  });

  it('when the first pass finds nothing, every word against every field answers, then the fuzzy pass', async () => {
    expect(await ids('Erika Berlin 4B')).toEqual([erikaB.id]); // first name + building city + unit
    expect(await ids('Jungfernstieg')).toEqual([hansInHamburg.id]); // a street alone
    expect(await ids('Mustermnn 4B')).toEqual([erikaB.id]); // a typo
  });

  it('a phone number typed in a country the provider only just started to serve is found', async () => {
    // The provider's countries are reused for a minute; a phone search that finds nothing reads
    // them again before answering. The other provider serves Germany only at first.
    const other = kit.other;
    const byOther = async (q: string) =>
      (await kit.call('GET', `/agent/customers/search?q=${encodeURIComponent(q)}`, { key: other.apiKey })).body;
    await seedCustomer(kit, {
      provider: other,
      firstName: 'Jonas',
      lastName: 'Berliner',
      street: 'Torstraße',
      houseNumber: '1',
      phone: '+49 151 44445555',
    });
    expect((await byOther('(416) 555-0199')).match_count).toBe(0);
    const ca = await createBuilding(kit.t.db, other.id, {
      street: 'King Street West',
      houseNumber: '100',
      postalCode: 'M5X 1A9',
      city: 'Toronto',
      country: 'CA',
      units: ['1201'],
    });
    const caller = await seedCustomer(kit, {
      provider: other,
      firstName: 'Noah',
      lastName: 'Tremblay',
      building: ca,
      unit: '1201',
      phone: '+1 416 555 0199',
    });
    expect((await byOther('(416) 555-0199')).matches.map((m: { customer_id: string }) => m.customer_id)).toEqual([caller.id]);
  });
});

describe('search, second pass: the most selective word drives, the others are checked per customer', () => {
  it("any word may drive: the matches are the same (the intersection of every word's set)", async () => {
    for (const q of ['Erika Berlin 4B', 'Meyer Hamburg', 'Sonnenweg 3A', 'Anna Hamburg 1A', 'Mustermnn 4B']) {
      const plan = planSearch(q, ['DE']);
      const n = plan.kind === 'tokens' ? plan.tokens.length : 1;
      for (const fuzzy of [false, true]) {
        const answers: string[][] = [];
        for (let driver = 0; driver < n; driver++) {
          const r = await searchSql(kit.main.id, plan, 100, fuzzy, driver).execute(kit.t.db);
          answers.push(r.rows.map((row) => row.id).sort());
        }
        expect({ q, fuzzy, answers }).toEqual({ q, fuzzy, answers: answers.map(() => answers[0]) });
      }
    }
    expect(await ids('Sonnenweg 3A')).toEqual([erikaA.id]);
    expect(await ids('Anna Hamburg 1A')).toEqual([anna12a.id, anna120.id].sort());
  });

  it('a name whose customers match by first name and by email counts each customer once, so it drives whichever word comes first', async () => {
    // Two Annikas whose emails start with "annika" too: four index rows, two customers. "4B" names
    // three units' subscriptions and locations: past a cap of 3. Counted once per field, both
    // words would reach the cap and tie, and the first word of q would drive.
    for (const n of [1, 2]) {
      await createSubscriber(kit.t.db, kit.main.id, {
        firstName: 'Annika',
        lastName: `Driver${n}`,
        email: `annika.driver${n}@example.test`,
      });
    }
    for (const q of ['4B Annika', 'Annika 4B']) {
      const plan = planSearch(q, ['DE']);
      const annika = plan.kind === 'tokens' ? plan.tokens.findIndex((t) => t.text.toLowerCase() === 'annika') : -1;
      expect(annika).toBeGreaterThanOrEqual(0);
      // (Words the search document narrows need no driver: this is the order where it does not serve.)
      expect({ q, driver: await chooseDriver(kit.t.db, kit.main.id, plan, false, 3, 'driver') }).toEqual({ q, driver: annika });
    }
  });

  it('the driver is the word with the fewest matches (the first of equals)', () => {
    expect(pickDriver([2001, 40, 2001])).toBe(1);
    expect(pickDriver([7, 7])).toBe(0);
  });
});

describe('structuredProbes (the readings of q, no I/O)', () => {
  const probes = (q: string) => structuredProbes(planSearch(q, ['DE']));

  it('reads a name, an address in both orders and a name plus place; "12 a" is one house number', () => {
    expect(probes('Erika Mustermann')).toEqual([{ kind: 'name', names: ['erika', 'mustermann'] }]);
    expect(probes('Mustermann')).toEqual([{ kind: 'name', names: ['mustermann'] }]);
    expect(probes('Meyer-Schulz')).toEqual([{ kind: 'name', names: ['meyer', 'schulz'] }]);
    expect(probes('Main Street 594 8C')).toEqual([
      { kind: 'address', key: 'Main Street 594', house: '594', tokens: ['8C'] },
      { kind: 'address', key: 'Street 594', house: '594', tokens: ['8C'], names: ['main'] },
      { kind: 'name_location', names: ['main', 'street'], tokens: ['594', '8C'] },
    ]);
    expect(probes('12 a Hauptstraße')).toEqual([{ kind: 'address', key: 'Hauptstraße 12', house: '12a', tokens: [] }]);
  });

  it('has no reading for a query the second pass answers (a lone number, more than four place words, mixed kinds)', () => {
    expect(probes('10405')).toEqual([]);
    // Five place words after "Erika": no name-plus-place reading; the address reading has four.
    expect(probes('Erika 7 a1 b1 c1 d1')).toEqual([{ kind: 'address', key: 'Erika 7', house: '7', tokens: ['a1', 'b1', 'c1', 'd1'] }]);
    expect(probes('Erika erika@example.com')).toEqual([]);
  });

  it('reads phone numbers, emails and customer numbers as whole values only', () => {
    expect(probes('Erika.A@Example.com')).toEqual([{ kind: 'email', key: 'erika.a@example.com' }]);
    expect(probes('erika.a @ example.com')).toEqual([{ kind: 'email', key: 'erika.a@example.com' }]);
    expect(probes('abcd1234')).toEqual([{ kind: 'number', key: 'ABCD-1234' }]);
    expect(probes('ABCD - 1234')).toEqual([{ kind: 'number', key: 'ABCD-1234' }]);
    expect(probes('0151 2345 6789')).toEqual([{ kind: 'phone', key: '+4915123456789' }]);
    // Too short to be a number: no phone reading at all (a longer part is another, whole number).
    expect(probes('+4915').map((p) => p.kind)).not.toContain('phone');
  });
});
