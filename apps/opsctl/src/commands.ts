import type { Command } from './args.ts';
import type { OpsClient, OpsResponse } from './client.ts';
import { healthAnswer, parseJsonAnswer, rejectionText, specAnswer, versionAnswer } from './answers.ts';
import { OpsctlError } from './errors.ts';
import { jsonText, visibleText } from './internal/terminal-text.ts';
import { metricsPageJson } from './prometheus-text.ts';

/** What a command prints on stdout (in pieces, written in order) and how the process should exit. */
export interface CommandResult {
  readonly exitCode: number;
  readonly stdout: string | Iterable<string>;
}

const ok = (stdout: string | Iterable<string>): CommandResult => ({ exitCode: 0, stdout });

function unexpected(client: OpsClient, path: string, res: OpsResponse): OpsctlError {
  if (res.status === 401) {
    return new OpsctlError('TLS', `${client.origin}${path}: client certificate required (the server answered 401; pass --cert and --key signed by its client CA)`);
  }
  if (res.status === 400 && res.body.startsWith('Client sent an HTTP request to an HTTPS server')) {
    return new OpsctlError('TLS', `${client.origin}${path}: the server speaks TLS: pass --cacert (and --cert/--key if it requires client certificates)`);
  }
  if (res.status === 404) {
    const hint = path === '/metrics' ? ' (metrics are served only when metrics.provider is prometheus)' : '';
    return new OpsctlError('UNEXPECTED_RESPONSE', `${client.origin}${path}: not found (404)${hint}`);
  }
  const detail = res.body.trim().split('\n')[0]?.slice(0, 200) ?? '';
  return new OpsctlError('UNEXPECTED_RESPONSE', `${client.origin}${path}: unexpected status ${res.status}${detail ? `: ${detail}` : ''}`);
}

const jsonLine = (value: unknown): string => `${jsonText(value)}\n`;
/** A server-supplied string in text output: its control characters shown, not obeyed. */
const shown = (text: string): string => visibleText(text);

async function getSpec(client: OpsClient): Promise<string> {
  const res = await client.request('GET', '/logspec');
  if (res.status !== 200) throw unexpected(client, '/logspec', res);
  const where = `${client.origin}/logspec`;
  return specAnswer(where, parseJsonAnswer(where, res.body));
}

async function health(client: OpsClient, command: Extract<Command, { kind: 'health' }>, json: boolean): Promise<CommandResult> {
  const base = command.component !== undefined ? `/healthz/${encodeURIComponent(command.component)}` : `/${command.endpoint}`;
  const path = command.verbose && !json ? `${base}?verbose` : base;
  const res = await client.request('GET', path);
  if (res.status === 408) {
    throw new OpsctlError('REFUSED', `${client.origin}${base}: the health checks did not finish before the server's deadline (408)`);
  }
  if (res.status !== 200 && res.status !== 503) throw unexpected(client, base, res);
  const exitCode = res.status === 200 ? 0 : 1;
  const text = !String(res.headers['content-type'] ?? '').startsWith('application/json');
  if (command.verbose && !json && text) {
    const lines = visibleText(res.body, true);
    return { exitCode, stdout: lines.endsWith('\n') ? lines : `${lines}\n` };
  }
  const where = `${client.origin}${base}`;
  const raw = parseJsonAnswer(where, res.body);
  const body = healthAnswer(where, raw);
  if (command.verbose && !json) {
    // /healthz answers Fabric's JSON whatever the query (so does a real Fabric peer): it names only the failures.
    const lines = (body.failed_checks ?? []).map((failed) => `[-]${shown(failed.component)} failed: ${shown(failed.reason)}`);
    lines.push(`${base.slice(1)} check ${exitCode === 0 ? 'passed' : 'failed'}`);
    return { exitCode, stdout: `${lines.join('\n')}\n` };
  }
  // As the server sent it, once its shape is known to be right.
  if (json) return { exitCode, stdout: jsonLine(raw) };
  const lines = [`${shown(body.status ?? (exitCode === 0 ? 'OK' : 'Service Unavailable'))}${body.time ? ` (${shown(body.time)})` : ''}`];
  for (const failed of body.failed_checks ?? []) lines.push(`  ${shown(failed.component)}: ${shown(failed.reason)}`);
  return { exitCode, stdout: `${lines.join('\n')}\n` };
}

/** Runs one parsed command against the server. Rejects with OpsctlError. */
export async function runCommand(client: OpsClient, command: Command, json: boolean): Promise<CommandResult> {
  switch (command.kind) {
    case 'help':
    case 'version-of-opsctl':
      return ok('');
    case 'logspec-get': {
      const spec = await getSpec(client);
      return ok(json ? jsonLine({ spec }) : `${shown(spec)}\n`);
    }
    case 'logspec-set': {
      const res = await client.request('PUT', '/logspec', JSON.stringify({ spec: command.spec }));
      if (res.status === 400) {
        throw new OpsctlError('REFUSED', `logspec rejected: ${rejectionText(res.body, 'the server answered 400')}`);
      }
      if (res.status !== 204 && res.status !== 200) throw unexpected(client, '/logspec', res);
      // Read it back: the server normalises the spec (sorted, levels spelled its way).
      const spec = await getSpec(client);
      return ok(json ? jsonLine({ spec }) : `logging spec is now ${shown(spec)}\n`);
    }
    case 'health':
      return health(client, command, json);
    case 'version': {
      const res = await client.request('GET', '/version');
      if (res.status !== 200) throw unexpected(client, '/version', res);
      const where = `${client.origin}/version`;
      const body = parseJsonAnswer(where, res.body);
      const version = versionAnswer(where, body);
      if (json) return ok(jsonLine(body));
      return ok(`Version: ${shown(version.Version)}\nCommit SHA: ${shown(version.CommitSHA)}\n`);
    }
    case 'metrics': {
      const res = await client.request('GET', '/metrics');
      if (res.status !== 200) throw unexpected(client, '/metrics', res);
      // The page as sent, line by line; a control character inside a line is shown, not obeyed.
      if (!json) return ok(visibleText(res.body, true));
      try {
        return ok(metricsPageJson(res.body));
      } catch (error) {
        throw new OpsctlError('UNEXPECTED_RESPONSE', `${client.origin}/metrics: ${(error as Error).message}`);
      }
    }
  }
}
