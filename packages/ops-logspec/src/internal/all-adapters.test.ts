import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import bunyan from 'bunyan';
import log4js from 'log4js';
import { afterAll, describe, expect, it } from 'vitest';
import winston from 'winston';
import { createBunyanLogging } from './bunyan.ts';
import { logspecHandler } from './handler.ts';
import { createLogLevels } from './levels-registry.ts';
import { createLog4jsLogging } from './log4js.ts';
import { createLogging } from './registry.ts';
import { createWinstonLogging } from './winston.ts';

afterAll(() => log4js.shutdown());

describe('one /logspec over pino, winston, bunyan and log4js', () => {
  it('has changed every adapter’s loggers by the time the 204 arrives, and counts them all', async () => {
    log4js.configure({ appenders: { none: { type: { configure: () => () => undefined } as never } }, categories: { default: { appenders: ['none'], level: 'info' } } });
    const checked: string[] = [];
    const levels = createLogLevels({ observer: { checked: (l) => checked.push(l), written: () => undefined } });
    const pinoLogging = createLogging({ levels, destination: { write: () => undefined } });
    const quiet = new Writable({ objectMode: true, write: (_chunk, _encoding, done) => done() });
    const p = pinoLogging.getLogger('svc.pino');
    const w = createWinstonLogging({ levels, transports: [new winston.transports.Stream({ stream: quiet })] }).getLogger('svc.winston');
    const b = createBunyanLogging({ levels, root: bunyan.createLogger({ name: 't', streams: [{ type: 'raw', stream: quiet as never }] }) }).getLogger('svc.bunyan');
    const l = createLog4jsLogging({ levels }).getLogger('svc.log4js');

    const server = createServer((req, res) => void logspecHandler(pinoLogging)(req, res));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as AddressInfo;
      const res = await fetch(`http://127.0.0.1:${port}/logspec`, { method: 'PUT', body: '{"spec":"svc=debug:svc.log4js=error"}' });
      expect(res.status).toBe(204);
      expect([p.level, w.level, b.level(), String(l.level)]).toEqual(['debug', 'debug', bunyan.DEBUG, 'ERROR']);
    } finally {
      server.close();
    }
    // Each counted as checked: debug is the lowest active level now.
    p.debug('pino');
    w.debug('winston');
    b.debug('bunyan');
    l.debug('log4js');
    expect(checked.filter((level) => level === 'debug')).toHaveLength(4);
  });
});
