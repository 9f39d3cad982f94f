import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { BUSY_REASON, createChainJudge, EXPRESS_MAX_BYTES, TOO_LONG_REASON, type ChainJudge } from './judge.ts';

// A stand-in verifier (this file tests the scheduling, not the rules). It numbers the checks it
// makes, says which trust generation and texts it holds, and notes each check it starts in a
// log file. The first byte of a list says how it behaves: 0xff never answers, 0xfe holds its
// thread for 300 ms before answering, 0xfd spins until stopped, 0xfc says its verdict must be
// checked again after 1.5 s. CA texts 'broken' make it report a trust error, 'slow' take 800 ms
// to load (a pool of thousands of CAs).
const dir = mkdtempSync(join(tmpdir(), 'ops-tls-verdicts-'));
const workerFile = join(dir, 'counting-verifier.mjs');
const startedLog = join(dir, 'started.log');
const bootLog = join(dir, 'boots.log');
writeFileSync(
  workerFile,
  `import { parentPort } from 'node:worker_threads';
import { appendFileSync } from 'node:fs';
appendFileSync(${JSON.stringify(bootLog)}, 'boot\\n');
let calls = 0; let generation = -1; let texts = [];
parentPort.on('message', (m) => {
  if (m.kind === 'trust') {
    generation = m.generation; texts = m.pemTexts;
    if (texts[0] === 'broken') parentPort.postMessage({ kind: 'trust-error', generation, message: 'bad pem', fileIndex: 0 });
    if (texts[0] === 'slow') { const until = Date.now() + 800; while (Date.now() < until); }
    parentPort.postMessage({ kind: 'ready', generation });
    return;
  }
  const [kind, tag] = m.certificates[0];
  appendFileSync(${JSON.stringify(startedLog)}, kind + ':' + tag + '\\n');
  if (kind === 0xff) return;
  if (kind === 0xfe) { const until = Date.now() + 300; while (Date.now() < until); }
  if (kind === 0xfd) for (;;);
  calls += 1;
  parentPort.postMessage({ kind: 'verdict', id: m.id, generation, accept: false, reason: 'check ' + calls + ' with ' + texts.join('+'),
    recheckAt: kind === 0xfc ? m.now + 1500 : undefined });
});
`,
);
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const judges: ChainJudge[] = [];
afterEach(async () => {
  for (const judge of judges.splice(0)) await judge.close();
  rmSync(startedLog, { force: true });
  rmSync(bootLog, { force: true });
});
const make = (options: Parameters<typeof createChainJudge>[1] = {}, texts = ['ca-1']): ChainJudge => {
  // A generous small-chain budget: on a loaded machine even a trivial check can take a while,
  // and a check moved to the other thread would change the numbering these tests read.
  // Inline checks off: these lists are not certificates, and every one must reach the stand-in.
  const judge = createChainJudge(texts, { workerFile, workers: 2, expressBudgetMs: 5_000, inline: false, ...options });
  judges.push(judge);
  return judge;
};
const started = (): string[] => {
  try {
    return readFileSync(startedLog, 'utf8').trim().split('\n');
  } catch {
    return [];
  }
};
const list = (kind: number, tag: number, extraBytes = 0): Uint8Array[] => [new Uint8Array([kind, tag, 2]), new Uint8Array(Math.max(1, extraBytes))];
const small = (tag: number): Uint8Array[] => list(1, tag);
/** Over the small-chain size, in certificates each no larger than an ordinary one. */
const largeOfSmallCertificates = (kind: number, tag: number, count = 5): Uint8Array[] => [
  new Uint8Array([kind, tag]),
  ...Array.from({ length: count }, () => new Uint8Array(Math.ceil(EXPRESS_MAX_BYTES / 5) + 1)),
];
/** Verifier threads started since the last test. */
const boots = (): number => {
  try {
    return readFileSync(bootLog, 'utf8').trim().split('\n').length;
  } catch {
    return 0;
  }
};
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

