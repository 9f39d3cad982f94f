import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseDocument, stringify } from 'yaml';
import { isConfigError } from './errors.ts';
import { dialectFor, type AppKind } from './keys.ts';
import { resolveConfigText } from './load.ts';
import { renderEffectiveConfig } from './print.ts';

const READABLE_LINE = /^(core\.yaml|orderer\.yaml|CORE_[A-Z_]+|ORDERER_[A-Z_]+): [^\n\r]+$/;

/** Loads, or fails with readable one-line problems; anything else (a crash) fails the property. */
function loadsOrExplains(app: AppKind, text: string, env: NodeJS.ProcessEnv = {}): void {
  const file = app === 'peer' ? '/cfg/core.yaml' : '/cfg/orderer.yaml';
  try {
    const resolved = resolveConfigText(app, text, { file, env });
    const { config } = resolved.loaded;
    expect(Number.isInteger(config.operations.listenAddress.port)).toBe(true);
    if (config.metrics.provider === 'statsd') expect(Number.isFinite(config.metrics.statsd.writeIntervalMs)).toBe(true);
    // whatever loaded prints as YAML that loads back the same
    expect(resolveConfigText(app, renderEffectiveConfig(resolved), { file, env: {} }).loaded.config).toEqual(config);
  } catch (error) {
    if (!isConfigError(error)) throw error;
    expect(error.problems.length).toBeGreaterThan(0);
    for (const line of error.problems) {
      expect(line).toMatch(READABLE_LINE);
      expect(line.length).toBeLessThan(400);
    }
  }
}

const apps = fc.constantFrom<AppKind>('peer', 'orderer');

// YAML-ish fragments, so that random text reaches the parser's corners and not just plain scalars
const yamlToken = fc.constantFrom(
  'operations',
  'Operations',
  'metrics',
  'Metrics',
  'tls',
  'TLS',
  'enabled',
  'Enabled',
  'statsd',
  'Statsd',
  'writeInterval',
  'WriteInterval',
  'provider',
  'Provider',
  'statsd',
  'files',
  'clientRootCAs',
  ':',
  ': ',
  '- ',
  '\n',
  '\n  ',
  '\n    ',
  '[',
  ']',
  '{',
  '}',
  ',',
  '"',
  "'",
  '&a ',
  '*a',
  '<<: *a',
  '!!str ',
  '!!binary ',
  '!!int ',
  '#',
  '? ',
  '|',
  '>',
  '---',
  '...',
  'true',
  'yes',
  '10s',
  '0x1F',
  '1e3',
  '~',
  'null',
  '.inf',
  '%YAML 1.2\n',
  '\t',
  '\u00a0',
  '\ufeff',
);

const leafValue = fc.oneof(
  fc.string(),
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.constantFrom('10s', '1m30s', '-5s', '0', 'true', 'yes', 'T', 'statsd', 'prometheus', 'udp', 'tcp', '[a, b]', 'a b', ''),
  fc.array(fc.oneof(fc.string(), fc.integer(), fc.constant(null)), { maxLength: 3 }),
  fc.dictionary(fc.string({ maxLength: 5 }), fc.string(), { maxKeys: 2 }),
);

/** A document with random values at real key paths (and their parents), in random case. */
function documentFor(app: AppKind) {
  const paths = dialectFor(app).keys.flatMap((spec) => spec.path.map((_, i) => spec.path.slice(0, i + 1)));
  return fc.array(fc.tuple(fc.constantFrom(...paths), leafValue, fc.boolean()), { maxLength: 8 }).map((entries) => {
    const document: Record<string, unknown> = {};
    for (const [path, value, shout] of entries) {
      let node = document;
      path.forEach((segment, i) => {
        const key = shout ? segment.toUpperCase() : segment;
        if (i === path.length - 1) node[key] = value;
        else {
          const next = node[key];
          node[key] = typeof next === 'object' && next !== null && !Array.isArray(next) ? next : {};
          node = node[key] as Record<string, unknown>;
        }
      });
    }
    return document;
  });
}

