import { describe, expect, it } from 'vitest';
import { createJobQueue, type QueuedJob } from './job-queue.ts';

let seq = 0;
const job = (bytes: number, source: string, express = bytes <= 8192): QueuedJob => ({ seq: seq++, bytes, source, express });

describe('createJobQueue', () => {
  it('gives the smaller chain the thread first, whatever the arrival order', () => {
    const queue = createJobQueue(10, 1e9);
    const attack = job(28_000, 'a');
    const operator = job(1_500, 'a');
    queue.add(attack);
    queue.add(operator);
    expect(queue.take(false)).toBe(operator);
    expect(queue.take(false)).toBe(attack);
  });

  it('within a size class, serves the address with the fewest chains in the system first', () => {
    const queue = createJobQueue(10, 1e9);
    const flood = [job(1_500, 'attacker'), job(1_600, 'attacker'), job(1_700, 'attacker')];
    for (const j of flood) queue.add(j);
    const running = queue.take(false)!;
    expect(running).toBe(flood[0]);
    const operator = job(1_900, 'operator');
    queue.add(operator);
    expect(queue.take(false)).toBe(operator);
    queue.done(running);
  });

  it('the small-chain thread takes only chains marked for it', () => {
    const queue = createJobQueue(10, 1e9);
    queue.add(job(20_000, 'a'));
    expect(queue.take(true)).toBeUndefined();
    expect(queue.size).toBe(1);
  });

  it('stays within its bounds by pushing out the lowest-ranked job, the newcomer included', () => {
    const queue = createJobQueue(2, 1e9);
    queue.add(job(20_000, 'a'));
    queue.add(job(20_000, 'a'));
    expect(queue.add(job(1_000, 'b'))).toMatchObject({ bytes: 20_000, source: 'a' });
    const late = job(30_000, 'a');
    expect(queue.add(late)).toBe(late);
    expect(queue.size).toBe(2);
    const bytesBound = createJobQueue(100, 10_000);
    bytesBound.add(job(6_000, 'a'));
    expect(bytesBound.add(job(6_000, 'a'))).toMatchObject({ bytes: 6_000 });
    expect(bytesBound.size).toBe(1);
  });
});
