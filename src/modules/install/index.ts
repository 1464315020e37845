// The install owner: install jobs (booking, shipping, technician visits) and their job kinds.
export { createBookingService } from './booking.service.js';
export { createShippingService } from './shipping.service.js';
export { raiseInstallJob, registerInstallJobs } from './install.jobs.js';
export { cancelOpenInstallJobs, lockInstallJobOfSubscription, updateInstallJob } from './install.repository.js';
export type { ShippingService } from './shipping.service.js';
export type { BookingView } from './booking.service.js';
