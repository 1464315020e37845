import { z } from 'zod';
import { AddressParts } from '../../lib/address.schemas.js';

export const LocationKeyBody = z
  .object({
    location_hash: z
      .string()
      .max(200)
      .nullish()
      .describe('The location hash (e.g. from a captive-portal redirect); preferred, wins when both are sent'),
    location_identifier: z.string().max(200).nullish().describe('The printed location identifier (e.g. "LID-7KQ2M9XA")'),
  })
  .describe('Send location_hash or location_identifier; neither answers 422 `Provide location_hash or location_identifier`');

export const LocationLookupResponse = z.object({
  street: z.string().nullable(),
  house_number: z.string().nullable(),
  postal_code: z.string().nullable(),
  city: z.string().nullable(),
  province: z.string().nullable(),
  country: z.string().nullable().describe('ISO 3166-1 alpha-2'),
  unit_label: z.string().nullable().describe('Unit (suite) label; null for a location without a unit'),
  location_identifier: z.string().describe('Identifying field 1: the printed location identifier'),
  building_id: z.uuid().describe('Identifying field 2: the building, as used by serviceability and provisioning'),
  unit_id: z.uuid().nullable().describe('Identifying field 3: the unit (suite), as used by provisioning (home_drop)'),
});

export const LocationDetailsResponse = z.object({
  location_id: z.uuid(),
  provider_id: z.uuid(),
  location_hash: z.string(),
  location_identifier: z.string(),
  switch_id: z.string().nullable(),
  switch_port: z.string().nullable(),
  vlan_id: z.number().int().nullable(),
  created_at: z.string().describe('RFC 3339 UTC'),
  building: z.object({
    building_id: z.uuid(),
    name: z.string().nullable(),
    ...AddressParts,
    region: z.string().nullable(),
    line_type: z.enum(['first_line', 'second_line', 'third_line']).nullable().describe('null = unclassified'),
    in_coverage: z.boolean(),
  }),
  unit: z.object({ unit_id: z.uuid(), label: z.string(), floor: z.number().int().nullable() }).nullable(),
  occupied: z
    .boolean()
    .describe(
      'A pending, pending-install, active or suspended subscription holds this location, or a cancelled one whose ended_at has not come',
    ),
  subscription_id: z.uuid().nullable().describe('That subscription'),
  subscription_status: z.string().nullable(),
});
