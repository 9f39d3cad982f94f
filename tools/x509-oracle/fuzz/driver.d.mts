export interface FuzzTools {
  readonly dir: string;
  readonly oracle: string;
  readonly fuzzer: string;
  readonly goVersion: string;
}

/** The verifier under test: @fabric-ops/go-x509's entry points the server calls. */
export interface Verifier {
  createClientTrustPool(pemTexts: readonly string[]): unknown;
  verifyClientChain(presented: readonly Uint8Array[], pool: never, now?: Date): { accept: true } | { accept: false; reason: string };
  clientCertificateMessageProblem(presented: readonly Uint8Array[], protocol: 'TLSv1.2' | 'TLSv1.3'): string | undefined;
}

export interface FuzzCase {
  readonly id: string;
  readonly class: string;
  readonly pool: string;
  readonly time: string;
  readonly chain: readonly string[] | null;
  readonly index: number;
  readonly seed: string;
  readonly ops: readonly string[] | null;
}

export interface OracleVerdict {
  readonly id: string;
  readonly admit: boolean;
  readonly reason: string;
}

export interface Batch {
  readonly seed: number;
  readonly start: number;
  readonly count: number;
  readonly cases: readonly FuzzCase[];
  readonly verdicts: ReadonlyMap<string, OracleVerdict>;
  readonly pools: ReadonlyMap<string, readonly string[]>;
  readonly generatorMs: number;
}

export type DisagreementKind = 'admits' | 'refuses' | 'text';

export interface Disagreement {
  readonly kind: DisagreementKind;
  readonly index: number;
  readonly seed: number;
  readonly id: string;
  readonly chainSeed: string;
  readonly ops: readonly string[];
  readonly ours: string;
  readonly go: string;
  readonly chain: readonly string[];
  readonly pool: readonly string[];
  readonly keep?: readonly number[];
}

export interface BatchResult {
  readonly cases: number;
  readonly agree: number;
  readonly goAdmits: number;
  /** Go's reasons, shaped, with their counts. */
  readonly goReasons: ReadonlyMap<string, number>;
  readonly disagreements: readonly Disagreement[];
}

export interface FuzzTotals {
  cases: number;
  agree: number;
  goAdmits: number;
  goReasons: Map<string, number>;
  byKind: Record<DisagreementKind, number>;
  disagreements: Disagreement[];
  generatorMs: number;
}

export function buildFuzzTools(): Promise<FuzzTools>;
export function makeBatch(tools: FuzzTools, options: { seed: number; start: number; count: number; time?: string; keep?: readonly number[] }): Promise<Batch>;
export function compareBatch(batch: Batch, x509: Verifier): BatchResult;
export function reasonShape(reason: string): string;
export function disagreementClass(d: Pick<Disagreement, 'kind' | 'ours' | 'go' | 'ops'>): string;
export function runFuzz(
  tools: FuzzTools,
  x509: Verifier,
  options: { seed: number; cases: number; start?: number; batch?: number; time?: string; collect?: boolean; onBatch?: (result: BatchResult, batch: Batch) => void },
): Promise<FuzzTotals>;
export function shrink(tools: FuzzTools, x509: Verifier, d: Disagreement, options?: { time?: string }): Promise<Disagreement & { keep: readonly number[] }>;
export function pem(b64: string): string;
