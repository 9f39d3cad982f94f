import type { IncomingMessage, ServerResponse } from 'node:http';
import { OpsHttpError } from './errors.ts';
import { goJson, writeJson, writeJsonText } from './json.ts';

/** What `/version` reports: Fabric's `metadata.Version` and `metadata.CommitSHA`. */
export interface VersionHandlerOptions {
  /** The release version, e.g. `2.5.16`. Left out of the document when empty, as Fabric does. */
  readonly version: string;
  /** The short commit SHA of the build, e.g. `4072367`. Left out when empty. */
  readonly commitSHA: string;
}

/** A plain `(req, res)` handler: node:http, Express, Fastify (`reply.raw`), Koa (`ctx.res`), … */
export type VersionHandler = (req: IncomingMessage, res: ServerResponse) => void;

function checkField(name: keyof VersionHandlerOptions, value: unknown): string {
  if (typeof value !== 'string') throw new OpsHttpError('INVALID_ROUTE', `createVersionHandler: ${name} must be a string (empty to leave it out), got ${value === null ? 'null' : typeof value}`);
  return value;
}

/**
 * Fabric's `/version` (core/operations.VersionInfoHandler) for any server or framework: GET is 200
 * `{"CommitSHA":…,"Version":…}` as `json.Marshal` writes it (those keys in that order, an empty one
 * left out, no trailing newline, `application/json`); any other method, HEAD included, is 400
 * `{"Error":"invalid request method: <METHOD>"}` (capital E). The document is encoded once.
 */
export function createVersionHandler(options: VersionHandlerOptions): VersionHandler {
  if (options === null || typeof options !== 'object') throw new OpsHttpError('INVALID_ROUTE', 'createVersionHandler: options { version, commitSHA } are required');
  const commitSHA = checkField('commitSHA', options.commitSHA);
  const version = checkField('version', options.version);
  const document: { CommitSHA?: string; Version?: string } = {};
  if (commitSHA !== '') document.CommitSHA = commitSHA;
  if (version !== '') document.Version = version;
  const body = goJson(document);
  return (req, res) => {
    if (req.method !== 'GET') {
      writeJson(res, 400, { Error: `invalid request method: ${req.method ?? ''}` });
      return;
    }
    writeJsonText(res, 200, body);
  };
}