describe('createChainJudge: cache and trust', () => {
  it("counts a check's budget from the thread's pool being built: a trust slow to load moves no check and starts no other thread", async () => {
    const judge = make({ expressBudgetMs: 400 }, ['slow']);
    expect(await judge.judge(small(1))).toEqual({ accept: false, reason: 'check 1 with slow' });
    judge.setTrust(['slow', 'ca-2']);
    expect(await judge.judge(small(2))).toEqual({ accept: false, reason: 'check 2 with slow+ca-2' });
    expect(boots()).toBe(1);
  });

  it('answers a list seen before from the cache, and shares one check between identical lists in flight', async () => {
    const judge = make();
    const [a, b] = await Promise.all([judge.judge(small(1)), judge.judge(small(1))]);
    expect(a).toEqual({ accept: false, reason: 'check 1 with ca-1' });
    expect(b).toEqual(a);
    expect(await judge.judge(small(1))).toEqual(a);
    expect(await judge.judge(small(2))).toEqual({ accept: false, reason: 'check 2 with ca-1' });
  });

  it('knownVerdict answers a list already judged, at once, and nothing else: not before, not after new trust, not once closed', async () => {
    const judge = make();
    expect(judge.knownVerdict(small(1))).toBeUndefined();
    const verdict = await judge.judge(small(1));
    expect(judge.knownVerdict(small(1))).toEqual(verdict);
    expect(judge.knownVerdict(small(2))).toBeUndefined();
    judge.setTrust(['ca-2']);
    expect(judge.knownVerdict(small(1))).toBeUndefined();
    await judge.judge(small(1));
    expect(judge.knownVerdict(small(1))).toMatchObject({ reason: 'check 2 with ca-2' });
    await judge.close();
    expect(judge.knownVerdict(small(1))).toBeUndefined();
  });

  it('checks again once the TTL has passed', async () => {
    const judge = make({ cacheTtlMs: 0 });
    expect(await judge.judge(small(1))).toMatchObject({ reason: 'check 1 with ca-1' });
    expect(await judge.judge(small(1))).toMatchObject({ reason: 'check 2 with ca-1' });
  });

  it('never reuses a verdict past the next validity boundary the verifier names, however long the TTL', async () => {
    const judge = make({ cacheTtlMs: 60_000 });
    expect(await judge.judge(list(0xfc, 1))).toMatchObject({ reason: 'check 1 with ca-1' });
    expect(await judge.judge(list(0xfc, 1))).toMatchObject({ reason: 'check 1 with ca-1' });
    await sleep(1_600);
    expect(await judge.judge(list(0xfc, 1))).toMatchObject({ reason: 'check 2 with ca-1' });
  });

  it('setTrust hands the verifiers the new CA texts and drops cached verdicts', async () => {
    const judge = make();
    expect(await judge.judge(small(1))).toMatchObject({ reason: 'check 1 with ca-1' });
    judge.setTrust(['ca-2', 'ca-3']);
    expect(await judge.judge(small(1))).toMatchObject({ reason: 'check 2 with ca-2+ca-3' });
  });

  it('never gives a verdict taken under trust a reload replaced while the check ran: the chain is checked again', async () => {
    const judge = make();
    const verdict = judge.judge(list(0xfe, 1));
    await sleep(50); // the check is running; the new trust waits behind it on that thread
    judge.setTrust(['ca-2']);
    expect(await verdict).toEqual({ accept: false, reason: expect.stringMatching(/^check \d with ca-2$/) });
  });

  it('keeps the cache bounded: the oldest verdict goes first', async () => {
    const judge = make({ maxCached: 2 });
    for (const tag of [1, 2, 3]) await judge.judge(small(tag));
    expect(await judge.judge(small(3))).toMatchObject({ reason: 'check 3 with ca-1' });
    expect(await judge.judge(small(1))).toMatchObject({ reason: 'check 4 with ca-1' });
  });

  it('reports a pool that cannot be built once per trust generation, naming the file', async () => {
    const reports: [string, number | undefined][] = [];
    const judge = make({ onTrustError: (message, fileIndex) => reports.push([message, fileIndex]) }, ['broken']);
    await Promise.all([judge.judge(small(1)), judge.judge(small(2))]); // both threads have the trust
    expect(reports).toEqual([['bad pem', 0]]);
    judge.setTrust(['broken', 'ca-2']);
    await Promise.all([judge.judge(small(3)), judge.judge(small(4))]);
    expect(reports).toEqual([
      ['bad pem', 0],
      ['bad pem', 0],
    ]);
  });
});

