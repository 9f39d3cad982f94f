import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import bunyan from 'bunyan';
import { describe, expect, it } from 'vitest';
import { createBunyanLogging, heldChildren } from './bunyan.ts';

function memoryRoot() {
  const records: { logger?: string; level: number; msg: string }[] = [];
  const root = bunyan.createLogger({ name: 'test', streams: [{ type: 'raw', level: 'trace', stream: { write: (rec: object) => void records.push(rec as never) } as never }] });
  return { root, records, seen: () => records.map((r) => `${String(r.logger ?? '-')} ${bunyan.nameFromLevel[r.level]} ${r.msg}`) };
}

describe('createBunyanLogging', () => {
  it('gives each name the level the spec gives it, live, children made before and after included', () => {
    const { root, seen } = memoryRoot();
    const logging = createBunyanLogging({ root });
    const db = logging.getLogger('app.db');
    const http = logging.getLogger('app.http');
    expect(logging.getLogger('app.db')).toBe(db);
    const request = db.child({ requestId: 1 });
    const simple = db.child({ requestId: 2 }, true);
    const own = db.child({ level: 'error' });
    db.debug('db debug 1');
    request.debug('request debug 1');
    logging.activateSpec('app.db=debug:warn');
    db.debug('db debug 2');
    request.debug('request debug 2');
    simple.debug('simple debug 2');
    db.child({ requestId: 3 }).debug('later child debug 2');
    own.warn('own warn: keeps the level it was given');
    http.info('http info 2');
    http.warn('http warn 2');
    expect(seen()).toEqual(['app.db debug db debug 2', 'app.db debug request debug 2', 'app.db debug simple debug 2', 'app.db debug later child debug 2', 'app.http warn http warn 2']);
    expect(db.debug()).toBe(true);
    expect(http.info()).toBe(false);
    // pino and bunyan end at fatal: a dpanic threshold behaves as fatal.
    logging.activateSpec('app.http.=dpanic');
    expect([http.level(), db.level()]).toEqual([bunyan.FATAL, bunyan.INFO]);
  });

  it('follows a logger the application made, and stops when told', () => {
    const { root, seen } = memoryRoot();
    const logging = createBunyanLogging({ spec: 'orders=debug' });
    const existing = root.child({ component: 'orders' });
    const stop = logging.follow('orders', existing);
    existing.debug('shown');
    expect(() => logging.follow('again', existing)).toThrow(expect.objectContaining({ code: 'INVALID_OPTIONS' }));
    stop();
    logging.activateSpec('orders=error');
    existing.debug('still shown: no longer followed');
    expect(seen()).toEqual(['- debug shown', '- debug still shown: no longer followed']);
  });

  it('counts checked and written entries for the metrics observer', () => {
    const { root } = memoryRoot();
    const checked: string[] = [];
    const written: string[] = [];
    const logging = createBunyanLogging({ root, spec: 'a=debug:warn', observer: { checked: (l) => checked.push(l), written: (l) => written.push(l) } });
    const a = logging.getLogger('a');
    const b = logging.getLogger('b').child({ x: 1 });
    a.trace('below the lowest level');
    a.debug('a debug');
    b.info('b info');
    b.error('b error');
    expect(a.info()).toBe(true); // a question, not an entry: not counted
    expect(checked).toEqual(['debug', 'info', 'error']);
    expect(written).toEqual(['debug', 'error']);
  });

  it('holds children weakly: a child per request is let go once the request is', async () => {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const { root } = memoryRoot();
    const logging = createBunyanLogging({ root, spec: 'app=debug' });
    const app = logging.getLogger('app');
    const kept = app.child({ requestId: 'kept' });
    for (let i = 0; i < 20_000; i++) app.child({ requestId: i }).debug('request');
    expect(heldChildren(app)).toBe(20_001);
    const deadline = Date.now() + 30_000;
    while (heldChildren(app) > 1 && Date.now() < deadline) {
      gc();
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(heldChildren(app)).toBe(1);
    // The one still referenced keeps following.
    logging.activateSpec('app=error');
    expect(kept.level()).toBe(bunyan.ERROR);
  });
});
