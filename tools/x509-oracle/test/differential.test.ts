import { describe, expect, it } from 'vitest';
import { clientCertificateMessageProblem, createClientTrustPool, verifyClientChain, verifyClientChainWithin, type ClientTrustPool } from '@fabric-ops/go-x509';
import { countByClass, generateCorpus, useOracle } from '../src/index.ts';

// Every chain of a seeded corpus decided by our verifier and by Go 1.26's
// crypto/tls + crypto/x509 (the oracle, built from ./*.go with `go build`; go.mod: go 1.26.4). We must never admit a
// chain Go refuses; we may refuse a chain Go admits only when its class is listed below.

/**
 * Classes our verifier is known to refuse although Go admits them, each with why. Empty: the
 * verifier implements Go's rules for every class of the corpus. An entry here is a documented
 * difference (README "How it differs from Fabric"), never a way to silence a failure.
 */
const KNOWN_REFUSALS: Readonly<Record<string, string>> = {};

/** Classes the generator must produce (the list the corpus promises); a generator change that drops one fails here. */
const REQUIRED_CLASSES = [
  'good-direct',
  'good-intermediate-anchor',
  'good-chain',
  'out-of-order',
  'duplicates',
  'extra-unrelated',
  'cross-signed-untrusted-first',
  'renewed-expired-first',
  'decoys',
  'many-intermediates',
  'akid-mismatch',
  'ku-no-bits-leaf',
  'ku-no-bits-intermediate',
  'leaf-ku-without-digitalsignature',
  'eku-clientauth',
  'eku-any',
  'eku-serverauth-only',
  'eku-none',
  'eku-intermediate-serverauth',
  'expired-leaf',
  'expired-intermediate',
  'expired-root',
  'notyetvalid-leaf',
  'notyetvalid-intermediate',
  'notyetvalid-root',
  'sig-sha1-leaf',
  'sig-md5-intermediate',
  'sig-rsapss-good-leaf',
  'sig-rsapss-bad-salt-leaf',
  'dsa-intermediate',
  'rsapss-key-intermediate',
  'non-der-outer-leaf',
  'non-der-tbs-length-intermediate',
  'bad-string-printable-at-leaf',
  'bad-string-printable-underscore-extra',
  'bad-string-ia5-8bit-intermediate',
  'bad-string-san-dns-8bit-leaf',
  'bad-string-utf8-invalid-leaf',
  'bad-string-bmp-odd-length-leaf',
  'ip-san-5-bytes-leaf',
  'uri-san-unparsable-leaf',
  'duplicate-extension-leaf',
  'explicit-ec-params-leaf',
  'malformed-basicconstraints-not-sequence-intermediate',
  'name-normalisation-case',
  'name-normalisation-stringtype',
  'name-normalisation-spaces',
  'critical-san-othername-only',
  'critical-san-dirname-only',
  'critical-policyconstraints-leaf',
  'critical-policymappings-intermediate',
  'critical-inhibitanypolicy-leaf',
  'critical-netscape-certtype-leaf',
  'critical-ocsp-nocheck-leaf',
  'critical-unknown-oid-intermediate',
  'nc-dns-permitted-satisfied',
  'nc-dns-permitted-violated',
  'nc-dns-excluded-violated',
  'nc-ip-permitted-violated',
  'nc-email-permitted-violated',
  'nc-uri-permitted-violated',
  'nc-dirname-permitted-satisfied',
  'v1-intermediate-with-ca-true',
  'v2-intermediate-with-ca-true',
  'v3-root-without-basicconstraints',
  'self-issued-under-pathlen0',
  'pathlen-violation-root',
  'ca-file-unparseable',
  'message-size-over-64k',
  'decoys-two-levels',
  'leaf-is-trust-anchor',
  'leaf-self-signed-untrusted',
  'expired-root-copy-sent',
  'generalizedtime-before-2050',
  'validity-boundary-notafter-now',
  'validity-boundary-notbefore-now',
  // What Go 1.26 decides differently from Go 1.19, in the leaf, an intermediate, a CA file and an extra.
  ...['negative-serial', 'negative-pathlen', 'bmpstring-surrogate', 'bmpstring-good', 'policy-oid-arc-2to31'].flatMap((item) =>
    ['leaf', 'intermediate', 'extra', 'ca-file'].map((where) => `go126-${item}-${where}`),
  ),
  ...['leaf', 'intermediate', 'extra'].map((where) => `go126-rsa-over-8192-${where}`),
  'go126-rsa-8192-leaf',
  'go126-rsa-512-intermediate',
  'go126-rsa-512-extra',
  'go126-rsa-even-exponent-intermediate',
  'go126-rsa-even-modulus-intermediate',
  'go126-nc-ca-san-outside-ancestor',
  'go126-nc-ca-san-inside-ancestor',
  'go126-nc-own-san-outside-intermediate',
  'go126-nc-own-san-outside-ca-file',
  'go126-nc-excluded-wildcard-covers',
  'go126-nc-excluded-wildcard-clear',
  'go126-nc-uri-ipv6-zone',
  'go126-nc-uri-host',
  'go126-nc-many-constraints-many-names',
  ...[
    'require-explicit-none',
    'require-explicit-met',
    'require-explicit-disjoint',
    'inhibit-mapping',
    'mapping-valid',
    'mapping-to-anypolicy',
    'mapping-from-anypolicy',
    'inhibit-any-explicit',
    'inhibit-any-named',
  ].flatMap((p) => ['critical', 'noncritical'].map((c) => `go126-policy-${p}-${c}`)),
  'go126-message-size-over-256k',
  'go126-message-size-under-256k',
  // Names and constraints Go 1.26's domain validity check refuses, and their controls.
  ...['uri-host', 'dns-san', 'email-san'].flatMap((n) => [`period-${n}-leading`, `period-${n}-control`]),
  ...['dns-double-period', 'uri-double-period', 'dns-lone-period', 'email-lone-period', 'dns-single-period', 'email-single-period'].flatMap((n) =>
    ['ca-file', 'intermediate'].map((where) => `period-nc-${n}-${where}`),
  ),
  'period-ip-constraint-text',
  'text-uri-reserialised',
];

