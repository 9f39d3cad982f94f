import { describe, expect, it } from 'vitest';
import { createReadinessState } from './readiness.ts';

describe('readiness state', () => {
  it('is open by default, so the bins stay ready as soon as their checks pass', () => {
    const state = createReadinessState();
    expect(state.isReady()).toBe(true);
    expect(state.blockers()).toEqual([]);
  });

  it('with requireReadySignal, waits for signalReady(), and signalNotReady() closes it again with a reason', () => {
    const state = createReadinessState({ requireReadySignal: true });
    expect(state.isReady()).toBe(false);
    expect(state.blockers()).toEqual([{ component: 'ready-signal', reason: 'the application has not signalled ready yet' }]);
    state.signalReady();
    expect(state.isReady()).toBe(true);
    state.signalNotReady('cache is rebuilding');
    expect(state.blockers()).toEqual([{ component: 'ready-signal', reason: 'cache is rebuilding' }]);
    state.signalNotReady();
    expect(state.blockers()).toEqual([{ component: 'ready-signal', reason: 'the application signalled not ready' }]);
    state.signalReady();
    expect(state.blockers()).toEqual([]);
  });

  it('waits for every blocking task, in creation order, and only the first settlement counts', () => {
    const state = createReadinessState();
    const migrations = state.createBlockingTask('migrations');
    const warmup = state.createBlockingTask('cache-warmup');
    expect(state.blockers()).toEqual([
      { component: 'startup', reason: "waiting for start-up task 'migrations'" },
      { component: 'startup', reason: "waiting for start-up task 'cache-warmup'" },
    ]);
    // Unbound use, as in promise.then(task.resolve, task.reject).
    const { resolve } = warmup;
    resolve();
    expect(state.blockers()).toEqual([{ component: 'startup', reason: "waiting for start-up task 'migrations'" }]);
    migrations.resolve();
    migrations.reject(new Error('too late'));
    expect(state.isReady()).toBe(true);
  });

  it('stays not ready after a blocking task fails, naming the failure', () => {
    const state = createReadinessState();
    const task = state.createBlockingTask('migrations');
    task.reject(new Error('relation "orders" does not exist'));
    task.resolve();
    expect(state.isReady()).toBe(false);
    expect(state.blockers()).toEqual([{ component: 'startup', reason: 'start-up task \'migrations\' failed: relation "orders" does not exist' }]);
    const quiet = createReadinessState();
    quiet.createBlockingTask('x').reject();
    expect(quiet.blockers()).toEqual([{ component: 'startup', reason: "start-up task 'x' failed: no reason given" }]);
  });

  it('closes for good at shutdown, listing shutdown first', () => {
    const state = createReadinessState({ requireReadySignal: true });
    state.createBlockingTask('migrations');
    state.beginShutdown();
    state.signalReady();
    expect(state.isShuttingDown()).toBe(true);
    expect(state.isReady()).toBe(false);
    expect(state.blockers()).toEqual([
      { component: 'shutdown', reason: 'the process is shutting down' },
      { component: 'startup', reason: "waiting for start-up task 'migrations'" },
    ]);
  });
});
