import type { Insertable } from 'kysely';
import type { DB } from '../db/types.js';
import { newId, randomAlnum, randomToken } from '../lib/ids.js';
import { coverageColumns } from '../modules/serviceability/index.js';
import type { Country } from './people.js';

type LineType = 'first_line' | 'second_line' | 'third_line' | null;

export interface BuildingSpec {
  key: string;
  street: string;
  houseNumber: string; // as written: "12a", "12 A"
  postalCode: string;
  city: string;
  province: string | null;
  country: Country;
  region: string;
  lineType: LineType;
  floors: number;
  unitsPerFloor: number;
}

/**
 * The IANA zone of each demo region, as the regions table (seeded by the baseline migration)
 * holds it: installation windows are offered in the building's local time.
 */
export const REGION_TIME_ZONES: Record<string, string> = { 'DE-BE': 'Europe/Berlin', 'DE-HH': 'Europe/Berlin', 'CA-ON': 'America/Toronto' };

// The city, province, country and region of each place the demo builds in, written once.
const BERLIN = { city: 'Berlin', province: 'Berlin', country: 'DE', region: 'DE-BE' } as const;
const HAMBURG = { city: 'Hamburg', province: 'Hamburg', country: 'DE', region: 'DE-HH' } as const;
const TORONTO = { city: 'Toronto', province: 'ON', country: 'CA', region: 'CA-ON' } as const;

// The four named buildings of the document come first; the rest carry volume only.
// Two German spellings of a suffixed house number ("12a" fused, "12 A" separated) and a Canadian
// suffixed number with an A1A 1A1 postcode exercise the serviceability normalisation.
export const MAIN_BUILDINGS: BuildingSpec[] = [
  {
    key: 'first_line',
    street: 'Invalidenstraße',
    houseNumber: '12a',
    postalCode: '10115',
    ...BERLIN,
    lineType: 'first_line',
    floors: 6,
    unitsPerFloor: 8,
  },
  {
    key: 'second_line',
    street: 'Torstraße',
    houseNumber: '101',
    postalCode: '10119',
    ...BERLIN,
    lineType: 'second_line',
    floors: 5,
    unitsPerFloor: 8,
  },
  {
    key: 'third_line',
    street: 'Spadina Avenue',
    houseNumber: '88B',
    postalCode: 'M5V 2T6',
    ...TORONTO,
    lineType: 'third_line',
    floors: 8,
    unitsPerFloor: 5,
  },
  {
    key: 'unclassified',
    street: 'Chausseestraße',
    houseNumber: '12 A',
    postalCode: '10115',
    ...BERLIN,
    lineType: null,
    floors: 4,
    unitsPerFloor: 6,
  },
  {
    key: 'schoenhauser',
    street: 'Schönhauser Allee',
    houseNumber: '36',
    postalCode: '10435',
    ...BERLIN,
    lineType: 'first_line',
    floors: 7,
    unitsPerFloor: 8,
  },
  {
    key: 'kastanien',
    street: 'Kastanienallee',
    houseNumber: '12',
    postalCode: '10435',
    ...BERLIN,
    lineType: 'second_line',
    floors: 5,
    unitsPerFloor: 6,
  },
  {
    key: 'sonnen',
    street: 'Sonnenallee',
    houseNumber: '221 C',
    postalCode: '12059',
    ...BERLIN,
    lineType: 'third_line',
    floors: 5,
    unitsPerFloor: 6,
  },
  {
    key: 'queen',
    street: 'Queen Street West',
    houseNumber: '401',
    postalCode: 'M5V 2A5',
    ...TORONTO,
    lineType: 'first_line',
    floors: 10,
    unitsPerFloor: 4,
  },
  {
    key: 'warschauer',
    street: 'Warschauer Straße',
    houseNumber: '34',
    postalCode: '10243',
    ...BERLIN,
    lineType: 'first_line',
    floors: 6,
    unitsPerFloor: 8,
  },
  { key: 'hafen', street: 'Hafenstraße', houseNumber: '8', postalCode: '20359', ...HAMBURG, lineType: null, floors: 4, unitsPerFloor: 6 },
];

