import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { BUSY_REASON, createChainJudge, SMALL_CERTIFICATE_BYTES, type ChainJudge } from './verdicts.ts';

// A stand-in verifier (this file tests the plumbing, not the rules): it numbers the checks it
// makes, says which trust generation it holds, and never answers for a list whose first byte is 0xff.
const dir = mkdtempSync(join(tmpdir(), 'ops-tls-verdicts-'));
const workerFile = join(dir, 'counting-verifier.mjs');
writeFileSync(
  workerFile,
  `import { parentPort } from 'node:worker_threads';
let calls = 0; let generation = -1; let texts = [];
parentPort.on('message', (m) => {
  if (m.kind === 'trust') { generation = m.generation; texts = m.pemTexts; return; }
  if (m.certificates[0][0] === 0xff) return;
  calls += 1;
  parentPort.postMessage({ kind: 'verdict', id: m.id, generation, accept: false, reason: 'check ' + calls + ' with ' + texts.join('+') });
});
`,
);
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const judges: ChainJudge[] = [];
afterEach(async () => {
  for (const judge of judges.splice(0)) await judge.close();
});
const make = (options: Parameters<typeof createChainJudge>[1] = {}): ChainJudge => {
  const judge = createChainJudge(['ca-1'], { workerFile, ...options });
  judges.push(judge);
  return judge;
};
const small = (tag: number): Uint8Array[] => [new Uint8Array([tag, 1, 2]), new Uint8Array([9])];
const stuck = (): Uint8Array[] => [new Uint8Array([0xff, 0])];
const large = (tag: number): Uint8Array[] => [new Uint8Array([tag]), new Uint8Array(SMALL_CERTIFICATE_BYTES + 1)];

describe('createChainJudge', () => {
  it('answers a list seen before from the cache, and shares one check between identical lists in flight', async () => {
    const judge = make();
    const [a, b] = await Promise.all([judge.judge(small(1)), judge.judge(small(1))]);
    expect(a).toEqual({ accept: false, reason: 'check 1 with ca-1' });
    expect(b).toEqual(a);
    expect(await judge.judge(small(1))).toEqual(a);
    expect(await judge.judge(small(2))).toEqual({ accept: false, reason: 'check 2 with ca-1' });
  });

  it('checks again once the TTL has passed', async () => {
    const judge = make({ cacheTtlMs: 0 });
    expect(await judge.judge(small(1))).toMatchObject({ reason: 'check 1 with ca-1' });
    expect(await judge.judge(small(1))).toMatchObject({ reason: 'check 2 with ca-1' });
  });

  it('setTrust hands the worker the new CA texts and drops cached verdicts', async () => {
    const judge = make();
    expect(await judge.judge(small(1))).toMatchObject({ reason: 'check 1 with ca-1' });
    judge.setTrust(['ca-2', 'ca-3']);
    expect(await judge.judge(small(1))).toMatchObject({ reason: 'check 2 with ca-2+ca-3' });
  });

  it('keeps the cache bounded: the oldest verdict goes first', async () => {
    const judge = make({ maxCached: 2 });
    for (const tag of [1, 2, 3]) await judge.judge(small(tag));
    expect(await judge.judge(small(3))).toMatchObject({ reason: 'check 3 with ca-1' });
    expect(await judge.judge(small(1))).toMatchObject({ reason: 'check 4 with ca-1' });
  });

  it('judges chains with an oversized certificate in a lane of their own: ordinary ones never wait behind them', async () => {
    const judge = make();
    const big = [new Uint8Array([0xff]), new Uint8Array(SMALL_CERTIFICATE_BYTES + 1)];
    const waiting = judge.judge(big); // never answered
    expect(await judge.judge(small(1))).toMatchObject({ reason: 'check 1 with ca-1' });
    // The large lane has a worker (and a count) of its own.
    expect(await judge.judge(large(7))).toMatchObject({ reason: 'check 1 with ca-1' });
    expect(judge.waiting).toBe(1);
    await judge.close();
    expect(await waiting).toEqual({ accept: false, reason: 'tls: server closed' });
  });

  it('refuses past the queue bound instead of queueing without limit', async () => {
    const judge = make({ maxQueued: 1 });
    void judge.judge(stuck());
    expect(await judge.judge([new Uint8Array([0xff, 1])])).toEqual({ accept: false, reason: BUSY_REASON });
  });

  it('refuses with a clear reason when the worker script is missing', async () => {
    const judge = make({ workerFile: join(dir, 'missing.mjs') });
    expect(await judge.judge(small(1))).toMatchObject({ accept: false, reason: expect.stringMatching(/missing\.mjs is missing; build @fabric-ops\/ops-tls-auth first$/) });
  });
});
