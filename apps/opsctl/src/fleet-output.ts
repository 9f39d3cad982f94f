import type { Command } from './args.ts';
import type { FleetRow } from './fleet.ts';
import { cellText, jsonText } from './internal/terminal-text.ts';

/**
 * Widest cell of a padded column, and of the last column (not padded): every cell is cut to
 * these with `…`, so one node's huge value costs one line, not one width for every row.
 */
export const MAX_CELL_CHARS: number = 64;
export const MAX_DETAIL_CHARS: number = 240;

/** One `--json` row: identity first, the failure and the timing last, whatever order the work filled them in. */
export function fleetJsonRow(row: FleetRow): string {
  const { target, labels, ok, error, reason, latency_ms, ...fields } = row;
  return jsonText({ target, labels, ok, ...fields, error, reason, latency_ms });
}

/** `--json`: one array, one object per target, a row per line. */
export function fleetJson(rows: readonly FleetRow[]): string {
  return rows.length === 0 ? '[]\n' : `[\n${rows.map(fleetJsonRow).join(',\n')}\n]\n`;
}

const cell = (text: string): string => cellText(text, MAX_CELL_CHARS);
const detail = (text: string): string => cellText(text, MAX_DETAIL_CHARS);

function labelText(labels: Readonly<Record<string, string>>): string {
  return cell(
    Object.entries(labels)
      .map(([name, value]) => `${name}=${value}`)
      .join(','),
  );
}

/** Appends `more` to `lines` one by one: spreading a fleet's rows into push() overflows the stack. */
function append(lines: string[], more: readonly string[]): void {
  for (const line of more) lines.push(line);
}

/** Columns padded to their widest cell; the last column is not padded. */
function table(header: readonly string[], body: readonly (readonly string[])[]): string[] {
  const keep = header.map((_, column) => column === 0 || body.some((cells) => cells[column] !== ''));
  const pick = (cells: readonly string[]) => cells.filter((_, column) => keep[column]);
  const lines = [pick(header)];
  for (const cells of body) lines.push(pick(cells));
  // A loop, not Math.max(...all rows): that passes every row as an argument.
  const widths = lines[0]!.map(() => 0);
  for (const cells of lines) {
    for (let column = 0; column < widths.length; column++) widths[column] = Math.max(widths[column]!, cells[column]!.length);
  }
  return lines.map((cells) =>
    cells
      .map((cell, column) => (column === cells.length - 1 ? cell : cell.padEnd(widths[column]!)))
      .join('  ')
      .trimEnd(),
  );
}

const plural = (count: number, one: string, many = `${one}s`) => `${count} ${count === 1 ? one : many}`;

/** A rolled-back target did not keep what was asked of it: counted apart, never as ok. */
function tally(rows: readonly FleetRow[]): string {
  const failedCount = rows.filter((row) => !row.ok).length;
  const rolledBack = rows.filter((row) => row.ok && row.rolled_back === true).length;
  return `${plural(rows.length, 'target')}: ${rows.length - failedCount - rolledBack} ok, ${rolledBack > 0 ? `${rolledBack} rolled back, ` : ''}${failedCount} failed`;
}

function failureCells(row: FleetRow): [string, string] {
  return ['FAILED', detail(`${row.reason ?? 'failed'}: ${row.error ?? ''}`)];
}

function healthTable(rows: readonly FleetRow[]): string[] {
  return table(
    ['TARGET', 'LABELS', 'HEALTH', 'LATENCY', 'DETAIL'],
    rows.map((row) => {
      const [state, why] = row.ok ? [cell(row.status ?? 'OK'), ''] : failureCells(row);
      return [cell(row.target), labelText(row.labels), state, `${row.latency_ms}ms`, why];
    }),
  );
}

