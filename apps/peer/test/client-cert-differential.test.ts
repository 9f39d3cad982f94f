import { X509Certificate } from 'node:crypto';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { connect, createSecureContext, type SecureContext } from 'node:tls';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestPki, peerLauncher, type RunningApp, type TestPki } from '@fabric-ops/test-kit';
import { buildOracle, countByClass, generateCorpus, readCorpus, runOracle, toPem, type CorpusCase, type GoVerdict, type LoadedCorpus } from '@fabric-ops/x509-oracle';

// Through real handshakes: a sample of the Go 1.26 oracle corpus (every class whose chain a Node
// TLS client can send) presented to the real peer bin with clientAuthRequired, over TLS 1.3 and
// TLS 1.2, then `GET /version`. The function-level tests (tools/x509-oracle/test/) allow no
// difference from Go at all; here the list judged is what Node hands over without keeping memory
// (ops-tls-auth README, "Reading what the client sent"): the issuer path, so the differences that
// path makes are listed below, each with why, and any other admission or refusal fails. The corpus
// is generated with validity relative to the real clock (`-time now`): the peer checks validity
// against its own clock.

/**
 * Classes the peer is known to refuse although Go admits them, each with why. Any other refusal
 * here is a difference to fix or to document (README "How it differs from Fabric").
 */
const KNOWN_REFUSALS: Readonly<Record<string, string>> = {
  // OpenSSL marks a leaf whose extensions it reads as invalid and fails the handshake itself
  // ("tls: invalid certificate") before the chain reaches Go's rules (README, "How it differs").
  'ku-no-bits-leaf': 'OpenSSL fails the handshake for a leaf whose KeyUsage has no bit set (with some key types)',
  // Go 1.25+ allows a client Certificate message of up to 256 KiB; OpenSSL's default limit on the
  // certificate list (100 KiB) fails the handshake first ("illegal parameter") for 100-256 KiB.
  'go126-message-size-under-256k': "OpenSSL refuses a client certificate list over its 100 KiB default before Go's 256 KiB rule is asked",
  // Seen on Node 24.21 only, over TLS 1.3, for one 69-certificate chain of this class: the
  // handshake fails with OpenSSL's "tls: bad signature" before our check runs (a plain Node 24
  // server admits the same client); not yet explained, so listed rather than hidden.
  'decoys-two-levels': 'on Node 24, one 69-certificate chain fails the TLS 1.3 handshake with OpenSSL\'s "bad signature"',
  // The issuer path Node hands over takes, per level, the first certificate sent that OpenSSL's
  // X509_check_issued accepts (its normalised names and AKID, not Go's byte comparison); where
  // that path does not reach a client CA, the list as sent is read again only on Node 24+ and
  // within a budget of what such reads still hold, so these may be refused on any line, always on
  // Node 20 and 22.
  'akid-mismatch': "the issuer path stops where OpenSSL's AKID check refuses a parent Go's name match takes",
  'cross-signed-untrusted-first': 'the issuer path takes the cross-signed copy sent first, whose root is not trusted',
  'out-of-order': 'the issuer path takes the first candidate sent at each level',
  'renewed-expired-first': 'the issuer path takes the expired copy of the intermediate sent first',
  'ku-no-bits-intermediate': 'OpenSSL takes no intermediate whose KeyUsage has no bits as an issuer, so the path stops there',
};

/**
 * Admissions of chains Go refuses that the issuer path explains: a class whose name ends in
 * `-extra` sends, besides a chain Go would admit, one certificate off that chain that Go's parser
 * (or crypto/tls's RSA-size rule) refuses; Go parses every certificate of the message, the peer
 * judges the path and never reads the extra one. Any other admission Go refuses fails.
 */
function knownAdmission(caseClass: string, goReason: string): boolean {
  return caseClass.endsWith('-extra') && /^tls: (failed to parse client certificate: |client sent certificate containing RSA key larger than)/.test(goReason);
}

/**
 * Classes no Node TLS client can send, each with why (Go refuses all of them). A Node line whose
 * OpenSSL cannot load more than these shrinks the sample, and fails here until listed.
 */