describe('createChainJudge: scheduling under attack', () => {
  it('never starts a check for a connection that closed while it waited', async () => {
    const judge = make({ maxCheckMs: 300 });
    void judge.judge(list(0xff, 1));
    void judge.judge(list(0xff, 2)); // both threads are busy
    const closed = new AbortController();
    const abandoned = judge.judge(small(5), { signal: closed.signal });
    closed.abort();
    expect(await abandoned).toEqual({ accept: false, reason: 'tls: connection closed' });
    expect(await judge.judge(small(6))).toMatchObject({ reason: expect.stringMatching(/^check \d with ca-1$/) }); // after the stuck ones were abandoned
    expect(started()).toContain('1:6');
    expect(started()).not.toContain('1:5');
  });

  it('never starts a check past the deadline of every connection waiting for it', async () => {
    const judge = make({ maxCheckMs: 300 });
    void judge.judge(list(0xff, 1));
    void judge.judge(list(0xff, 2));
    expect(await judge.judge(small(5), { deadline: Date.now() + 100 })).toMatchObject({ accept: false });
    expect(await judge.judge(small(6))).toMatchObject({ reason: expect.stringMatching(/^check \d with ca-1$/) });
    expect(started()).toContain('1:6');
    expect(started()).not.toContain('1:5');
  });

  it('abandons a check running past its budget, replacing its thread, and keeps answering', async () => {
    const judge = make({ maxCheckMs: 300 });
    expect(await judge.judge(list(0xfd, 1))).toEqual({ accept: false, reason: TOO_LONG_REASON });
    expect(await judge.judge(small(2))).toMatchObject({ reason: 'check 1 with ca-1' });
    expect(judge.waiting).toBe(0);
  });

  it('keeps the thread of a check nobody waits for any more: the check runs on within its budget and its verdict is cached', async () => {
    const judge = make();
    const closed = new AbortController();
    const abandoned = judge.judge(largeOfSmallCertificates(0xfe, 1), { signal: closed.signal });
    await sleep(100);
    closed.abort();
    expect(await abandoned).toEqual({ accept: false, reason: 'tls: connection closed' });
    await expect.poll(() => judge.waiting).toBe(0);
    // The check finished on the thread it began on; a client reconnecting with the list is answered from the cache.
    expect(judge.knownVerdict(largeOfSmallCertificates(0xfe, 1))).toEqual({ accept: false, reason: 'check 1 with ca-1' });
    expect(await judge.judge(largeOfSmallCertificates(1, 2))).toMatchObject({ reason: 'check 2 with ca-1' });
    expect(boots()).toBe(1);
  });

  it('starts no verifier thread for clients that hang up while their check runs', async () => {
    const judge = make();
    for (let tag = 1; tag <= 6; tag++) {
      const closed = new AbortController();
      const verdict = judge.judge(largeOfSmallCertificates(0xfe, tag), { signal: closed.signal });
      // The first hangs up before its thread is ready, the others once their check has run past
      // the moment a check nobody waited for used to be stopped.
      await sleep(tag === 1 ? 0 : 60);
      closed.abort();
      await verdict;
    }
    await expect.poll(() => judge.waiting, { timeout: 5_000 }).toBe(0);
    // One thread for the general checks, started once; hung-up checks queued behind a running one never started.
    expect(boots()).toBe(1);
    expect(judge.threads).toBe(1);
  });

  it('answers an ordinary chain while every other thread checks large chains made of ordinary-sized certificates', async () => {
    const judge = make();
    void judge.judge(largeOfSmallCertificates(0xff, 1));
    void judge.judge(largeOfSmallCertificates(0xff, 2));
    expect(await judge.judge(small(3))).toMatchObject({ reason: 'check 1 with ca-1' });
  });

  it('when full, pushes out the most expensive queued chain for a cheaper newcomer', async () => {
    const judge = make({ maxQueued: 2, maxCheckMs: 400 });
    void judge.judge(list(0xff, 1));
    void judge.judge(list(0xff, 2)); // both threads busy
    const largest = judge.judge(largeOfSmallCertificates(0xff, 3, 10));
    void judge.judge(largeOfSmallCertificates(0xff, 4));
    const cheap = judge.judge(small(5));
    expect(await largest).toEqual({ accept: false, reason: BUSY_REASON });
    expect(await cheap).toMatchObject({ reason: expect.stringMatching(/^check \d with ca-1$/) });
  });

  it('moves a check too slow for the small-chain thread to the others, where it is still answered', async () => {
    const judge = make({ expressBudgetMs: 100 });
    expect(await judge.judge(list(0xfe, 1))).toMatchObject({ reason: expect.stringMatching(/^check 1 with ca-1$/) });
    expect(started()).toEqual(['254:1', '254:1']); // begun on the small-chain thread, finished on the other
  });

  it('refuses with a clear reason when the worker script is missing', async () => {
    const judge = make({ workerFile: join(dir, 'missing.mjs') });
    expect(await judge.judge(small(1))).toMatchObject({ accept: false, reason: expect.stringMatching(/missing\.mjs is missing; build @fabric-ops\/go-x509 first$/) });
  });
});

