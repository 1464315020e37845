import { z } from 'zod';

/** The postal parts of an address as responses show them: every part nullable (render defensively). */
export const AddressParts = {
  street: z.string().nullable(),
  house_number: z.string().nullable(),
  postal_code: z.string().nullable(),
  city: z.string().nullable(),
  province: z.string().nullable(),
  country: z.string().nullable(),
};