const CLIENT_CANNOT_SEND: Readonly<Record<string, string>> = {
  'leaf-key-dsa': 'a DSA key cannot sign a TLS 1.2/1.3 handshake',
  'leaf-key-rsapss': 'the corpus carries no private key for an id-RSASSA-PSS leaf',
  'bad-string-bmp-odd-length-leaf': 'OpenSSL refuses a BMPString of odd length when loading the chain',
  'bad-string-bmp-odd-length-intermediate': 'OpenSSL refuses a BMPString of odd length when loading the chain',
  'bad-string-bmp-odd-length-extra': 'OpenSSL refuses a BMPString of odd length when loading the chain',
  'bad-string-utf8-invalid-leaf': 'OpenSSL refuses invalid UTF-8 in a UTF8String when loading the chain',
  'bad-string-utf8-invalid-intermediate': 'OpenSSL refuses invalid UTF-8 in a UTF8String when loading the chain',
  'bad-string-utf8-invalid-extra': 'OpenSSL refuses invalid UTF-8 in a UTF8String when loading the chain',
  'non-der-tbs-serial-leaf': 'OpenSSL refuses an INTEGER with a superfluous leading zero when loading the chain',
  'non-der-tbs-serial-intermediate': 'OpenSSL refuses an INTEGER with a superfluous leading zero when loading the chain',
  'non-der-tbs-serial-extra': 'OpenSSL refuses an INTEGER with a superfluous leading zero when loading the chain',
  'non-der-outer-leaf': "OpenSSL re-encodes a certificate's outer wrapping when it sends it, so the wire carries DER",
  'non-der-outer-intermediate': "OpenSSL re-encodes a certificate's outer wrapping when it sends it, so the wire carries DER",
  'non-der-outer-extra': "OpenSSL re-encodes a certificate's outer wrapping when it sends it, so the wire carries DER",
  'go126-bmpstring-surrogate-leaf': 'OpenSSL refuses a BMPString with a lone surrogate when loading the chain',
  'go126-bmpstring-surrogate-intermediate': 'OpenSSL refuses a BMPString with a lone surrogate when loading the chain',
  'go126-bmpstring-surrogate-extra': 'OpenSSL refuses a BMPString with a lone surrogate when loading the chain',
  'go126-bmpstring-surrogate-ca-file': "OpenSSL refuses the leaf, whose issuer name carries the CA's BMPString with a lone surrogate",
  'go126-rsa-over-8192-leaf': 'the leaf carries a made-up RSA key nobody holds the private half of',
  'go126-rsa-8192-leaf': 'the leaf carries a made-up RSA key nobody holds the private half of',
};

/** Cases per class sent over each TLS version. */
const PER_CLASS = 2;
const VERSIONS = ['TLSv1.3', 'TLSv1.2'] as const;
type Version = (typeof VERSIONS)[number];

const peers = peerLauncher(fileURLToPath(new URL('../dist/bin.cjs', import.meta.url)));
const temp: string[] = [];
let pki: TestPki;
let corpus: LoadedCorpus;
let verdicts: Map<string, GoVerdict>;
let goVersion: string;

beforeAll(async () => {
  const built = await buildOracle();
  goVersion = built.goVersion;
  temp.push(join(built.bin, '..'));
  const dir = await generateCorpus(built.bin, { seed: 2121, time: 'now' });
  temp.push(dir);
  corpus = readCorpus(dir);
  verdicts = await runOracle(built.bin, dir);
  pki = await createTestPki();
}, 240_000);
afterAll(async () => {
  peers.stopAll();
  await pki?.cleanup();
  for (const dir of temp) rmSync(dir, { recursive: true, force: true });
});

interface Sendable {
  readonly c: CorpusCase;
  readonly contexts: Readonly<Record<Version, SecureContext>>;
}

/**
 * The client's side: every certificate as sent, in order, and the leaf key. A security level of 0
 * lets the client send SHA-1 and MD5 signed certificates; what the server does with them is the
 * question. Throws when OpenSSL cannot load the chain or the key (then no Node client can send it).
 */
function clientContexts(c: CorpusCase): Record<Version, SecureContext> {
  const cert = c.chain.map(toPem).join('');
  const make = (v: Version) => createSecureContext({ cert, key: c.key!, minVersion: v, maxVersion: v, ciphers: 'DEFAULT:@SECLEVEL=0', ca: pki.ca.cert });
  return { 'TLSv1.3': make('TLSv1.3'), 'TLSv1.2': make('TLSv1.2') };
}

/** One handshake and `GET /version`; admitted means the server answered 200. */
function attempt(port: number, s: Sendable, version: Version): Promise<{ admitted: boolean; detail: string }> {
  return new Promise((resolve) => {
    let data = '';
    let error = '';
    const socket = connect({ host: '127.0.0.1', port, secureContext: s.contexts[version], minVersion: version, maxVersion: version });
    const timer = setTimeout(() => {
      error ||= 'no answer within 20 s';
      socket.destroy();
    }, 20_000);
    socket.on('secureConnect', () => socket.end('GET /version HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n'));
    socket.on('data', (chunk: Buffer) => (data += chunk.toString('latin1')));
    socket.on('error', (e) => (error ||= e.message));
    socket.on('close', () => {
      clearTimeout(timer);
      const status = data.slice(0, data.indexOf('\r\n'));
      resolve({ admitted: status.startsWith('HTTP/1.1 200'), detail: status || error || 'closed without an answer' });
    });
  });
}

async function inBatches<T>(items: readonly T[], width: number, fn: (item: T) => Promise<void>): Promise<void> {
  for (let i = 0; i < items.length; i += width) await Promise.all(items.slice(i, i + width).map(fn));
}

