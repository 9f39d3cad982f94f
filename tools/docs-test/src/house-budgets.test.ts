// The house's size budgets, as ARCHITECTURE.md states them: every entry of a published package
// (each key of its `exports` map) offers at most 20 names, so a reader learns an entry from its
// index; ops-tls-auth, which serves TLS and nothing else, stays under 2,000 source lines.
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const repoRoot = resolve(import.meta.dirname, '../../..');
const MAX_NAMES_PER_ENTRY = 20;
const MAX_TLS_AUTH_LINES = 2_000;

/** The names an entry file exports: each in an `export { … }` / `export type { … }` list, and each exported declaration. */
function exportedNames(source: string): string[] {
  const names: string[] = [];
  for (const list of source.matchAll(/export\s+(?:type\s+)?\{([^}]*)\}/g)) {
    for (const item of list[1]!.split(',')) {
      const name = item
        .trim()
        .replace(/^type\s+/, '')
        .split(/\s+as\s+/)
        .pop()!
        .trim();
      if (name !== '') names.push(name);
    }
  }
  for (const declaration of source.matchAll(/export\s+(?:declare\s+)?(?:async\s+)?(?:function\*?|const|let|class|interface|type|enum)\s+(\w+)/g)) names.push(declaration[1]!);
  return names;
}

interface Entry {
  readonly pkg: string;
  readonly entry: string;
  readonly source: string;
}

function publishedEntries(): Entry[] {
  const entries: Entry[] = [];
  for (const group of ['packages', 'apps']) {
    for (const dir of readdirSync(join(repoRoot, group))) {
      let manifest: { name: string; private?: boolean; exports?: Record<string, unknown> };
      try {
        manifest = JSON.parse(readFileSync(join(repoRoot, group, dir, 'package.json'), 'utf8'));
      } catch {
        continue;
      }
      if (manifest.private === true) continue;
      for (const [entry, target] of Object.entries(manifest.exports ?? {})) {
        const file = (target as Record<string, unknown> | null)?.['@fabric-ops/source'];
        if (typeof file === 'string') entries.push({ pkg: manifest.name, entry, source: readFileSync(join(repoRoot, group, dir, file), 'utf8') });
      }
    }
  }
  return entries;
}

describe('house budgets', () => {
  it('counts the names of export lists and declarations, types included', () => {
    const names = exportedNames("export { a, b as c } from './x.ts';\nexport type { T, type U } from './y.ts';\nexport function f() {}\nexport interface I {}\nexport const k = 1;\n");
    expect(names).toEqual(['a', 'c', 'T', 'U', 'f', 'I', 'k']);
  });

  it(`every published entry offers at most ${MAX_NAMES_PER_ENTRY} names, and none re-exports a whole module`, () => {
    const entries = publishedEntries();
    expect(entries.map((e) => e.pkg)).toContain('@fabric-ops/ops-tls-auth');
    const over = entries.map((e) => ({ at: `${e.pkg} ${e.entry}`, names: exportedNames(e.source).length })).filter((e) => e.names > MAX_NAMES_PER_ENTRY);
    expect(over).toEqual([]);
    expect(entries.filter((e) => /export\s+\*/.test(e.source)).map((e) => `${e.pkg} ${e.entry}`)).toEqual([]);
  });

  it(`ops-tls-auth stays under ${MAX_TLS_AUTH_LINES.toLocaleString('en')} source lines (tests apart)`, () => {
    const src = join(repoRoot, 'packages/ops-tls-auth/src');
    const files = readdirSync(src, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts'));
    expect(files.length).toBeGreaterThan(5);
    const lines = files.reduce((sum, f) => sum + readFileSync(join(src, f), 'utf8').split('\n').length - 1, 0);
    expect(lines).toBeGreaterThan(1_000);
    expect(lines).toBeLessThan(MAX_TLS_AUTH_LINES);
  });
});
