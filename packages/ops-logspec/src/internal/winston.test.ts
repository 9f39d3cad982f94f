import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import winston from 'winston';
import { logspecHandler } from './handler.ts';
import { createLogLevels } from './levels-registry.ts';
import { createWinstonLogging } from './winston.ts';

const MESSAGE = Symbol.for('message');
const LEVEL = Symbol.for('level');

/** A real winston transport that keeps each formatted line (and the entry's level). */
// winston's types call the class `transport`; at run time it is `Transport`.
const Transport = (winston as unknown as { Transport: typeof winston.transport }).Transport;

class Memory extends Transport {
  readonly lines: string[] = [];
  override log(info: Record<string | symbol, unknown>, next: () => void): void {
    this.lines.push(`${String(info[LEVEL])} ${String(info[MESSAGE])}`);
    next();
  }
}

// winston hands entries to its transports through piped streams: let them flow.
const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('createWinstonLogging: loggers made by name', () => {
  it('gives each name the level the spec gives it, live, children included', async () => {
    const out = new Memory();
    const logging = createWinstonLogging({ transports: [out], format: winston.format.printf((i) => `[${String(i['logger'])}] ${String(i.message)}`) });
    const db = logging.getLogger('app.db');
    const http = logging.getLogger('app.http');
    expect(logging.getLogger('app.db')).toBe(db);
    const request = http.child({ requestId: 7 });
    db.debug('db debug 1');
    http.info('http info 1');
    request.info('request info 1');
    logging.activateSpec('app.db=debug:warn');
    db.debug('db debug 2');
    http.info('http info 2');
    request.info('request info 2');
    http.warn('http warn 2');
    await settle();
    expect(out.lines).toEqual(['info [app.http] http info 1', 'info [app.http] request info 1', 'debug [app.db] db debug 2', 'warn [app.http] http warn 2']);
    expect(db.level).toBe('debug');
    expect(http.isLevelEnabled('info')).toBe(false);
    expect(http.isWarnEnabled()).toBe(true);
    expect(db.isDebugEnabled()).toBe(true);
    // Fabric's dotted names: `app` covers app.db and app.http; `app.db.` is app.db alone.
    logging.activateSpec('app=error:app.db.=info');
    expect([db.level, http.level]).toEqual(['info', 'error']);
    expect(logging.spec()).toBe('app.db.=info:app=error:info');
  });

  it('writes the default text line with the logger name and fields', async () => {
    const out = new Memory();
    const logging = createWinstonLogging({ transports: [out] });
    logging.getLogger('gossip.privdata').info('hello', { channel: 'c1' });
    await settle();
    expect(out.lines).toHaveLength(1);
    expect(out.lines[0]).toMatch(/^info \d{4}-\d\d-\d\dT[\d:.]+Z \[gossip\.privdata\] INFO hello channel=c1$/);
  });

  it('refuses a name Fabric refuses', () => {
    expect(() => createWinstonLogging().getLogger('a b')).toThrow(expect.objectContaining({ code: 'BAD_LOGGER_NAME' }));
  });
});