describe('the peer bin against Go itself, over TLS 1.3 and 1.2', () => {
  it('admits no client chain Go refuses, and refuses only chains of documented classes that Go admits', async () => {
    // The sample: up to PER_CLASS sendable cases of each class.
    const sample: Sendable[] = [];
    const taken = new Map<string, number>();
    const unsendable = new Map<string, string>();
    for (const c of corpus.cases) {
      if ((taken.get(c.class) ?? 0) >= PER_CLASS) continue;
      if (c.key === undefined) {
        if (!taken.has(c.class)) unsendable.set(c.class, 'the leaf key cannot sign a TLS handshake');
        continue;
      }
      try {
        // OpenSSL sends its own encoding of each certificate (the signed part as read, the outer
        // wrapping re-encoded): where that differs from the corpus bytes, the wire would carry
        // another chain than the one Go judged.
        for (const der of c.chain) {
          if (!Buffer.from(new X509Certificate(der).raw).equals(Buffer.from(der))) throw new Error('OpenSSL re-encodes a certificate of this chain when it sends it');
        }
        sample.push({ c, contexts: clientContexts(c) });
        taken.set(c.class, (taken.get(c.class) ?? 0) + 1);
        unsendable.delete(c.class);
      } catch (e) {
        if (!taken.has(c.class)) unsendable.set(c.class, `OpenSSL cannot load it as a client: ${(e as Error).message}`);
      }
    }
    const classes = new Set(corpus.cases.map((c) => c.class));
    expect(taken.size + unsendable.size).toBe(classes.size);
    const unlistedUnsendable = [...unsendable.keys()].filter((cls) => !(cls in CLIENT_CANNOT_SEND)).map((cls) => `${cls}: ${unsendable.get(cls)}`);

    const admitsGoRefuses: string[] = [];
    const knownAdmissions = new Map<string, number>();
    const unexplainedRefusals: string[] = [];
    const refusalsByClass = new Map<string, number>();
    let agree = 0;
    let runs = 0;
    const began = performance.now();
    const byPool = new Map<string, Sendable[]>();
    for (const s of sample) byPool.set(s.c.pool, [...(byPool.get(s.c.pool) ?? []), s]);
    for (const [poolId, cases] of [...byPool].sort(([a], [b]) => a.localeCompare(b))) {
      const files = corpus.pools.get(poolId)!.map((_, i) => join(corpus.dir, 'pools', poolId, `ca-${i}.pem`));
      let app: RunningApp | undefined;
      let startError = '';
      try {
        app = await peers.start({ tls: { certFile: pki.server.certFile, keyFile: pki.server.keyFile, clientAuthRequired: true, clientRootCAs: files } });
      } catch (e) {
        startError = `the peer did not start with pool ${poolId}: ${(e as Error).message.slice(0, 300)}`;
      }
      const port = app === undefined ? 0 : Number(app.address.slice(app.address.lastIndexOf(':') + 1));
      await inBatches(cases, 4, async (s) => {
        const go = verdicts.get(s.c.id)!;
        for (const version of VERSIONS) {
          runs++;
          const ours = app === undefined ? { admitted: false, detail: startError } : await attempt(port, s, version);
          if (ours.admitted === go.admit) {
            agree++;
          } else if (ours.admitted) {
            if (knownAdmission(s.c.class, go.reason)) knownAdmissions.set(s.c.class, (knownAdmissions.get(s.c.class) ?? 0) + 1);
            else admitsGoRefuses.push(`${s.c.id} ${version}: Go refuses (${go.reason.slice(0, 200)})`);
          } else {
            refusalsByClass.set(s.c.class, (refusalsByClass.get(s.c.class) ?? 0) + 1);
            if (!(s.c.class in KNOWN_REFUSALS)) unexplainedRefusals.push(`${s.c.id} ${version}: we refuse (${ours.detail}), Go admits`);
          }
        }
      });
      app?.kill();
    }
    const seconds = (performance.now() - began) / 1000;
    console.log(
      [
        `x509 TLS differential (${goVersion}, Node ${process.version}; ${sample.length} of ${corpus.cases.length} chains from ${taken.size} classes, ${runs} handshakes in ${seconds.toFixed(1)} s):`,
        `  total ${runs}, agree ${agree}, admits Go refuses ${admitsGoRefuses.length}, refusals Go admits ${runs - agree - admitsGoRefuses.length - [...knownAdmissions.values()].reduce((a, b) => a + b, 0)}`,
        ...countByClass(admitsGoRefuses).map(([cls, n]) => `  admitted, Go refuses, by class: ${cls} ${n}`),
        ...[...knownAdmissions].sort().map(([cls, n]) => `  admitted, Go refuses, known (an extra certificate off the issuer path): ${cls} ${n}`),
        ...[...refusalsByClass].sort().map(([cls, n]) => `  refused by class: ${cls} ${n}${cls in KNOWN_REFUSALS ? ` (known: ${KNOWN_REFUSALS[cls]})` : ' (NOT documented)'}`),
        ...[...unsendable].sort().map(([cls, why]) => `  not sent (${cls}): ${why}${cls in CLIENT_CANNOT_SEND ? '' : ' (NOT documented)'}`),
        ...admitsGoRefuses.slice(0, 60).map((l) => `  ADMITTED: ${l}`),
        ...unexplainedRefusals.slice(0, 60).map((l) => `  REFUSED: ${l}`),
      ].join('\n'),
    );
    expect(admitsGoRefuses).toEqual([]);
    expect(unexplainedRefusals).toEqual([]);
    expect(unlistedUnsendable).toEqual([]);
  }, 300_000);
});
