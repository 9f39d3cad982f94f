import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it, vi } from 'vitest';

// `@fabric-ops/ops-logspec/spec` (parseSpec, formatSpec, normaliseSpec, errors) must work
// where pino, the package's peer dependency, is not installed.

const dist = fileURLToPath(new URL('../dist/', import.meta.url));
const opsHttpDist = fileURLToPath(new URL('../../ops-http/dist/', import.meta.url));
const packageJson = JSON.parse(readFileSync(fileURLToPath(new URL('../package.json', import.meta.url)), 'utf8')) as {
  exports: Record<string, unknown>;
};

describe('the ./spec entry', () => {
  it('is exported, and ./internal/* is blocked', () => {
    expect(packageJson.exports['./spec']).toMatchObject({ import: { default: './dist/spec.js' }, require: { default: './dist/spec.cjs' } });
    expect(packageJson.exports['./internal/*']).toBeNull();
  });

  it('loads from source with pino made unloadable', async () => {
    vi.doMock('pino', () => {
      throw new Error('pino must not be loaded by the spec entry');
    });
    const spec = await import('../src/spec.ts');
    expect(spec.normaliseSpec('b=warn:a=error')).toBe('a=error:b=warn:info');
    // The block is a real one: pino itself cannot be imported...
    await expect(import('pino')).rejects.toThrow(/error when mocking|pino must not be loaded/);
    // ...and the main entry loads all the same: it loads pino only inside createLogging.
    const main = await import('../src/index.ts');
    expect(main.createLogLevels({ spec: 'a=debug' }).levelOf('a.b')).toBe('debug');
    vi.doUnmock('pino');
  });

  it.each(['spec.js', 'spec.cjs'])('built %s runs where only its dependency ops-http is installed (no logger library)', (file) => {
    // `pnpm test` builds before testing; the built file is what a user installs.
    expect(existsSync(join(dist, file))).toBe(true);
    const dir = mkdtempSync(join(tmpdir(), 'logspec-no-pino-'));
    copyFileSync(join(dist, file), join(dir, file));
    // ops-http's error base, the one import of the entry: its built `./errors` entry alone.
    const opsHttp = join(dir, 'node_modules', '@fabric-ops', 'ops-http');
    mkdirSync(join(opsHttp, 'dist'), { recursive: true });
    for (const built of ['errors.js', 'errors.cjs']) copyFileSync(join(opsHttpDist, built), join(opsHttp, 'dist', built));
    const errorsEntry = { import: './dist/errors.js', require: './dist/errors.cjs' };
    writeFileSync(join(opsHttp, 'package.json'), JSON.stringify({ name: '@fabric-ops/ops-http', type: 'module', exports: { './errors': errorsEntry } }));
    const script = join(dir, file.endsWith('.cjs') ? 'check.cjs' : 'check.mjs');
    const load = file.endsWith('.cjs') ? `const m = require('./${file}');` : `const m = await import('./${file}');`;
    writeFileSync(
      script,
      `${file.endsWith('.cjs') ? '(async () => {' : ''}${load}
let code = '';
try { m.parseSpec('a*=info'); } catch (e) { code = m.isLogspecError(e) ? e.code : 'other'; }
process.stdout.write(JSON.stringify([m.normaliseSpec('b=warn:a=error'), code]));${file.endsWith('.cjs') ? '})();' : ''}`,
    );
    const out = execFileSync(process.execPath, [script], { cwd: dir, encoding: 'utf8' });
    expect(JSON.parse(out)).toEqual(['a=error:b=warn:info', 'BAD_LOGGER_NAME']);
  });
});
