// The shipped image and manifest files, read as the tests need them.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { repoRoot } from './peer.ts';

export const containerfile: string = readFileSync(join(repoRoot, 'Containerfile'), 'utf8');

/** Every document of deploy/kubernetes/peer-probes.yaml. */
export const manifestDocuments: readonly Record<string, unknown>[] = parseAllDocuments(readFileSync(join(repoRoot, 'deploy', 'kubernetes', 'peer-probes.yaml'), 'utf8')).map(
  (doc) => doc.toJS() as Record<string, unknown>,
);

/** The runtime stage's ENV, as the image sets it (`ENV A=1 \ B=""`). */
export function imageEnv(): Record<string, string> {
  const runtime = containerfile.slice(containerfile.lastIndexOf('\nFROM '));
  const env: Record<string, string> = {};
  for (const [, block] of runtime.matchAll(/^ENV ((?:.*\\\n)*.*)$/gm)) {
    for (const [, name, value] of block!.matchAll(/([A-Z_]+)=("[^"]*"|\S*)/g)) env[name!] = value!.replace(/^"(.*)"$/, '$1');
  }
  return env;
}

export interface ManifestProbe {
  readonly httpGet?: { readonly path: string; readonly port: string | number; readonly scheme?: string };
  readonly exec?: { readonly command: readonly string[] };
  readonly timeoutSeconds?: number;
}

export interface ManifestContainer {
  readonly name: string;
  readonly image: string;
  readonly env?: readonly { readonly name: string; readonly value: string }[];
  readonly ports?: readonly { readonly name?: string; readonly containerPort: number }[];
  readonly volumeMounts?: readonly { readonly name: string; readonly mountPath: string }[];
  readonly startupProbe?: ManifestProbe;
  readonly livenessProbe?: ManifestProbe;
  readonly readinessProbe?: ManifestProbe;
}

/** A Deployment's pod template containers, or a Pod's. */
export function containersOf(doc: Record<string, unknown>): ManifestContainer[] {
  const spec = doc['spec'] as { template?: { spec: { containers: ManifestContainer[] } }; containers?: ManifestContainer[] };
  return spec.template?.spec.containers ?? spec.containers ?? [];
}

/** `metadata.name` of a document. */
export function nameOf(doc: Record<string, unknown>): string {
  return (doc['metadata'] as { name: string }).name;
}
