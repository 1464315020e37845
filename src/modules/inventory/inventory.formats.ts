// The CSV formats of the inventory import (docs/import.md): the columns of each kind, what each
// holds, and the checks a row passes before anything is written. A check that needs the database
// (does the building exist?) is made per batch by the import service.

export const KINDS = ['buildings', 'units', 'ports', 'addresses'] as const;
export type Kind = (typeof KINDS)[number];

export interface RowError {
  line: number;
  column: string | null;
  reason: string;
}

const LINE_TYPES = ['first_line', 'second_line', 'third_line'] as const;

/** Columns of each kind: required ones first; a file may hold them in any order, and no others. */
const COLUMNS: Record<Kind, { required: string[]; optional: string[] }> = {
  buildings: {
    required: ['ref', 'street', 'house_number', 'postal_code', 'city', 'country'],
    optional: ['province', 'region', 'line_type', 'name', 'in_coverage'],
  },
  units: { required: ['building_ref', 'label'], optional: ['floor'] },
  ports: { required: ['building_ref', 'location_identifier'], optional: ['unit_label', 'switch_id', 'switch_port', 'vlan_id'] },
  addresses: { required: ['street', 'house_number', 'country'], optional: ['postal_code', 'city', 'province', 'building_ref'] },
};

type Raw = Record<string, string | undefined>;

interface BuildingRow {
  ref: string;
  street: string;
  house_number: string;
  postal_code: string;
  city: string;
  province: string | null;
  country: string;
  region: string | null;
  line_type: (typeof LINE_TYPES)[number] | null;
  name: string | null;
  in_coverage: boolean;
}
interface UnitRow {
  building_ref: string;
  label: string;
  floor: number | null;
}
interface PortRow {
  building_ref: string;
  unit_label: string | null;
  location_identifier: string;
  switch_id: string | null;
  switch_port: string | null;
  vlan_id: number | null;
}
export interface AddressRow {
  street: string;
  house_number: string;
  postal_code: string | null;
  city: string | null;
  province: string | null;
  country: string;
  building_ref: string | null;
}
export type RowOf<K extends Kind> = K extends 'buildings'
  ? BuildingRow
  : K extends 'units'
    ? UnitRow
    : K extends 'ports'
      ? PortRow
      : AddressRow;

/** Collects a row's problems while reading its fields. */
class Reader {
  errors: RowError[] = [];
  constructor(
    private raw: Raw,
    private line: number,
  ) {}
  /** One problem per column: the first found (a too-long value is not also reported as malformed). */
  private fail(column: string, reason: string) {
    if (!this.errors.some((e) => e.column === column)) this.errors.push({ line: this.line, column, reason });
  }
  opt(column: string, max = 200): string | null {
    const v = this.raw[column]?.trim() ?? '';
    if (v === '') return null;
    if (v.length > max) this.fail(column, `at most ${max} characters`);
    // eslint-disable-next-line no-control-regex
    if (/[\u0000-\u001f\u007f]/.test(v)) this.fail(column, 'contains a control character');
    return v;
  }
  req(column: string, max = 200): string {
    const v = this.opt(column, max);
    if (v === null) this.fail(column, 'required');
    return v ?? '';
  }
  match(column: string, v: string | null, re: RegExp, what: string) {
    if (v !== null && v !== '' && !re.test(v)) this.fail(column, what);
  }
  int(column: string, min: number, max: number): number | null {
    const v = this.opt(column, 20);
    if (v === null) return null;
    if (!/^-?\d+$/.test(v) || Number(v) < min || Number(v) > max) {
      this.fail(column, `a whole number from ${min} to ${max}`);
      return null;
    }
    return Number(v);
  }
}

const COUNTRY = /^[A-Z]{2}$/;
const REGION = /^[A-Z]{2}(-[A-Z0-9]{1,3})?$/;
const REF = /^[A-Za-z0-9][A-Za-z0-9._/-]{0,99}$/;

