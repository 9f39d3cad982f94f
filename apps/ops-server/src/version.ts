import { createVersionHandler } from '@fabric-ops/ops-http';
import { OpsServerError } from './errors.ts';

export interface VersionInfo {
  /** The release version, e.g. `1.4.0`. Omitted from /version when empty. */
  readonly version: string;
  /** The short commit SHA of the build. Omitted from /version when empty. */
  readonly commitSHA: string;
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
 * Fabric's `/version`, answered by ops-http's `createVersionHandler` (the handler embedders mount),
 * so the peer and an embedder send the same bytes (and take the field under the same name). A field that is not a string is refused here,
 * naming this system's option, before ops-http would refuse it under its own spelling.
 */
export function versionHandler(info: VersionInfo): ReturnType<typeof createVersionHandler> {
  for (const key of ['version', 'commitSHA'] as const) {
    const value: unknown = info[key];
    if (typeof value !== 'string') {
      throw new OpsServerError('INVALID_OPTIONS', `invalid operations option version.${key}: expected a string (empty to leave it out), got ${value === null ? 'null' : typeof value}`);
    }
  }
  return createVersionHandler({ version: info.version, commitSHA: info.commitSHA });
}
