// The word passes read the words as the first pass does: a house number and the one letter after it
// are one word ("7 a": 7a), and a street's kind is one run with the word before it ("Main Street"):
// a field that starts with the run, or an invoice address that holds it whole. Apart, "Street" starts
// no field, so "1 Main Street" fell to the typo pass and matched any street with "Street" in a city
// with "Main" in it; and "7 a Berlin" matched house 7 on "Am Markt" rather than house 7a.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { planSearch, wordPassPlan } from '../../src/modules/subscribers/search.query.js';
import { expectNoLeaks, seedCustomer, setupAgent, type AgentKit, type SeededCustomer } from './helpers.js';

let kit: AgentKit;
let lena: SeededCustomer, pia: SeededCustomer, emil: SeededCustomer, vera: SeededCustomer;
const search = (q: string) => kit.call('GET', `/agent/customers/search?q=${encodeURIComponent(q)}`);
const ids = (r: { body: { matches: { customer_id: string }[] } }) => r.body.matches.map((m) => m.customer_id);

beforeAll(async () => {
  kit = await setupAgent();
  const at = (firstName: string, street: string, houseNumber: string, city: string, unit: string) =>
    seedCustomer(kit, { firstName, lastName: 'Quast', street, houseNumber, city, unit, postalCode: '10999' });
  lena = await at('Lena', 'Main Street', '14', 'Toronto', '2B');
  await at('Olaf', 'Elm Street', '15', 'Frankfurt am Main', '3C');
  pia = await at('Pia', 'Karl-Marx-Straße', '7a', 'Berlin', '5D');
  await at('Rolf', 'Am Markt', '7', 'Berlin', '6D');
  // Served elsewhere, invoiced at Main Street 18.
  emil = await at('Emil', 'Birkenweg', '3', 'Hamburg', '1A');
  await kit.t.db
    .updateTable('subscribers')
    .set({ invoice_street: 'Main Street', invoice_house_number: '18', invoice_postal_code: 'M5V 2T6', invoice_city: 'Toronto' })
    .where('id', '=', emil.id)
    .execute();
  vera = await at('Vera', 'Queen Street East', '12', 'Toronto', '8A');
});
afterAll(async () => {
  await expectNoLeaks(kit);
  await kit.close();
});

describe('word passes: runs of words read as the caller means them', () => {
  it('reads "7 a" as one house number and a street kind with its name', () => {
    const words = (q: string) => {
      const p = wordPassPlan(planSearch(q, ['DE']));
      return p.kind === 'tokens' ? p.tokens.map((t) => t.text) : [];
    };
    expect(words('7 a Berlin')).toEqual(['7a', 'Berlin']);
    expect(words('1 Main Street')).toEqual(['1', 'Main Street']);
    expect(words('100 Queen St. W')).toEqual(['100', 'Queen St', 'W']);
    expect(words('Berliner Str 12 3A')).toEqual(['Berliner Str', '12', '3A']);
    // Only a number takes a letter, and a run takes one kind word.
    expect(words('Anna B Street Road')).toEqual(['Anna', 'B Street', 'Road']);
    expect(words('Street 7')).toEqual(['Street', '7']);
  });

  it('"1 Main Street": on Main Street with a field starting with 1, or invoiced at Main Street', async () => {
    const r = await search('1 Main Street');
    expect(r.status).toBe(200);
    // Emil: invoiced at Main Street 18 (the run whole in its street), unit 1A; Lena: Main Street 14.
    // Not Olaf: Elm Street 15 in Frankfurt am Main has "Main" and "Street", not Main Street.
    expect({ ids: ids(r), incomplete: r.body.incomplete }).toEqual({ ids: [emil.id, lena.id], incomplete: false });
  });

  it('"7 a Berlin": house 7a in Berlin, not house 7 on a street that starts with A', async () => {
    expect(ids(await search('7 a Berlin'))).toEqual([pia.id]);
  });

  it('an abbreviated kind starts the street ("Queen St"), and an invoice address needs it whole', async () => {
    expect(ids(await search('Queen St 8A'))).toEqual([vera.id]);
    // "Main Str" starts Main Street but is not a whole word of Emil's invoice street.
    expect(ids(await search('Main Str 1'))).toEqual([lena.id]);
  });
});
