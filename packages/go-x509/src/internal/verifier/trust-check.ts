import { createClientTrustPool } from '@fabric-ops/go-x509';

/** Why a set of CA texts cannot be made into a pool, and the first file that cannot on its own (to name it). */
export interface TrustProblem {
  readonly message: string;
  readonly fileIndex: number | undefined;
}

/** The first CA file that cannot be made into a pool on its own. */
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

/** Undefined when Go's rules can build a pool from these texts. */
export function trustProblem(pemTexts: readonly string[]): TrustProblem | undefined {
  try {
    createClientTrustPool(pemTexts);
    return undefined;
  } catch (error) {
    return { message: (error as Error).message, fileIndex: failingFile(pemTexts) };
  }
}
