import { createClientTrustPool } from '@fabric-ops/go-x509';

/** The first CA file that cannot be made into a pool on its own (to name it in the report). */
export function failingFile(pemTexts: readonly string[]): number | undefined {
  for (let i = 0; i < pemTexts.length; i++) {
    try {
      createClientTrustPool([pemTexts[i]!]);
    } catch {
      return i;
    }
  }
  return undefined;
}
