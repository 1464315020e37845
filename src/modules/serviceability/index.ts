// The serviceability owner: buildings, units and coverage lookups, and the address normalisation
// the inventory import shares.
export { createServiceabilityService } from './serviceability.service.js';
export { coverageColumns } from './address-normalize.js';
export { AutocompleteQuery, AutocompleteResponse, CheckBody, CheckResponse, UnitsQuery, UnitsResponse } from './serviceability.schemas.js';