function versionLines(rows: readonly FleetRow[]): string[] {
  const lines = table(
    ['TARGET', 'LABELS', 'VERSION', 'COMMIT', 'DETAIL'],
    rows.map((row) =>
      row.ok ? [cell(row.target), labelText(row.labels), cell(row.Version ?? ''), cell(row.CommitSHA ?? ''), ''] : [cell(row.target), labelText(row.labels), 'FAILED', '', failureCells(row)[1]],
    ),
  );
  const counts = new Map<string, { version: string; commit: string; nodes: number }>();
  for (const row of rows) {
    if (!row.ok) continue;
    const key = `${row.Version}\0${row.CommitSHA}`;
    const entry = counts.get(key) ?? { version: row.Version ? cell(row.Version) : '(none)', commit: row.CommitSHA ? cell(row.CommitSHA) : '(none)', nodes: 0 };
    entry.nodes++;
    counts.set(key, entry);
  }
  const builds = [...counts.values()].sort((a, b) => b.nodes - a.nodes || a.version.localeCompare(b.version));
  lines.push('');
  if (builds.length === 0) lines.push('versions: no target answered');
  else if (builds.length === 1) lines.push(`versions: no drift, every answering node runs ${builds[0]!.version} (${builds[0]!.commit})`);
  else {
    lines.push(`versions: drift, ${plural(builds.length, 'build')} in the fleet`);
    append(
      lines,
      table(
        ['  VERSION', 'COMMIT', 'NODES'],
        builds.map((build) => [`  ${build.version}`, build.commit, String(build.nodes)]),
      ),
    );
  }
  return lines;
}

/** `logspec get`: the targets grouped under each spec, failures last. */
function specGroups(rows: readonly FleetRow[]): string[] {
  const groups = new Map<string, FleetRow[]>();
  for (const row of rows) {
    if (!row.ok) continue;
    const members = groups.get(row.spec!) ?? [];
    members.push(row);
    groups.set(row.spec!, members);
  }
  const lines: string[] = [];
  for (const [spec, members] of [...groups].sort((a, b) => b[1].length - a[1].length || a[0].localeCompare(b[0]))) {
    lines.push(`${detail(spec)}  (${plural(members.length, 'target')})`);
    append(
      lines,
      table(
        ['', ''],
        members.map((row) => [`  ${cell(row.target)}`, labelText(row.labels)]),
      ).slice(1),
    );
  }
  const failures = rows.filter((row) => !row.ok);
  if (failures.length > 0) {
    lines.push(`FAILED  (${plural(failures.length, 'target')})`);
    append(
      lines,
      table(
        ['', '', ''],
        failures.map((row) => [`  ${cell(row.target)}`, labelText(row.labels), failureCells(row)[1]]),
      ).slice(1),
    );
  }
  return lines;
}

function setTable(rows: readonly FleetRow[], spec: string): string[] {
  return table(
    ['TARGET', 'LABELS', 'RESULT', 'SPEC', 'DETAIL'],
    rows.map((row) => {
      let result: string;
      let shown = cell(row.spec ?? '');
      if (!row.ok) result = 'FAILED';
      else if (row.rolled_back) result = 'rolled back';
      else if (row.dry_run) {
        result = row.previous_spec === spec ? 'would keep' : 'would change';
        shown = `${cell(row.previous_spec ?? '')} -> ${cell(spec)}`;
      } else result = row.previous_spec === row.spec ? 'unchanged' : 'changed';
      if (row.ok && !row.dry_run && !row.rolled_back && row.previous_spec !== row.spec) shown = `${cell(row.previous_spec ?? '')} -> ${cell(row.spec ?? '')}`;
      return [cell(row.target), labelText(row.labels), result, shown, row.ok ? '' : failureCells(row)[1]];
    }),
  );
}

/** The human table for a fleet command, with a closing tally. */
export function fleetText(command: Command, rows: readonly FleetRow[]): string {
  let lines: string[];
  switch (command.kind) {
    case 'health':
      lines = healthTable(rows);
      break;
    case 'version':
      lines = versionLines(rows);
      break;
    case 'logspec-get':
      lines = specGroups(rows);
      break;
    case 'logspec-set':
      lines = setTable(rows, command.spec);
      if (rows.some((row) => row.rolled_back)) lines.push('', `rolled back: ${plural(rows.filter((row) => row.rolled_back).length, 'target')} restored to their previous spec because a target failed`);
      break;
    default:
      lines = [];
  }
  lines.push('', tally(rows));
  return `${lines.join('\n')}\n`;
}