function envFor(app: AppKind) {
  const names = dialectFor(app).keys.map((spec) => spec.envVar);
  return fc.dictionary(fc.constantFrom(...names), fc.oneof(fc.string(), fc.constantFrom('', 'true', 'yes', '10', '10s', 'statsd', '[a,b]')), { maxKeys: 4 });
}

describe('any input loads or explains itself in readable lines, never crashes', () => {
  it('arbitrary text', () => {
    fc.assert(
      fc.property(apps, fc.string({ unit: 'binary', maxLength: 300 }), (app, text) => loadsOrExplains(app, text)),
      { numRuns: 500 },
    );
  });

  it('YAML-shaped token soup', () => {
    fc.assert(
      fc.property(apps, fc.array(yamlToken, { maxLength: 40 }), (app, tokens) => loadsOrExplains(app, tokens.join(''))),
      { numRuns: 1000 },
    );
  });

  it('real key paths holding random values, with random environment overrides', () => {
    fc.assert(
      fc.property(
        apps.chain((app) => fc.tuple(fc.constant(app), documentFor(app), envFor(app))),
        ([app, document, env]) => loadsOrExplains(app, stringify(document), env),
      ),
      { numRuns: 1000 },
    );
  });

  it('the fixtures with one line replaced by random text', () => {
    const fixtures = {
      peer: 'operations:\n  listenAddress: 127.0.0.1:9443\n  tls:\n    enabled: false\nmetrics:\n  provider: statsd\n  statsd:\n    writeInterval: 10s\n',
      orderer: 'Operations:\n  ListenAddress: 127.0.0.1:8443\n  TLS:\n    Enabled: false\nMetrics:\n  Provider: statsd\n  Statsd:\n    WriteInterval: 30s\n',
    };
    fc.assert(
      fc.property(apps, fc.nat(7), fc.string({ maxLength: 30 }), (app, lineIndex, replacement) => {
        const lines = fixtures[app].split('\n');
        const indent = /^\s*/.exec(lines[lineIndex]!)![0];
        lines[lineIndex] = `${indent}${lines[lineIndex]!.trim().split(':')[0]}: ${replacement}`;
        loadsOrExplains(app, lines.join('\n'));
      }),
      { numRuns: 1000 },
    );
  });
});

describe("duplicate keys: the linear check finds what yaml's own quadratic one finds", () => {
  const duplicateLines = (text: string): string[] => {
    try {
      resolveConfigText('peer', text, { file: '/cfg/core.yaml', env: {} });
      return [];
    } catch (error) {
      if (!isConfigError(error)) throw error;
      return error.problems.filter((line) => line.includes('Map keys must be unique'));
    }
  };
  const yamlsOwn = (text: string): string[] =>
    parseDocument(text, { merge: true, uniqueKeys: true, prettyErrors: true })
      .errors.filter((error) => error.code === 'DUPLICATE_KEY')
      .map((error) => `core.yaml: not valid YAML: ${error.message.split('\n')[0]!.replace(/:$/, '')}`);
  const key = fc.constantFrom('a', 'b', '"a"', "'a'", '1', '"1"', '0x1', 'true', 'True', '~', 'null', '!!str a', '? a', '*x', '<<', '.nan', '');

  // The same duplicates; the position may differ where yaml's is a quirk of its tokens (after
  // an empty value it names the end of the previous line), ours is always the key's own.
  it('on maps of repeated keys, nested, flow and block, with other errors mixed in', () => {
    const line = fc.tuple(fc.constantFrom('', '  ', '    '), key, fc.constantFrom(': 1', ': &x a', ': {a: 1, a: 2}', ': [b: 1, b: 2]', ':', ': *x', ': [unclosed'));
    fc.assert(
      fc.property(fc.array(line, { maxLength: 12 }), (lines) => {
        const text = lines.map(([indent, k, rest]) => `${indent}${k}${rest}\n`).join('');
        expect(duplicateLines(text)).toHaveLength(yamlsOwn(text).length);
      }),
      { numRuns: 1000 },
    );
  });
});
