import { z } from 'zod';

// The partner surface's error body `{detail}`. Two wordings of the same shape, as the partner document
// has described them since the first release (the OpenAPI stays byte-identical).
export const Detail = z.object({ detail: z.string() }).describe('Error');
export const ReadableDetail = z.object({ detail: z.string().describe('What went wrong, readable') }).describe('Error');
