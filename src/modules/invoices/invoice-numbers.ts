import { randomInt } from 'node:crypto';

const ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789';
const random = (n: number) => Array.from({ length: n }, () => ALPHABET[randomInt(ALPHABET.length)]).join('');

/** "INV-202611-7KQ2M9XA": the billed month, then 8 random characters (unique index backs it). */
export const invoiceNumber = (month: string): string => `INV-${month.slice(0, 4)}${month.slice(5, 7)}-${random(8)}`;

/** "CN-202611-7KQ2M9XA" */
export const creditNoteNumber = (month: string): string => `CN-${month.slice(0, 4)}${month.slice(5, 7)}-${random(8)}`;

/**
 * The billing system's id of the document a local invoice is issued as. The adapter contract has
 * no "issue document" call (the simulator keeps no document store), so the id is minted here in
 * the billing system's format and stored on billing_documents (see docs/decisions.md).
 */
export const externalDocumentId = (): string => `bdoc_${random(16).toLowerCase()}`;
