// The correction threshold, one rule for the plan change that carries a small correction and the billing
// run that settles the carried ones.

/** A carried correction reaches an invoice once the sum of the carried amounts is at least this (either way). */
export const MIN_CORRECTION_CENTS = 50;
