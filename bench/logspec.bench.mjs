// ops-logspec: the cost of a log call through the registry vs plain pino, and of activating a
// spec over 10,000 registered loggers. Run with `node bench/run.mjs logspec` after `pnpm build`.
import './lib/fail.mjs';
import { createRequire } from 'node:module';
import { createLogging } from '@fabric-ops/ops-logspec';
import { forceGc } from './lib/gc.mjs';

// pino is ops-logspec's peer dependency; take the very copy the registry uses.
const requireFromPackage = createRequire(import.meta.resolve('@fabric-ops/ops-logspec'));
const { pino } = requireFromPackage('pino');

// Both sides write to the same sink, which drops every line.
const sink = { write() {} };

function nsPerCall(fn, calls) {
  const start = process.hrtime.bigint();
  fn(calls);
  return Number(process.hrtime.bigint() - start) / calls;
}

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
};

// Interleaves the two sides round by round so that machine noise hits both alike. Each side's loop
// is written out where it is compared: one loop shared by all would be one call site seeing every
// kind of logger (polymorphic), not what an application's call site sees.
function compare(label, calls, rounds, baseline, subject) {
  for (let i = 0; i < 3; i++) {
    baseline(calls / 10);
    subject(calls / 10);
  }
  const base = [];
  const ours = [];
  for (let r = 0; r < rounds; r++) {
    base.push(nsPerCall(baseline, calls));
    ours.push(nsPerCall(subject, calls));
  }
  const b = median(base);
  const o = median(ours);
  console.log(`${label.padEnd(44)} registry ${o.toFixed(2).padStart(8)} ns   pino ${b.toFixed(2).padStart(8)} ns   ratio ${(o / b).toFixed(2)}x`);
  return o / b;
}

const plain = pino({ level: 'info', base: null }, sink);
const plainChild = plain.child({ channel: 'mychannel' });
const logging = createLogging({ format: 'json', destination: sink, spec: 'info' });
const ours = logging.getLogger('gossip.privdata');
const oursChild = ours.child({ channel: 'mychannel' });

console.log(`node ${process.version}, pino ${pino.version}; median of interleaved rounds`);
const disabledRatio = compare(
  'disabled call (debug at info)',
  10_000_000,
  9,
  (n) => {
    for (let i = 0; i < n; i++) plain.debug('not written %d', i);
  },
  (n) => {
    for (let i = 0; i < n; i++) ours.debug('not written %d', i);
  },
);
compare(
  'disabled call on a child',
  10_000_000,
  9,
  (n) => {
    for (let i = 0; i < n; i++) plainChild.debug('not written %d', i);
  },
  (n) => {
    for (let i = 0; i < n; i++) oursChild.debug('not written %d', i);
  },
);
compare(
  'enabled call, JSON (info at info)',
  500_000,
  7,
  (n) => {
    for (let i = 0; i < n; i++) plain.info({ block: i }, 'written');
  },
  (n) => {
    for (let i = 0; i < n; i++) ours.info({ block: i }, 'written');
  },
);
compare(
  'enabled call on a child, JSON',
  500_000,
  7,
  (n) => {
    for (let i = 0; i < n; i++) plainChild.info({ block: i }, 'written');
  },
  (n) => {
    for (let i = 0; i < n; i++) oursChild.info({ block: i }, 'written');
  },
);

const text = createLogging({ format: 'text', destination: sink }).getLogger('gossip.privdata');
compare(
  'enabled call, text format vs pino JSON',
  200_000,
  5,
  (n) => {
    for (let i = 0; i < n; i++) plain.info({ block: i }, 'written');
  },
  (n) => {
    for (let i = 0; i < n; i++) text.info({ block: i }, 'written');
  },
);

const observed = createLogging({ format: 'json', destination: sink, spec: 'x=debug:info' });
let counted = 0;
observed.setObserver({ checked: () => counted++, written: () => counted++ });
const observedLogger = observed.getLogger('gossip.privdata');
compare(
  'disabled call with a metrics observer',
  10_000_000,
  9,
  (n) => {
    for (let i = 0; i < n; i++) plain.debug('not written %d', i);
  },
  (n) => {
    for (let i = 0; i < n; i++) observedLogger.debug('not written %d', i);
  },
);
if (counted === 0) throw new Error('observer was never called');

// Activation over 10,000 registered loggers, each with a child.
const big = createLogging({ format: 'json', destination: sink });
const loggers = [];
for (let i = 0; i < 10_000; i++) {
  const logger = big.getLogger(`module${i % 100}.component${i}`);
  loggers.push(logger, logger.child({ i }));
}
const specs = [
  ['every logger changes level', 'debug', 'info'],
  ['a few loggers change level', 'module7=debug:module8.component8=warn:info', 'module9=error:info'],
  ['a long spec (100 terms)', Array.from({ length: 100 }, (_, i) => `module${i}=${i % 2 ? 'debug' : 'warn'}`).join(':'), 'info'],
];
const activationMedians = [];
// Start the activation series from a clean heap.
forceGc();
for (const [label, a, b] of specs) {
  const times = [];
  for (let r = 0; r < 41; r++) {
    const spec = r % 2 ? a : b;
    const start = process.hrtime.bigint();
    big.activateSpec(spec);
    times.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  const m = median(times.slice(1));
  activationMedians.push(m);
  console.log(`activation over 10,000 loggers, ${label.padEnd(28)} median ${m.toFixed(2)} ms   max ${Math.max(...times.slice(1)).toFixed(2)} ms`);
}
// Every logger and child must have followed the last activation.
big.activateSpec('module3=debug:warn');
const wrong = loggers.filter((l, i) => l.level !== (Math.floor(i / 2) % 100 === 3 ? 'debug' : 'warn')).length;
if (wrong !== 0) throw new Error(`${wrong} loggers did not follow the spec`);

console.log(`aim: disabled call within 1.2x of pino (got ${disabledRatio.toFixed(2)}x); activation under 5 ms (worst median ${Math.max(...activationMedians).toFixed(2)} ms)`);
