import { TlsAuthError } from './errors.ts';
import type { ClientIdentity } from './identity.ts';

/**
 * One admitted certificate pattern. Every field given must match (an AND); give at least one.
 * - `commonName`: the subject's CN, exactly.
 * - `organization`: one of the subject's O values, exactly.
 * - `san`: one subject alternative name, either typed (`DNS:ops.example.com`, `IP:10.0.0.1`,
 *   `email:ops@example.com`, `URI:spiffe://org1/ops`) or a bare value matching any type.
 */
export interface SubjectRule {
  readonly commonName?: string;
  readonly organization?: string;
  readonly san?: string;
}

/**
 * Route pattern (`/logspec`, `/metrics`) → the rules a verified certificate must match one of.
 * Only secure routes are consulted; a secure route not listed admits any verified certificate.
 */
export type RouteAllowList = Readonly<Record<string, readonly SubjectRule[]>>;

const RULE_KEYS = new Set(['commonName', 'organization', 'san']);

/** Checks an allow-list from configuration; throws one line naming the bad entry. */
export function validateAllowList(allowList: unknown, key = 'allowList'): RouteAllowList {
  if (typeof allowList !== 'object' || allowList === null || Array.isArray(allowList)) {
    throw new TlsAuthError('INVALID_ALLOW_LIST', `${key}: expected an object mapping route paths to rule lists`);
  }
  for (const [path, rules] of Object.entries(allowList)) {
    if (!path.startsWith('/')) throw new TlsAuthError('INVALID_ALLOW_LIST', `${key}: route ${JSON.stringify(path)} must start with "/"`);
    if (!Array.isArray(rules) || rules.length === 0) {
      throw new TlsAuthError('INVALID_ALLOW_LIST', `${key}.${path}: expected a non-empty list of rules`);
    }
    rules.forEach((rule: unknown, index) => {
      const where = `${key}.${path}[${index}]`;
      if (typeof rule !== 'object' || rule === null) throw new TlsAuthError('INVALID_ALLOW_LIST', `${where}: expected an object`);
      const entries = Object.entries(rule);
      if (entries.length === 0) {
        throw new TlsAuthError('INVALID_ALLOW_LIST', `${where}: give at least one of commonName, organization, san`);
      }
      for (const [field, value] of entries) {
        if (!RULE_KEYS.has(field)) throw new TlsAuthError('INVALID_ALLOW_LIST', `${where}: unknown field ${JSON.stringify(field)} (expected commonName, organization or san)`);
        if (typeof value !== 'string' || value === '') throw new TlsAuthError('INVALID_ALLOW_LIST', `${where}.${field}: expected a non-empty string`);
      }
    });
  }
  return allowList as RouteAllowList;
}

function sanMatches(wanted: string, names: readonly string[]): boolean {
  return names.some((name) => name === wanted || name.slice(name.indexOf(':') + 1) === wanted);
}

/** True when the identity satisfies at least one rule. */
export function identityMatches(identity: ClientIdentity, rules: readonly SubjectRule[]): boolean {
  return rules.some(
    (rule) =>
      (rule.commonName === undefined || identity.commonName === rule.commonName) &&
      (rule.organization === undefined || identity.organizations.includes(rule.organization)) &&
      (rule.san === undefined || sanMatches(rule.san, identity.subjectAltNames)),
  );
}
