import { AppError } from '../../lib/errors.js';

/** The one answer for an unknown id and for another provider's customer (no enumeration). */
export const subscriberNotFound = () =>
  new AppError(404, 'customer_not_found', 'No customer with this id for your provider account', {
    next: { say: 'find the customer_id with', operation: 'customerSearch' },
  });