const houseNumber = (r: Reader, column: string, v: string) => r.match(column, v, /\d/, 'must contain a number');

/** Checks one record of `kind`; answers the row or its problems (each with line and column). */
export function checkRow<K extends Kind>(kind: K, raw: Raw, line: number): { row: RowOf<K> | null; errors: RowError[] } {
  const r = new Reader(raw, line);
  let row: unknown;
  if (kind === 'buildings') {
    const ref = r.req('ref', 100);
    r.match('ref', ref, REF, 'letters, digits and . _ / - only, starting with a letter or digit');
    const street = r.req('street');
    const house = r.req('house_number', 20);
    houseNumber(r, 'house_number', house);
    const country = r.req('country', 2).toUpperCase();
    r.match('country', country, COUNTRY, 'an ISO 3166-1 alpha-2 code, e.g. DE or CA');
    const region = r.opt('region', 10)?.toUpperCase() ?? null;
    r.match('region', region, REGION, 'an ISO 3166-2 code, e.g. DE-BE or CA-ON');
    const lineType = r.opt('line_type', 20);
    if (lineType !== null && !(LINE_TYPES as readonly string[]).includes(lineType)) {
      r.match('line_type', lineType, /^$/, `one of ${LINE_TYPES.join(', ')} (empty: unclassified)`);
    }
    const inCoverage = r.opt('in_coverage', 5)?.toLowerCase() ?? 'true';
    r.match('in_coverage', inCoverage, /^(true|false)$/, 'true or false');
    row = {
      ref,
      street,
      house_number: house,
      postal_code: r.req('postal_code', 20),
      city: r.req('city', 100),
      province: r.opt('province', 100),
      country,
      region,
      line_type: lineType as BuildingRow['line_type'],
      name: r.opt('name'),
      in_coverage: inCoverage !== 'false',
    } satisfies BuildingRow;
  } else if (kind === 'units') {
    row = { building_ref: r.req('building_ref', 100), label: r.req('label', 50), floor: r.int('floor', -10, 300) } satisfies UnitRow;
  } else if (kind === 'ports') {
    const lid = r.req('location_identifier', 100);
    r.match('location_identifier', lid, REF, 'letters, digits and . _ / - only, starting with a letter or digit');
    row = {
      building_ref: r.req('building_ref', 100),
      unit_label: r.opt('unit_label', 50),
      location_identifier: lid,
      switch_id: r.opt('switch_id', 100),
      switch_port: r.opt('switch_port', 100),
      vlan_id: r.int('vlan_id', 1, 4094),
    } satisfies PortRow;
  } else {
    const house = r.req('house_number', 20);
    houseNumber(r, 'house_number', house);
    const country = r.req('country', 2).toUpperCase();
    r.match('country', country, COUNTRY, 'an ISO 3166-1 alpha-2 code, e.g. DE or CA');
    row = {
      street: r.req('street'),
      house_number: house,
      postal_code: r.opt('postal_code', 20),
      city: r.opt('city', 100),
      province: r.opt('province', 100),
      country,
      building_ref: r.opt('building_ref', 100),
    } satisfies AddressRow;
  }
  return r.errors.length ? { row: null, errors: r.errors } : { row: row as RowOf<K>, errors: [] };
}

/** The header's problems: a required column missing, a column the kind does not know. */
export function checkHeader(kind: Kind, header: string[]): RowError[] {
  const { required, optional } = COLUMNS[kind];
  const out: RowError[] = [];
  for (const c of required) if (!header.includes(c)) out.push({ line: 1, column: c, reason: 'required column missing from the header' });
  for (const c of header) {
    if (!required.includes(c) && !optional.includes(c)) {
      out.push({ line: 1, column: c, reason: `unknown column; ${kind} has ${[...required, ...optional].join(', ')}` });
    }
  }
  return out;
}