describe('createChainJudge: threads started lazily, ended when idle', () => {
  const until = async (condition: () => boolean, timeoutMs = 5_000): Promise<void> => {
    const end = Date.now() + timeoutMs;
    while (!condition() && Date.now() < end) await sleep(20);
  };

  it('holds no thread until a chain needs checking, starts one for it, and none for a cached verdict', async () => {
    const judge = make();
    await sleep(100);
    expect(judge.threads).toBe(0);
    expect(await judge.judge(small(1))).toEqual({ accept: false, reason: 'check 1 with ca-1' });
    expect(judge.threads).toBe(1);
    expect(await judge.judge(small(1))).toEqual({ accept: false, reason: 'check 1 with ca-1' });
    expect(judge.threads).toBe(1);
  });

  it('ends a thread left without work for the idle period, and starts a new one for the next check', async () => {
    const judge = make({ idleThreadMs: 150, cacheTtlMs: 0 });
    await judge.judge(small(1));
    expect(judge.threads).toBe(1);
    await until(() => judge.threads === 0);
    expect(judge.threads).toBe(0);
    // A new thread, so the numbering starts again.
    expect(await judge.judge(small(2))).toEqual({ accept: false, reason: 'check 1 with ca-1' });
    expect(judge.threads).toBe(1);
  });

  it('grows up to the pool size under load, and reuses a running thread before starting another', async () => {
    const judge = make({ workers: 3, cacheTtlMs: 0 });
    await judge.judge(small(1));
    await judge.judge(small(2));
    expect(judge.threads).toBe(1);
    await Promise.all([judge.judge(list(0xfe, 3)), judge.judge(list(0xfe, 4)), judge.judge(list(0xfe, 5)), judge.judge(list(0xfe, 6))]);
    expect(judge.threads).toBe(3);
  });

  it('hands a thread started after a reload the new trust, not the old', async () => {
    const judge = make();
    judge.setTrust(['ca-2']);
    expect(await judge.judge(small(1))).toEqual({ accept: false, reason: 'check 1 with ca-2' });
  });
});