export const OTHER_BUILDING: BuildingSpec = {
  key: 'other',
  street: 'Bergmannstraße',
  houseNumber: '5',
  postalCode: '10961',
  ...BERLIN,
  lineType: 'first_line',
  floors: 3,
  unitsPerFloor: 4,
};

// Addresses in coverage without a building record yet (not orderable): autocomplete shows them.
export const LOOSE_COVERAGE: Omit<BuildingSpec, 'key' | 'region' | 'lineType' | 'floors' | 'unitsPerFloor'>[] = [
  { street: 'Invalidenstraße', houseNumber: '14', postalCode: '10115', ...BERLIN },
  { street: 'Invalidenstraße', houseNumber: '12b', postalCode: '10115', ...BERLIN },
  { street: 'Torstraße', houseNumber: '103', postalCode: '10119', ...BERLIN },
  { street: 'Spadina Avenue', houseNumber: '90', postalCode: 'M5V 2T6', ...TORONTO },
];

type AddressParts = Pick<BuildingSpec, 'street' | 'houseNumber' | 'postalCode' | 'city' | 'province' | 'country'>;

/** A coverage row through the serviceability module's own normalisation (what its queries expect). */
export function coverageRow(providerId: string, buildingId: string | null, a: AddressParts): Insertable<DB['coverage_addresses']> {
  return {
    id: newId(),
    provider_id: providerId,
    building_id: buildingId,
    street: a.street,
    house_number: a.houseNumber,
    city: a.city,
    province: a.province,
    ...coverageColumns(a),
    orderable: buildingId !== null,
  };
}

export interface BuiltBuilding {
  spec: BuildingSpec;
  id: string;
  address: string;
  units: { id: string; label: string; floor: number }[];
}

export function buildingRows(providerId: string, spec: BuildingSpec) {
  const id = newId();
  const building: Insertable<DB['buildings']> = {
    id,
    provider_id: providerId,
    name: null,
    street: spec.street,
    house_number: spec.houseNumber,
    postal_code: spec.postalCode,
    city: spec.city,
    province: spec.province,
    country: spec.country,
    region: spec.region,
    line_type: spec.lineType,
    in_coverage: true,
  };
  const units: BuiltBuilding['units'] = [];
  for (let floor = 1; floor <= spec.floors; floor++) {
    for (let n = 1; n <= spec.unitsPerFloor; n++) {
      // German flats are "3B"; Canadian suites are "304".
      const label = spec.country === 'CA' ? `${floor}${String(n).padStart(2, '0')}` : `${floor}${'ABCDEFGH'[n - 1]}`;
      units.push({ id: newId(), label, floor });
    }
  }
  const coverage = coverageRow(providerId, id, spec);
  // The one-line address as the coverage index displays it (house number normalised: "12 A" → "12A").
  const built: BuiltBuilding = { spec, id, address: coverage.display, units };
  return {
    built,
    building,
    unitRows: units.map((u): Insertable<DB['units']> => ({ id: u.id, building_id: id, label: u.label, floor: u.floor })),
    coverage,
  };
}

/** A switch port of a unit; `location_hash` is the captive-portal identifier of the port. */
export function locationRow(providerId: string, buildingId: string, unitId: string | null, portIndex: number): Insertable<DB['locations']> {
  return {
    id: newId(),
    provider_id: providerId,
    building_id: buildingId,
    unit_id: unitId,
    location_hash: `loc_${randomToken(16)}`,
    location_identifier: `LID-${randomAlnum(8).toUpperCase()}`,
    switch_id: `sw-${buildingId.slice(0, 4)}-${1 + Math.floor(portIndex / 48)}`,
    switch_port: `ge-0/0/${portIndex % 48}`,
    vlan_id: 100 + (portIndex % 3900),
  };
}
