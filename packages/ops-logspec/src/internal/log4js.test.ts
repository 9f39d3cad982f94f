import log4js from 'log4js';
import { afterEach, describe, expect, it } from 'vitest';
import { createLog4jsLogging } from './log4js.ts';

const events: string[] = [];
function configure(extra: Partial<log4js.Configuration> = {}): void {
  events.length = 0;
  log4js.configure({
    appenders: { memory: { type: { configure: () => (event: log4js.LoggingEvent) => void events.push(`${event.categoryName} ${event.level.levelStr} ${String(event.data[0])}`) } as never } },
    categories: { default: { appenders: ['memory'], level: 'info' } },
    ...extra,
  });
}

afterEach(() => log4js.shutdown());

describe('createLog4jsLogging', () => {
  it('gives each category the level the spec gives it, live, whichever Logger object logs', () => {
    configure();
    const logging = createLog4jsLogging();
    const db = logging.getLogger('app.db');
    const http = logging.getLogger('app.http');
    expect(logging.getLogger('app.db')).toBe(db);
    db.debug('db debug 1');
    logging.activateSpec('app.db=debug:warn');
    db.debug('db debug 2');
    log4js.getLogger('app.db').debug('another Logger object of the category, debug 2');
    http.info('http info 2');
    http.warn('http warn 2');
    expect(events).toEqual(['app.db DEBUG db debug 2', 'app.db DEBUG another Logger object of the category, debug 2', 'app.http WARN http warn 2']);
    logging.activateSpec('app=error:app.db.=payload');
    expect([String(db.level), String(http.level)]).toEqual(['TRACE', 'ERROR']);
  });

  it('maps custom levels by name and position, and follows a logger the application made', () => {
    configure({ levels: { NOTICE: { value: 25000, colour: 'cyan' }, CHATTY: { value: 7000, colour: 'grey' } } });
    const logging = createLog4jsLogging({ spec: 'warn' });
    const existing = log4js.getLogger('billing');
    const stop = logging.follow('billing', existing);
    existing.log('NOTICE', 'notice hidden');
    logging.activateSpec('billing=info');
    existing.log('NOTICE', 'notice shown: Fabric reads notice as info');
    existing.log('CHATTY', 'chatty hidden: between trace and debug, it counts as trace');
    logging.activateSpec('billing=payload');
    existing.log('CHATTY', 'chatty shown');
    expect(events).toEqual(['billing NOTICE notice shown: Fabric reads notice as info', 'billing CHATTY chatty shown']);
    stop();
    logging.activateSpec('error');
    expect(String(existing.level)).toBe('TRACE');
  });

  it('counts checked and written entries for the metrics observer', () => {
    configure();
    const checked: string[] = [];
    const written: string[] = [];
    const logging = createLog4jsLogging({ spec: 'a=debug:warn', observer: { checked: (l) => checked.push(l), written: (l) => written.push(l) } });
    const a = logging.getLogger('a');
    const b = logging.getLogger('b');
    a.trace('below the lowest level');
    a.debug('a debug');
    b.info('b info');
    b.error('b error');
    expect(checked).toEqual(['debug', 'info', 'error']);
    expect(written).toEqual(['debug', 'error']);
    expect(events).toEqual(['a DEBUG a debug', 'b ERROR b error']);
  });
});
