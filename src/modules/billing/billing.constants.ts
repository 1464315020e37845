/** A carried correction reaches an invoice once the sum of the carried amounts is at least this (either way). */
export const MIN_CORRECTION_CENTS = 50;
