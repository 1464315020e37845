/**
 * A simple, documented estimate of how much a secret could be guessed from its own text: its length
 * times the Shannon entropy of its character frequencies, in bits. One repeated character scores 0,
 * "abab…" 1 bit a character; 32 random bytes as base64 score about 200 (never under 170), as hex
 * about 245. It cannot see a secret that is random-looking but public (a published example): it
 * catches the demo-grade values, not every bad one.
 */
export function estimatedBits(secret: string): number {
  const chars = [...secret];
  const counts = new Map<string, number>();
  for (const c of chars) counts.set(c, (counts.get(c) ?? 0) + 1);
  let perChar = 0;
  for (const n of counts.values()) {
    const p = n / chars.length;
    perChar -= p * Math.log2(p);
  }
  return perChar * chars.length;
}
