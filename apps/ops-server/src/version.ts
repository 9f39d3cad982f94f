import type { IncomingMessage, ServerResponse } from 'node:http';
import { goJson, writeJson } from '@fabric-ops/ops-http';

export interface VersionInfo {
  /** The release version, e.g. `1.4.0`. Omitted from /version when empty. */
  readonly version: string;
  /** The short commit SHA of the build. Omitted from /version when empty. */
  readonly commitSha: string;
}

declare const __FABRIC_OPS_COMMIT_SHA__: string;

/** Environment variable that overrides the commit SHA baked in at build time. */
export const COMMIT_SHA_ENV = 'FABRIC_OPS_COMMIT_SHA';

/**
 * The commit this build was made from: the environment override, else the SHA tsup
 * captured from git at build time, else Fabric's dev-build marker.
 */
export function resolveCommitSha(env: NodeJS.ProcessEnv = process.env): string {
  const override = env[COMMIT_SHA_ENV];
  if (override !== undefined && override !== '') return override;
  const baked = typeof __FABRIC_OPS_COMMIT_SHA__ === 'string' ? __FABRIC_OPS_COMMIT_SHA__ : '';
  return baked !== '' ? baked : 'development build';
}

/**
 * Fabric's `/version`: `{"CommitSHA":…,"Version":…}` from `json.Marshal` (no newline,
 * empty fields omitted); any other method is 400 with the capital-E `Error` key.
 */
export function versionHandler(info: VersionInfo) {
  const document: { CommitSHA?: string; Version?: string } = {};
  if (info.commitSha !== '') document.CommitSHA = info.commitSha;
  if (info.version !== '') document.Version = info.version;
  // The document never changes: encode it once, not per request.
  const okBody = goJson(document);
  const okHeaders = { 'Content-Type': 'application/json', 'Content-Length': String(Buffer.byteLength(okBody)) };
  return (req: IncomingMessage, res: ServerResponse): void => {
    if (req.method !== 'GET') {
      writeJson(res, 400, { Error: `invalid request method: ${req.method ?? ''}` });
      return;
    }
    res.writeHead(200, okHeaders);
    res.end(okBody);
  };
}
