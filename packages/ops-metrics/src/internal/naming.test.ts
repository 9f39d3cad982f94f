import { describe, expect, it } from 'vitest';
import { isMetricsError } from './errors.ts';
import { compileStatsdFormat, formatStatsdBucket, normalizeStatsdPrefix, prometheusName, sanitizeStatsdLabelValue, statsdFullName } from './naming.ts';

describe('metric names', () => {
  it.each([
    [{ namespace: 'gossip', subsystem: 'payload_buffer', name: 'size' }, 'gossip_payload_buffer_size', 'gossip.payload_buffer.size'],
    [{ namespace: 'grpc', subsystem: 'server', name: 'unary_requests_completed' }, 'grpc_server_unary_requests_completed', 'grpc.server.unary_requests_completed'],
    [{ namespace: '', subsystem: '', name: 'fabric_version' }, 'fabric_version', 'fabric_version'],
    [{ namespace: 'logging', subsystem: '', name: 'entries_checked' }, 'logging_entries_checked', 'logging.entries_checked'],
    [{ namespace: '', subsystem: 'sub', name: 'n' }, 'sub_n', 'sub.n'],
  ])('%o → %s / %s', (parts, prom, statsd) => {
    expect(prometheusName(parts)).toBe(prom);
    expect(statsdFullName(parts)).toBe(statsd);
  });
});

describe('StatsD templates', () => {
  const parts = { namespace: 'broadcast', subsystem: '', name: 'processed_count' };
  const labels = ['channel', 'type', 'status'];

  it.each([
    ['%{#fqname}', ['ch', 'ENDORSER', 'SUCCESS'], 'broadcast.processed_count'],
    ['%{#fqname}.%{channel}.%{type}.%{status}', ['mychannel', 'ENDORSER_TRANSACTION', 'SUCCESS'], 'broadcast.processed_count.mychannel.ENDORSER_TRANSACTION.SUCCESS'],
    ['%{#namespace}-%{#name}:%{status}', ['a', 'b', 'OK'], 'broadcast-processed_count:OK'],
    ['%{#subsystem}x%{channel}', ['c.1', 'b', 'c'], 'xc_1'],
    ['static', ['a', 'b', 'c'], 'static'],
    ['%{#fqname}.%{channel}', ['my.ch|1:2 3\t4\n5\r6\f7', 'b', 'c'], 'broadcast.processed_count.my_ch_1_2_3_4_5_6_7'],
    ['%{#fqname}.%{channel}', ['kanal-ü.é', 'b', 'c'], 'broadcast.processed_count.kanal-ü_é'],
  ])('%s with %o → %s', (format, values, bucket) => {
    expect(formatStatsdBucket(compileStatsdFormat(format, parts, labels), values)).toBe(bucket);
  });

  it('fabric_version with a dotted version', () => {
    const pieces = compileStatsdFormat('%{#fqname}.%{version}', { namespace: '', subsystem: '', name: 'fabric_version' }, ['version']);
    expect(formatStatsdBucket(pieces, ['2.5.0'])).toBe('fabric_version.2_5_0');
  });

  it('refuses a template label that is not declared', () => {
    let caught: unknown;
    try {
      compileStatsdFormat('%{#fqname}.%{chaincode}', parts, labels);
    } catch (error) {
      caught = error;
    }
    expect(isMetricsError(caught) && caught.code).toBe('INVALID_METRIC_OPTIONS');
    expect((caught as Error).message).toContain('invalid label in name format: chaincode');
  });

  it("keeps the vertical tab, which Go's \\s does not cover", () => {
    expect(sanitizeStatsdLabelValue('a\vb c')).toBe('a\vb_c');
  });
});

describe('StatsD prefix', () => {
  it.each([
    ['', ''],
    ['org1', 'org1.'],
    ['org1.', 'org1.'],
    ['org1.peer0', 'org1.peer0.'],
    ['org1_peer0', 'org1_peer0.'],
  ])('%j → %j', (prefix, normalized) => {
    expect(normalizeStatsdPrefix(prefix)).toBe(normalized);
  });
});
