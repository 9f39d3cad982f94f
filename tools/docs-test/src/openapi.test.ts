// openapi.yaml: a valid OpenAPI 3.1 document, whose examples fit its schemas, and which
// describes what the running peer really answers (statuses, content types, bodies).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Validator } from '@seriousme/openapi-schema-validator';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { send, useTestPki, type Reply, type RunningApp } from '@fabric-ops/test-kit';
import { peerLauncher, repoRoot } from './peer.ts';

type Json = Record<string, unknown>;
interface MediaType {
  schema?: Json;
  example?: unknown;
  examples?: Record<string, { value: unknown }>;
}
interface ResponseObject {
  description: string;
  content?: Record<string, MediaType>;
  $ref?: string;
}
interface Operation {
  responses: Record<string, ResponseObject>;
}

const text = readFileSync(join(repoRoot, 'openapi.yaml'), 'utf8');
const doc = parse(text) as { paths: Record<string, Record<string, Operation>>; components: Json };

function resolve<T>(value: T & { $ref?: string }): T {
  if (typeof value.$ref !== 'string') return value;
  const target = value.$ref
    .replace(/^#\//, '')
    .split('/')
    .reduce<unknown>((node, key) => (node as Json | undefined)?.[key], doc);
  if (target === undefined) throw new Error(`unresolved $ref ${value.$ref}`);
  return resolve(target as T & { $ref?: string });
}

const ajv = new Ajv2020({ strict: false, allErrors: true });
ajv.addSchema({ $id: 'openapi.yaml', components: doc.components });
function validatorFor(schema: Json) {
  return ajv.compile({ $id: `inline-${JSON.stringify(schema).length}-${Math.random()}`, ...rewriteRefs(schema) });
}
/** `#/components/...` inside an inline schema points into the document, not the inline schema. */
function rewriteRefs(schema: Json): Json {
  return JSON.parse(JSON.stringify(schema).replaceAll('"#/components/', '"openapi.yaml#/components/')) as Json;
}

describe('openapi.yaml as a document', () => {
  it('is valid OpenAPI 3.1', async () => {
    const result = await new Validator().validate(parse(text) as Record<string, unknown>);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect((parse(text) as { openapi: string }).openapi).toBe('3.1.0');
  });

  it('the validator is not a rubber stamp: a response without a description is refused', async () => {
    const broken = parse(text) as { paths: Record<string, Record<string, Operation>> };
    delete (broken.paths['/version']!['get']!.responses['200'] as Partial<ResponseObject>).description;
    const result = await new Validator().validate(broken as unknown as Record<string, unknown>);
    expect(result.valid).toBe(false);
  });

  it('every $ref resolves and every example fits its schema', () => {
    let checked = 0;
    for (const [path, item] of Object.entries(doc.paths)) {
      for (const [method, operation] of Object.entries(item)) {
        for (const [status, raw] of Object.entries(operation.responses)) {
          const response = resolve(raw);
          for (const [type, media] of Object.entries(response.content ?? {})) {
            const examples = [...(media.example === undefined ? [] : [media.example]), ...Object.values(media.examples ?? {}).map((e) => e.value)];
            if (media.schema === undefined) continue;
            const validate = validatorFor(media.schema);
            for (const example of examples) {
              expect(validate(example), `${method.toUpperCase()} ${path} ${status} ${type}: ${ajv.errorsText(validate.errors)}`).toBe(true);
              checked++;
            }
          }
        }
      }
    }
    expect(checked).toBeGreaterThan(10);
  });
});

describe('openapi.yaml against the running peer', () => {
  const peers = peerLauncher();
  const pkiOf = useTestPki();
  let healthy: RunningApp;
  let sick: RunningApp;
  let tls: RunningApp;
  beforeAll(async () => {
    const pki = pkiOf();
    [healthy, sick, tls] = await Promise.all([
      peers.start(),
      peers.start({}, { CORE_VM_ENDPOINT: 'unix:///nonexistent/fabric-ops-openapi/docker.sock' }),
      peers.start({ tls: { certFile: pki.server.certFile, keyFile: pki.server.keyFile, clientAuthRequired: false, clientRootCAs: [pki.ca.certFile] } }),
    ]);
  }, 120_000);
  afterAll(() => {
    peers.stopAll();
  });

  interface Scenario {
    readonly name: string;
    readonly peer: () => RunningApp;
    readonly method: string;
    readonly target: string;
    /** The documented path template and operation that covers this request. */
    readonly path: string;
    readonly operation: string;
    readonly status: number;
    readonly body?: string;
    readonly headers?: Record<string, string>;
    readonly tls?: boolean;
  }

  const scenarios: Scenario[] = [
    { name: 'logspec get', peer: () => healthy, method: 'GET', target: '/logspec', path: '/logspec', operation: 'get', status: 200 },
    { name: 'logspec put', peer: () => healthy, method: 'PUT', target: '/logspec', path: '/logspec', operation: 'put', status: 204, body: '{"spec":"info"}' },
    { name: 'logspec put invalid', peer: () => healthy, method: 'PUT', target: '/logspec', path: '/logspec', operation: 'put', status: 400, body: '{"spec":"bogus"}' },
    { name: 'logspec put empty', peer: () => healthy, method: 'PUT', target: '/logspec', path: '/logspec', operation: 'put', status: 400, body: '' },
    { name: 'logspec without certificate', peer: () => tls, method: 'GET', target: '/logspec', path: '/logspec', operation: 'get', status: 401, tls: true },
    { name: 'logspec put without certificate', peer: () => tls, method: 'PUT', target: '/logspec', path: '/logspec', operation: 'put', status: 401, tls: true, body: '{"spec":"info"}' },
    { name: 'healthz ok', peer: () => healthy, method: 'GET', target: '/healthz', path: '/healthz', operation: 'get', status: 200 },
    { name: 'healthz ok verbose', peer: () => healthy, method: 'GET', target: '/healthz?verbose', path: '/healthz', operation: 'get', status: 200 },
    { name: 'healthz failing', peer: () => sick, method: 'GET', target: '/healthz', path: '/healthz', operation: 'get', status: 503 },
    { name: 'healthz failing verbose', peer: () => sick, method: 'GET', target: '/healthz?verbose', path: '/healthz', operation: 'get', status: 503 },
    { name: 'healthz wrong method', peer: () => healthy, method: 'POST', target: '/healthz', path: '/healthz', operation: 'get', status: 405 },
    { name: 'component failing', peer: () => sick, method: 'GET', target: '/healthz/docker', path: '/healthz/{component}', operation: 'get', status: 503 },
    { name: 'component failing verbose', peer: () => sick, method: 'GET', target: '/healthz/docker?verbose', path: '/healthz/{component}', operation: 'get', status: 503 },
    { name: 'component unknown', peer: () => healthy, method: 'GET', target: '/healthz/nosuch', path: '/healthz/{component}', operation: 'get', status: 404 },
    { name: 'component wrong method', peer: () => sick, method: 'DELETE', target: '/healthz/docker', path: '/healthz/{component}', operation: 'get', status: 405 },
    { name: 'livez', peer: () => sick, method: 'GET', target: '/livez', path: '/livez', operation: 'get', status: 200 },
    { name: 'livez verbose', peer: () => sick, method: 'GET', target: '/livez?verbose', path: '/livez', operation: 'get', status: 200 },
    { name: 'livez wrong method', peer: () => healthy, method: 'POST', target: '/livez', path: '/livez', operation: 'get', status: 405 },
    { name: 'readyz ok', peer: () => healthy, method: 'GET', target: '/readyz', path: '/readyz', operation: 'get', status: 200 },
    { name: 'readyz failing', peer: () => sick, method: 'GET', target: '/readyz', path: '/readyz', operation: 'get', status: 503 },
    { name: 'readyz wrong method', peer: () => healthy, method: 'PUT', target: '/readyz', path: '/readyz', operation: 'get', status: 405 },
    { name: 'version', peer: () => healthy, method: 'GET', target: '/version', path: '/version', operation: 'get', status: 200 },
    { name: 'version wrong method', peer: () => healthy, method: 'PUT', target: '/version', path: '/version', operation: 'get', status: 400 },
    { name: 'metrics', peer: () => healthy, method: 'GET', target: '/metrics', path: '/metrics', operation: 'get', status: 200 },
    {
      name: 'metrics openmetrics',
      peer: () => healthy,
      method: 'GET',
      target: '/metrics',
      path: '/metrics',
      operation: 'get',
      status: 200,
      headers: { Accept: 'application/openmetrics-text; version=1.0.0' },
    },
    { name: 'metrics without certificate', peer: () => tls, method: 'GET', target: '/metrics', path: '/metrics', operation: 'get', status: 401, tls: true },
  ];

  it('has a scenario for every documented path and operation', () => {
    const documented = Object.entries(doc.paths).flatMap(([path, item]) => Object.keys(item).map((op) => `${op} ${path}`));
    const exercised = new Set(scenarios.map((s) => `${s.operation} ${s.path}`));
    expect(documented.filter((key) => !exercised.has(key))).toEqual([]);
  });

  for (const scenario of scenarios) {
    it(`${scenario.name}: ${scenario.method} ${scenario.target} → ${scenario.status}, as documented`, async () => {
      const reply: Reply = await send(scenario.peer().address, scenario.target, {
        method: scenario.method,
        ...(scenario.body === undefined ? {} : { body: scenario.body }),
        ...(scenario.headers === undefined ? {} : { headers: scenario.headers }),
        ...(scenario.tls ? { tls: { ca: pkiOf().ca.cert } } : {}),
      });
      expect(reply.status).toBe(scenario.status);
      const operation = doc.paths[scenario.path]?.[scenario.operation];
      expect(operation, `${scenario.operation} ${scenario.path} is documented`).toBeDefined();
      const documented = operation!.responses[String(reply.status)];
      expect(documented, `status ${reply.status} is documented for ${scenario.operation} ${scenario.path}`).toBeDefined();
      const response = resolve(documented!);
      const contentType = reply.headers['content-type'];
      if (response.content === undefined) {
        expect(reply.body).toBe('');
        return;
      }
      expect(contentType).toBeDefined();
      const types = Object.keys(response.content);
      // A documented type with parameters must match exactly; a bare one matches on the media type.
      const mediaKey = types.find((type) => (type.includes(';') ? type === contentType : type === contentType!.split(';')[0]!.trim()));
      expect(mediaKey, `content type ${contentType} is one of ${types.join(', ')}`).toBeDefined();
      const schema = response.content[mediaKey!]!.schema;
      if (schema === undefined) return;
      const value = mediaKey!.startsWith('application/json') ? JSON.parse(reply.body) : reply.body;
      const validate = validatorFor(schema);
      expect(validate(value), `${scenario.name}: ${ajv.errorsText(validate.errors)}\n${reply.body}`).toBe(true);
    });
  }
});
