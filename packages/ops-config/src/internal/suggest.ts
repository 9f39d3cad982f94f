/** Optimal string alignment distance, case-insensitive: an adjacent swap counts as one edit. */
function editDistance(a: string, b: string): number {
  const x = a.toLowerCase();
  const y = b.toLowerCase();
  const rows: number[][] = Array.from({ length: x.length + 1 }, (_, i) => Array.from({ length: y.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i <= x.length; i += 1) {
    for (let j = 1; j <= y.length; j += 1) {
      const cost = x[i - 1] === y[j - 1] ? 0 : 1;
      let best = Math.min(rows[i - 1]![j]! + 1, rows[i]![j - 1]! + 1, rows[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && x[i - 1] === y[j - 2] && x[i - 2] === y[j - 1]) best = Math.min(best, rows[i - 2]![j - 2]! + 1);
      rows[i]![j] = best;
    }
  }
  return rows[x.length]![y.length]!;
}

/**
 * The known name `written` was probably meant to be: within two edits (one for names of
 * three letters or fewer), the closest first. Keys longer than any real one are not compared.
 */
export function closeName(written: string, known: readonly string[]): string | undefined {
  if (written.length > 64) return undefined;
  let best: { name: string; distance: number } | undefined;
  for (const name of known) {
    const limit = Math.min(name.length, written.length) <= 3 ? 1 : 2;
    const distance = editDistance(written, name);
    if (distance <= limit && (best === undefined || distance < best.distance)) best = { name, distance };
  }
  return best?.name;
}