const oracle = useOracle((bin, scratch) => generateCorpus(bin, { seed: 21 }).then(scratch), 180_000);

describe('our client-chain verifier against Go itself', () => {
  it('the corpus spans every class: at least 1,000 chains, 6 trust pools, every class, and Go both admits and refuses', () => {
    const { corpus, verdicts } = oracle();
    expect(corpus.cases.length).toBeGreaterThanOrEqual(1000);
    expect(corpus.pools.size).toBeGreaterThanOrEqual(6);
    const classes = new Set(corpus.cases.map((c) => c.class));
    expect(REQUIRED_CLASSES.filter((c) => !classes.has(c))).toEqual([]);
    expect(verdicts.size).toBe(corpus.cases.length);
    // The oracle itself: the plainly good chains pass Go, the plainly broken ones do not.
    // A pattern ending in '-' is a class prefix; otherwise the exact class.
    const byClass = (pattern: string) => corpus.cases.filter((c) => (pattern.endsWith('-') ? c.class.startsWith(pattern) : c.class === pattern)).map((c) => verdicts.get(c.id)!.admit);
    expect(byClass('good-')).not.toContain(false);
    for (const admitted of ['message-size-over-64k', 'go126-nc-own-san-outside-intermediate', 'go126-policy-oid-arc-2to31-leaf', 'go126-nc-many-constraints-many-names']) {
      expect(byClass(admitted), admitted).not.toContain(false);
    }
    for (const broken of [
      'sig-md5-leaf',
      'sig-md5-intermediate',
      'expired-leaf',
      'expired-intermediate',
      'expired-root',
      'bad-string-',
      'non-der-',
      'go126-message-size-over-256k',
      'go126-rsa-over-8192-extra',
      'go126-negative-serial-ca-file',
    ]) {
      expect(byClass(broken), broken).not.toContain(true);
    }
  });

  it('admits no chain Go refuses, and refuses only chains of documented classes that Go admits', () => {
    const { corpus, verdicts, goVersion } = oracle();
    const pools = new Map<string, ClientTrustPool | Error>();
    for (const [id, texts] of corpus.pools) {
      try {
        pools.set(id, createClientTrustPool(texts));
      } catch (error) {
        pools.set(id, error as Error);
      }
    }
    const admitsGoRefuses: string[] = [];
    const unexplainedRefusals: string[] = [];
    const textsDiffer: string[] = [];
    const refusalsByClass = new Map<string, number>();
    let agree = 0;
    const began = performance.now();
    for (const c of corpus.cases) {
      const go = verdicts.get(c.id)!;
      const pool = pools.get(c.pool)!;
      // The server's decision: crypto/tls's message-size rule (the oracle refuses a list too large
      // over either protocol, so TLS 1.3's larger encoding decides), then the chain itself.
      const oversize = clientCertificateMessageProblem(c.chain, 'TLSv1.3');
      const ours =
        oversize !== undefined
          ? { accept: false as const, reason: oversize }
          : pool instanceof Error
            ? { accept: false as const, reason: `trust pool: ${pool.message}` }
            : verifyClientChain(c.chain, pool, c.time);
      if (ours.accept === go.admit) {
        agree++;
        // Go's text, as Fabric logs it, for every refusal both make.
        if (!ours.accept && ours.reason !== go.reason) textsDiffer.push(`${c.id}: ours ${JSON.stringify(ours.reason)}, Go ${JSON.stringify(go.reason)}`);
        continue;
      }
      if (ours.accept) {
        admitsGoRefuses.push(`${c.id}: Go refuses (${go.reason})`);
        continue;
      }
      refusalsByClass.set(c.class, (refusalsByClass.get(c.class) ?? 0) + 1);
      if (!(c.class in KNOWN_REFUSALS)) unexplainedRefusals.push(`${c.id}: we refuse (${ours.reason}), Go admits`);
    }
    const ms = performance.now() - began;
    console.log(
      [
        `x509 differential (${goVersion}, ${corpus.cases.length} chains, ${corpus.pools.size} pools, verified in ${ms.toFixed(0)} ms):`,
        `  total ${corpus.cases.length}, agree ${agree}, admits Go refuses ${admitsGoRefuses.length}, refusals Go admits ${corpus.cases.length - agree - admitsGoRefuses.length}, refusal texts differing from Go's ${textsDiffer.length}`,
        ...countByClass(admitsGoRefuses).map(([cls, n]) => `  admitted, Go refuses, by class: ${cls} ${n}`),
        ...[...refusalsByClass].sort().map(([cls, n]) => `  refused by class: ${cls} ${n}${cls in KNOWN_REFUSALS ? ` (known: ${KNOWN_REFUSALS[cls]})` : ' (NOT documented)'}`),
        ...admitsGoRefuses.slice(0, 40).map((l) => `  ADMITTED: ${l}`),
        ...unexplainedRefusals.slice(0, 40).map((l) => `  REFUSED: ${l}`),
        ...textsDiffer.slice(0, 40).map((l) => `  TEXT: ${l}`),
      ].join('\n'),
    );
    expect(admitsGoRefuses).toEqual([]);
    expect(unexplainedRefusals).toEqual([]);
    expect(textsDiffer).toEqual([]);
  });

  it('the inline path (ops-tls-auth decides small, cheap chains on the event loop) gives Go the same verdicts, or none', () => {
    const { corpus, verdicts } = oracle();
    // ops-tls-auth's limits for a verdict on the event loop; a chain past them goes to a worker.
    const limits = { maxSignatureChecks: 3, maxRsaBits: 4096 };
    const disagree: string[] = [];
    let decided = 0;
    const pools = new Map<string, ClientTrustPool | undefined>();
    for (const [id, texts] of corpus.pools) {
      try {
        pools.set(id, createClientTrustPool(texts));
      } catch {
        pools.set(id, undefined);
      }
    }
    for (const c of corpus.cases) {
      const pool = pools.get(c.pool);
      if (pool === undefined) continue;
      if (clientCertificateMessageProblem(c.chain, 'TLSv1.3') !== undefined) continue;
      const within = verifyClientChainWithin(c.chain, pool, limits, c.time);
      if (within === undefined) continue;
      decided++;
      const full = verifyClientChain(c.chain, pool, c.time);
      if (JSON.stringify(within.verdict) !== JSON.stringify(full)) disagree.push(`${c.id}: inline ${JSON.stringify(within.verdict)}, full ${JSON.stringify(full)}`);
      else if (within.verdict.accept !== verdicts.get(c.id)!.admit && !(c.class in KNOWN_REFUSALS)) disagree.push(`${c.id}: inline ${within.verdict.accept}, Go ${verdicts.get(c.id)!.admit}`);
    }
    console.log(`inline path: ${decided} of ${corpus.cases.length} chains decided within ${JSON.stringify(limits)}`);
    expect(disagree).toEqual([]);
    expect(decided).toBeGreaterThan(corpus.cases.length / 2);
  });
});
