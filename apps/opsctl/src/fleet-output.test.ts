import { describe, expect, it } from 'vitest';
import type { Command } from './args.ts';
import type { FleetRow } from './fleet.ts';
import { fleetText } from './fleet-output.ts';

// Far past the ~150,000 rows where spreading every row into Math.max() or push() overflowed the stack.
const COUNT = 200_000;
/** One row near the end with the widest target: every row is padded to it. */
const WIDEST = 'the-one-node-with-a-much-longer-name.example.com:9443';

function fleet(fields: (index: number) => Partial<FleetRow>): FleetRow[] {
  const rows: FleetRow[] = [];
  for (let i = 0; i < COUNT; i++) {
    const port = 1_000 + (i % 60_000);
    rows.push({ target: i === COUNT - 4 ? WIDEST : `node${Math.floor(i / 60_000)}-${i}.example:${port}`, labels: { org: `org${i % 7}` }, ok: i % 10 !== 0, latency_ms: i % 1_000, ...fields(i) });
  }
  return rows;
}

const failure = (i: number): Partial<FleetRow> => (i % 10 === 0 ? { error: 'connection refused', reason: 'connection-refused' } : {});

describe('fleet text output for a large fleet', () => {
  const commands: [string, Command, (i: number) => Partial<FleetRow>, number][] = [
    // header + rows, blank, tally
    ['health', { kind: 'health', endpoint: 'healthz', verbose: false }, (i) => ({ status: 'OK', ...failure(i) }), COUNT + 3],
    // header + rows, blank, drift line, build table (header + 2 builds), blank, tally
    ['version', { kind: 'version' }, (i) => ({ Version: i % 2 ? '2.5.0' : '2.4.9', CommitSHA: i % 2 ? 'abc' : 'def', ...failure(i) }), COUNT + 1 + 1 + 1 + 3 + 2],
    // two spec groups and the failures, each a heading and its rows; blank, tally
    ['logspec get', { kind: 'logspec-get' }, (i) => ({ spec: i % 50 === 1 ? 'debug' : 'info', ...failure(i) }), COUNT + 3 + 2],
    ['logspec set', { kind: 'logspec-set', spec: 'debug' }, (i) => ({ spec: 'debug', previous_spec: 'info', changed: true, ...failure(i) }), COUNT + 3],
  ];
  it.each(commands)('%s: a table of every row, padded to the widest cell', (_name, command, fields, lines) => {
    const rows = fleet(fields);
    const text = fleetText(command, rows);
    const printed = text.split('\n');
    expect(printed).toHaveLength(lines + 1); // the closing newline
    expect(printed.at(-2)).toBe(`${COUNT} targets: ${COUNT - COUNT / 10} ok, ${COUNT / 10} failed`);
    const last = rows.at(-1)!;
    const lastLine = printed.find((line) => line.trimStart().startsWith(last.target));
    // The last row's target is padded to the widest target, two spaces before the next cell.
    expect(lastLine).toBeDefined();
    const after = lastLine!.trimStart().slice(last.target.length);
    expect(after.length - after.trimStart().length).toBe(2 + WIDEST.length - last.target.length);
  });
});
