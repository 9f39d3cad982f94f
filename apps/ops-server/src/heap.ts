import { createRequire } from 'node:module';

// What the bins do for memory, and all of it: no V8 option is changed once the process runs
// (node's documentation warns that setting V8 flags after start-up may do nothing or
// crash, and nothing about it is stable across V8 releases). Heap sizing is left to V8's
// defaults or to options the operator gives on the command line or in NODE_OPTIONS; the bins'
// READMEs list those options with their measured effect per Node line. This entry imports only
// node builtins, so a bin can load it before the server's modules.

/**
 * Runs `use` with a CommonJS module that only start-up needs, then drops from require's cache
 * every module that loading it added, so V8's next full collection can free their code and data.
 * The bins read their configuration this way: ops-config with yaml is ~2 MiB of live
 * heap that an ES module import would keep for the life of the process. What `use` returns must be
 * plain data; a function or class instance from the module would keep the whole module graph
 * alive. Modules that were cached before (an embedder's own copy of yaml, say) stay cached.
 */
export function requireForStartup<M, R>(specifier: string, parentUrl: string, use: (loaded: M) => R): R {
  const load = createRequire(parentUrl);
  const cachedBefore = new Set(Object.keys(load.cache));
  try {
    return use(load(specifier) as M);
  } finally {
    for (const id of Object.keys(load.cache)) {
      if (!cachedBefore.has(id)) delete load.cache[id];
    }
  }
}
