import { execFileSync } from 'node:child_process';
import { basename, resolve } from 'node:path';
import type { Options } from 'tsup';

type TsupPlugin = NonNullable<Options['plugins']>[number];
type EsbuildPlugin = NonNullable<Options['esbuildPlugins']>[number];

/**
 * Every entry of a package but `entry` itself loads `module` (a source file) from the built
 * `entry` (`./<entry>.js` or `./<entry>.cjs` beside it) instead of bundling a copy of it. Each
 * entry is bundled alone (no code splitting), so a module two entries import is otherwise in
 * both, twice: for the error base that made `instanceof FabricOpsError` false for the classes of
 * the main entry. Entries are all built into `dist/` itself, so the path is the same from each.
 */
export function sharedFromEntry(module: string, entry: string, entrySource: string): EsbuildPlugin {
  const modulePath = resolve(module);
  const entryPath = resolve(entrySource);
  return {
    name: 'shared-from-entry',
    setup(build) {
      // The extension this build gives its entries (tsup builds CommonJS through an ES module
      // pass, so the format option says 'esm' for both; the output extension tells them apart).
      const extension = build.initialOptions.outExtension?.['.js'] ?? '.js';
      const named = new RegExp(
        `(^|/)${basename(modulePath)
          .replace(/\.ts$/, '')
          .replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(\\.ts)?$`,
      );
      build.onResolve({ filter: named }, (args) => {
        if (resolve(args.resolveDir, args.path) !== modulePath || args.importer === entryPath) return undefined;
        return { path: `./${entry}${extension}`, external: true };
      });
    },
  };
}

/**
 * Node builtins whose ES module facade costs far more than the builtin: an `import` of one makes
 * Node read every export, lazy ones included, and `http`'s lazy `WebSocket` loads undici (with
 * crypto, tls, http2, zlib, worker_threads, web streams: 71–92 more internal modules on Node
 * 22–26); `fs` and `util` load 30–34 each (`fs.promises`...). `require` reads none of them.
 * Measured with `process.moduleLoadList`: require first, then import, in a fresh process.
 */
const BUILTINS_BY_REQUIRE = new Set(['http', 'fs', 'util']);

/** The ES module build takes these builtins with `require` (a `createRequire` made once per file): same bindings, no facade. */
export function esmBuiltinsByRequire(): TsupPlugin {
  const importStatement = /^import (?:(\{[^}]*\})|\* as ([\w$]+)|([\w$]+)) from ['"](?:node:)?([\w/]+)['"];$/gm;
  return {
    name: 'esm-builtins-by-require',
    renderChunk(code) {
      if (this.format !== 'esm') return undefined;
      let rewritten = false;
      const out = code.replace(importStatement, (statement, named: string | undefined, namespace: string | undefined, defaultName: string | undefined, specifier: string) => {
        if (!BUILTINS_BY_REQUIRE.has(specifier)) return statement;
        rewritten = true;
        // `{ a, b as c }` becomes `{ a, b: c }`; one line for one line, so the source map still holds.
        const target = named !== undefined ? named.replace(/\b([\w$]+) as ([\w$]+)\b/g, '$1: $2') : (namespace ?? defaultName);
        return `const ${target} = __fabricOpsRequire('node:${specifier}');`;
      });
      if (!rewritten) return undefined;
      // Put at the start of the first line, after a bin's shebang line: no new line, so the
      // source map's lines stay where they were.
      const at = out.startsWith('#!') ? out.indexOf('\n') + 1 : 0;
      const require = "import { createRequire as __fabricOpsCreateRequire } from 'node:module'; const __fabricOpsRequire = __fabricOpsCreateRequire(import.meta.url); ";
      return { code: out.slice(0, at) + require + out.slice(at) };
    },
  };
}

function commitSha(): string {
  try {
    return execFileSync('git', ['rev-parse', '--short=7', 'HEAD'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return '';
  }
}

/** One build recipe for every package: ESM + CJS + declarations, dependencies left external. */
export function packageBuild(entry: Record<string, string> = { index: 'src/index.ts' }, extra: Partial<Options> = {}): Options {
  return {
    entry,
    format: ['esm', 'cjs'],
    dts: true,
    sourcemap: true,
    clean: true,
    target: 'node20',
    platform: 'node',
    splitting: false,
    treeshake: true,
    // import.meta.url in the CommonJS build (apps locate their sample config with it)
    shims: true,
    define: { __FABRIC_OPS_COMMIT_SHA__: JSON.stringify(process.env['FABRIC_OPS_BUILD_COMMIT'] ?? commitSha()) },
    ...extra,
    plugins: [esmBuiltinsByRequire(), ...(extra.plugins ?? [])],
  };
}
