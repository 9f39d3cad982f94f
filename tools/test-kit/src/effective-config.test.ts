import { describe, expect, it } from 'vitest';
import { effectiveConfigPage } from './effective-config.ts';

describe('effectiveConfigPage', () => {
  it('changes only the lines named, by their dotted path', () => {
    const defaults = effectiveConfigPage('peer', '/x/core.yaml').split('\n');
    const changed = effectiveConfigPage('peer', '/x/core.yaml', { 'operations.tls.cert.file': '"c.pem"  # file' }).split('\n');
    expect(changed[0]).toBe('# effective peer configuration, read from /x/core.yaml');
    expect(changed.filter((line, i) => line !== defaults[i])).toEqual(['      file: "c.pem"  # file']);
    expect(changed[changed.indexOf('      file: "c.pem"  # file') - 1]).toBe('    cert:');
  });

  it('throws for a key the page does not have, so a misspelt one cannot pass unnoticed', () => {
    expect(() => effectiveConfigPage('orderer', '/x/orderer.yaml', { 'Operations.TLS.Enabeld': 'true  # file' })).toThrow('effectiveConfigPage(orderer): no such key Operations.TLS.Enabeld');
  });
});