describe('createWinstonLogging: loggers the application made', () => {
  it('follows a logger with syslog levels, and a spec above its highest level writes nothing', async () => {
    const out = new Memory();
    const logger = winston.createLogger({ levels: winston.config.syslog.levels, level: 'debug', transports: [out], format: winston.format.simple() });
    const logging = createWinstonLogging({ spec: 'warn' });
    logging.follow('legacy.store', logger);
    expect(logger.level).toBe('warning');
    logger.log('notice', 'notice hidden');
    logger.log('warning', 'warning shown');
    logger.log('crit', 'crit shown');
    logging.activateSpec('legacy=debug:warn');
    expect(logger.level).toBe('debug');
    logger.log('debug', 'debug shown');
    logging.activateSpec('fatal');
    logger.log('emerg', 'emerg hidden: crit is critical, which Fabric reads as error');
    await settle();
    expect(out.lines.map((l) => l.split(' ')[0])).toEqual(['warning', 'crit', 'debug']);
    expect(logger.isLevelEnabled('emerg')).toBe(false);
  });

  it('maps a custom level set by name and position, or as told', () => {
    const custom = { panic: 0, oops: 1, note: 2, chatter: 3 };
    const logger = winston.createLogger({ levels: custom, level: 'note', transports: [new Memory()] });
    const other = winston.createLogger({ levels: custom, level: 'note', transports: [new Memory()] });
    const logging = createWinstonLogging({ spec: 'info' });
    logging.follow('custom', logger);
    // Only `panic` is a name Fabric knows; nothing known lies below the other three, so they
    // count as the nearest known level above them (panic), and an info spec lets all through.
    expect(logger.level).toBe('chatter');
    logging.follow('told', other, { levelMap: { oops: 'error', note: 'info', chatter: 'debug' } });
    expect(other.level).toBe('note');
    logging.activateSpec('error');
    expect(other.level).toBe('oops');
  });

  it('keeps shared transports from judging by another logger’s level (as fabric-shim shares one)', async () => {
    const shared = new Memory();
    const a = winston.createLogger({ level: 'info', transports: [shared], format: winston.format.printf((i) => `a ${String(i.message)}`) });
    const b = winston.createLogger({ level: 'info', transports: [shared], format: winston.format.printf((i) => `b ${String(i.message)}`) });
    const logging = createWinstonLogging({ spec: 'a=debug:error' });
    logging.follow('a', a);
    logging.follow('b', b);
    a.debug('one');
    b.info('two');
    b.error('three');
    await settle();
    expect(shared.lines).toEqual(['debug a one', 'error b three']);
  });

  it('refuses to follow one logger twice, and stops following when told', () => {
    const logger = winston.createLogger({ transports: [new Memory()] });
    const logging = createWinstonLogging({ spec: 'x=debug' });
    const stop = logging.follow('x', logger);
    expect(() => logging.follow('y', logger)).toThrow(expect.objectContaining({ code: 'INVALID_OPTIONS' }));
    stop();
    logging.activateSpec('x=error');
    expect(logger.level).toBe('debug');
    expect(Object.hasOwn(logger, 'write')).toBe(false);
    logging.follow('y', logger);
    expect(logger.level).toBe('info');
  });
});

describe('createWinstonLogging: metrics', () => {
  it('counts checked entries from the lowest active level, and written ones', async () => {
    const checked: string[] = [];
    const written: string[] = [];
    const out = new Memory();
    const logging = createWinstonLogging({ spec: 'a=debug:warn', observer: { checked: (l) => checked.push(l), written: (l) => written.push(l) }, transports: [out] });
    const a = logging.getLogger('a');
    const b = logging.getLogger('b');
    a.silly('below the lowest level: not even checked');
    a.debug('a debug');
    b.debug('b debug');
    b.info('b info');
    b.error('b error');
    await settle();
    expect(checked).toEqual(['debug', 'debug', 'info', 'error']);
    expect(written).toEqual(['debug', 'error']);
    expect(out.lines).toHaveLength(2);
  });
});

describe('createWinstonLogging with /logspec', () => {
  it('has changed every logger, its own and followed ones, by the time the 204 arrives', async () => {
    const levels = createLogLevels();
    const logging = createWinstonLogging({ levels, transports: [new Memory()] });
    const made = logging.getLogger('peer.gossip');
    const existing = winston.createLogger({ transports: [new Memory()] });
    logging.follow('peer.chaincode', existing);
    const server: Server = createServer((req, res) => void logspecHandler(logging)(req, res));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as AddressInfo;
      const res = await fetch(`http://127.0.0.1:${port}/logspec`, { method: 'PUT', body: '{"spec":"peer=debug"}' });
      expect(res.status).toBe(204);
      expect([made.level, existing.level, levels.spec()]).toEqual(['debug', 'debug', 'peer=debug:info']);
    } finally {
      server.close();
    }
  });
});
