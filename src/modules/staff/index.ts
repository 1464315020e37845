// Staff: a provider's staff (the users with a provider role): invite, list, change role, remove. The
// users rows are written through auth.
export { createStaffService } from './staff.service.js';
export { SP_ROLES } from './staff.service.js';
