import { X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { useTestPki, type TestPki } from '@fabric-ops/test-kit';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createChainJudge, DEFAULT_INLINE_LIMITS, TRUST_SLICE_BLOCKS, type ChainJudge, type ChainJudgeOptions } from './judge.ts';

// The verdicts taken on the calling thread (verdictNow), with real certificates and the real
// verifier thread behind them for what is not decided inline.
const pkiOf = useTestPki();
let pki: TestPki;
let caText: string;
let rogueText: string;
const ders = (pem: string): Uint8Array[] => pem.split(/(?=-----BEGIN CERTIFICATE-----)/).map((block) => new X509Certificate(block).raw);
let good: Uint8Array[];
let goodWithCa: Uint8Array[];
let rogue: Uint8Array[];
beforeAll(() => {
  pki = pkiOf();
  caText = readFileSync(pki.ca.certFile, 'utf8');
  rogueText = readFileSync(pki.rogueCa.certFile, 'utf8');
  good = ders(pki.clients.good.cert);
  goodWithCa = [...good, ...ders(caText)];
  rogue = ders(pki.clients.rogueCa.cert);
});

const judges: ChainJudge[] = [];
afterEach(async () => {
  for (const judge of judges.splice(0)) await judge.close();
});
const make = (options: ChainJudgeOptions = {}, texts: readonly string[] = [caText]): ChainJudge => {
  const judge = createChainJudge(texts, options);
  judges.push(judge);
  return judge;
};

describe('ChainJudge.verdictNow', () => {
  it('decides an ordinary chain here, caches it, and starts no thread', () => {
    const judge = make();
    expect(judge.knownVerdict(good)).toBeUndefined();
    expect(judge.verdictNow(good)).toEqual({ accept: true });
    expect(judge.knownVerdict(good)).toEqual({ accept: true });
    expect(judge.verdictNow(goodWithCa)).toEqual({ accept: true });
    expect(judge.verdictNow(rogue)).toEqual({ accept: false, reason: expect.stringContaining('x509: certificate signed by unknown authority') as unknown as string });
    expect(judge.threads).toBe(0);
  });

  it('takes the verdict under the trust in force: a reload rebuilds its pool', () => {
    const judge = make();
    expect(judge.verdictNow(good)?.accept).toBe(true);
    judge.setTrust([rogueText]);
    expect(judge.verdictNow(good)?.accept).toBe(false);
    expect(judge.verdictNow(rogue)?.accept).toBe(true);
  });

  it('leaves to a thread a chain past the limits, past the small-chain size, or over the time budget', async () => {
    expect(make({ inline: { ...DEFAULT_INLINE_LIMITS, maxSignatureChecks: 0 } }).verdictNow(good)).toBeUndefined();
    expect(make({ inline: false }).verdictNow(good)).toBeUndefined();
    const five = [...good, ...ders(caText), ...ders(caText), ...ders(caText), ...ders(caText)];
    const judge = make();
    expect(judge.verdictNow(five)).toBeUndefined();
    expect(judge.threads).toBe(0);
    // The thread decides it, as the same rules would here.
    expect(await judge.judge(five)).toEqual({ accept: true });
    expect(judge.threads).toBe(1);

    // A budget the first check spends: the next chain in the same second goes to a thread.
    const budgeted = make({ inline: { ...DEFAULT_INLINE_LIMITS, maxMsPerSecond: 0.001 } });
    expect(budgeted.verdictNow(good)).toEqual({ accept: true });
    expect(budgeted.verdictNow(goodWithCa)).toBeUndefined();
    expect(await budgeted.judge(goodWithCa)).toEqual({ accept: true });
    expect(budgeted.threads).toBe(1);
  });

  it('builds no pool on this thread for trust larger than maxTrustBytes: every chain goes to a thread, which decides it the same way', async () => {
    // About 0.1 ms per CA on the event loop at each reload: 2,001 CAs held it for a fifth of a second.
    const large = [caText + '\n'.repeat(DEFAULT_INLINE_LIMITS.maxTrustBytes!)];
    const judge = make({}, large);
    expect(judge.verdictNow(good)).toBeUndefined();
    expect(await judge.judge(good)).toEqual({ accept: true });
    judge.setTrust([caText]);
    expect(judge.verdictNow(goodWithCa)).toEqual({ accept: true });
    judge.setTrust(large);
    expect(judge.verdictNow(rogue)).toBeUndefined();
  });

  it('after a reload, builds its pool in slices of TRUST_SLICE_BLOCKS blocks, one per turn of the event loop; meanwhile the threads decide under the new trust, whole', async () => {
    const judge = make({}, [rogueText]);
    // 301 blocks: about 40 ms in one stretch when built at once (Node 20)
    const many = [rogueText.repeat(300), caText];
    judge.setTrust(many);
    expect(judge.verdictNow(good)).toBeUndefined();
    const turn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));
    await turn();
    expect(judge.verdictNow(goodWithCa)).toBeUndefined();
    // never under the old trust (the rogue CA alone refuses the good client), never under part
    // of the new (the real CA that admits it comes last)
    expect(await judge.judge(good)).toEqual({ accept: true });
    let turns = 1;
    while (judge.verdictNow(goodWithCa) === undefined && turns < 1000) {
      await turn();
      turns += 1;
    }
    expect(judge.verdictNow(goodWithCa)).toEqual({ accept: true });
    expect(turns).toBeGreaterThanOrEqual(Math.floor(301 / TRUST_SLICE_BLOCKS) / 2);
    expect(judge.verdictNow(rogue)).toEqual({ accept: true });

    // A newer trust abandons the build: the pool completed is the newest's.
    judge.setTrust(many);
    judge.setTrust([caText]);
    for (let i = 0; i < 30; i++) await turn();
    expect(judge.verdictNow(rogue)?.accept).toBe(false);
  });

  it('gives nothing once closed', async () => {
    const judge = make();
    await judge.close();
    expect(judge.verdictNow(good)).toBeUndefined();
  });
});
