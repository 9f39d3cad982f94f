import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadOrdererConfig, loadPeerConfig } from './load.ts';

function dirWith(name: string, text: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'ops-config-'));
  writeFileSync(join(dir, name), text);
  return dir;
}

describe('loadPeerConfig', () => {
  it('reads operations.listenAddress from $FABRIC_CFG_PATH/core.yaml', () => {
    const dir = dirWith('core.yaml', 'operations:\n  listenAddress: 127.0.0.1:19443\n');
    const loaded = loadPeerConfig({ env: { FABRIC_CFG_PATH: dir } });
    expect(loaded.file).toBe(join(dir, 'core.yaml'));
    expect(loaded.config.operations.listenAddress).toBe('127.0.0.1:19443');
  });
  it('lets CORE_OPERATIONS_LISTENADDRESS override, even when empty', () => {
    const dir = dirWith('core.yaml', 'operations:\n  listenAddress: 127.0.0.1:19443\n');
    expect(loadPeerConfig({ env: { FABRIC_CFG_PATH: dir, CORE_OPERATIONS_LISTENADDRESS: ':7000' } }).config.operations.listenAddress).toBe(':7000');
    expect(loadPeerConfig({ env: { FABRIC_CFG_PATH: dir, CORE_OPERATIONS_LISTENADDRESS: '' } }).config.operations.listenAddress).toBe('');
  });
  it('names FABRIC_CFG_PATH when it does not exist', () => {
    expect(() => loadPeerConfig({ env: { FABRIC_CFG_PATH: '/nonexistent/dir' } })).toThrowError('FABRIC_CFG_PATH /nonexistent/dir does not exist');
  });
});

describe('loadOrdererConfig', () => {
  it('reads Operations.ListenAddress and ignores an empty env override', () => {
    const dir = dirWith('orderer.yaml', 'Operations:\n  ListenAddress: 127.0.0.1:18443\n');
    const loaded = loadOrdererConfig({ env: { FABRIC_CFG_PATH: dir, ORDERER_OPERATIONS_LISTENADDRESS: '' } });
    expect(loaded.config.operations.listenAddress).toBe('127.0.0.1:18443');
  });
});
