// Locations: the partner's lookup of a port location and its occupant.
export { createLocationsService } from './locations.service.js';
export { LocationDetailsResponse, LocationKeyBody, LocationLookupResponse } from './locations.schemas.js';
