// Spellings a speech-to-text agent hears (issue 31 §5): umlauts, their transliterations, accents,
// ß and the forms of "Straße" are folded for names and addresses alike, while names still match as
// whole words and phone, email and customer number as whole values.
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { foldStreet, foldWord } from '../../src/modules/subscribers/search.fold.js';
import { createBuilding } from '../helpers/factories.js';
import { seedCustomer, setupAgent, type AgentKit, type SeededCustomer } from './helpers.js';

let kit: AgentKit;
let jurgen: SeededCustomer;
let jose: SeededCustomer;
let karl: SeededCustomer;

const search = async (q: string) => {
  const r = await kit.call('GET', `/agent/customers/search?q=${encodeURIComponent(q)}`);
  expect(r.status).toBe(200);
  return (r.body.matches as { customer_id: string }[]).map((m) => m.customer_id);
};

beforeAll(async () => {
  kit = await setupAgent();
  const building = await createBuilding(kit.t.db, kit.main.id, {
    street: 'Invalidenstraße',
    houseNumber: '12a',
    postalCode: '10115',
    city: 'Berlin',
    units: ['2E', '3E'],
  });
  jurgen = await seedCustomer(kit, { firstName: 'Jürgen', lastName: 'Falk', building, unit: '2E', email: 'jf@example.com' });
  await seedCustomer(kit, { firstName: 'Jürgen', lastName: 'Falk', building, unit: '3E', email: 'jf2@example.com' });
  jose = await seedCustomer(kit, {
    firstName: 'José',
    lastName: 'Müller-Weiß',
    street: 'Karl-Marx-Str.',
    houseNumber: '5',
    email: 'jose@example.com',
  });
  karl = await seedCustomer(kit, {
    firstName: 'Karl',
    lastName: 'Oehler',
    street: 'Lindenallee',
    houseNumber: '40',
    email: 'karl@example.com',
  });
  await kit.t.db
    .updateTable('subscribers')
    .set({ invoice_street: 'Schönhauser Straße', invoice_house_number: '8', invoice_postal_code: '10437', invoice_city: 'Berlin' })
    .where('id', '=', karl.id)
    .execute();
});
afterAll(() => kit.close());

describe('the search folds spellings (issue 31 §5)', () => {
  it('the database folds exactly as search.fold.ts does (the index and the query agree)', async () => {
    const samples = [
      'Jürgen',
      'Juergen',
      'JÜRGEN',
      'Jurgen',
      'Weiß',
      'Æsop Œuvre',
      'Łukasz Dvořák Ørsted Çelik Şahin Nuñez',
      'ÀÉÎÕÜ àéîõü ĀĒĪŌŪ',
      'Invalidenstraße 12a',
      'Invalidenstrasse 12A',
      'Karl-Marx-Str. 5',
      'Schönhauser  Str 8',
      'Quelle Kuee aae',
    ];
    for (const s of samples) {
      const r = await sql<{ w: string; st: string }>`SELECT agent_search_fold(${s}) AS w, agent_search_fold_street(${s}) AS st`.execute(
        kit.t.db,
      );
      expect({ s, w: r.rows[0]!.w, st: r.rows[0]!.st }).toEqual({ s, w: foldWord(s), st: foldStreet(s) });
    }
    expect(foldWord('Jürgen')).toBe(foldWord('Juergen'));
    expect(foldWord('Jurgen')).toBe(foldWord('Jürgen'));
    expect(foldWord('Weiß')).toBe(foldWord('Weiss'));
    expect(foldStreet('Invalidenstraße 12a')).toBe(foldStreet('invalidenstr. 12a'));
  });

  it.each([
    ['Juergen Falk 2E', 'the transliterated name plus the unit'],
    ['Jurgen Falk 2E', 'the name without its umlaut plus the unit'],
    ['JÜRGEN FALK 2E', 'capitals'],
    ['Falk Juergen 2E', 'another order'],
  ])('"%s" (%s) finds Jürgen Falk in 2E alone', async (q) => {
    expect(await search(q)).toEqual([jurgen.id]);
  });

  it.each([['Juergen Falk'], ['Jurgen Falk'], ['Jürgen Falk']])(
    '"%s" finds both Jürgen Falks (ambiguous, as the name alone is)',
    async (q) => {
      expect((await search(q)).length).toBe(2);
    },
  );

  it.each([
    ['Invalidenstrasse 12a 2E'],
    ['Invalidenstraße 12a 2E'],
    ['Invalidenstr. 12a 2E'],
    ['Invalidenstr 12 2E'],
    ['invalidenstrasse 12A 2E'],
  ])('the service address "%s" finds the customer of the unit', async (q) => {
    expect(await search(q)).toEqual([jurgen.id]);
  });

  it('street forms and umlauts fold on both sides: a street written "Karl-Marx-Str." is found as "Karl Marx Strasse"', async () => {
    expect(await search('Karl Marx Strasse 5')).toEqual([jose.id]);
    expect(await search('Karl-Marx-Straße 5')).toEqual([jose.id]);
    expect(await search('Jose Mueller-Weiss')).toEqual([jose.id]);
    expect(await search('José Muller Weiss')).toEqual([jose.id]);
  });

  it('the invoice address folds too ("Schoenhauser Strasse 8" finds "Schönhauser Straße 8")', async () => {
    expect(await search('Schoenhauser Strasse 8')).toEqual([karl.id]);
    expect(await search('Schönhauser Str. 8')).toEqual([karl.id]);
    // the name folds ae/oe/ue the same way: "Öhler" is "Oehler"
    expect(await search('Karl Öhler')).toEqual([karl.id]);
  });

  it('a street word without a house number finds the street in all its forms (the word pass)', async () => {
    const r = await search('Invalidenstrasse');
    expect(r).toContain(jurgen.id);
    expect(r.length).toBe(2);
  });

  it('privacy holds: a part of a name, even folded, finds nobody; phone and email stay whole values', async () => {
    expect(await search('Juerg')).toEqual([]);
    expect(await search('Jur Falk')).toEqual([]);
    expect(await search('jf@example')).toEqual([]);
    // the database state is untouched by the searches
    const n = await kit.t.db
      .selectFrom('subscribers')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .where('provider_id', '=', kit.main.id)
      .executeTakeFirstOrThrow();
    expect(Number(n.n)).toBe(4);
  });
});
