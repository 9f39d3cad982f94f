import { createPrivateKey, X509Certificate, type KeyObject } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { goErrnoText } from '@fabric-ops/ops-http/go';
import { TlsAuthError } from './errors.ts';
import { clientRootCaLabel, DEFAULT_FILE_LABELS, type TlsFileLabels, type TlsFiles } from './settings.ts';

/** The PEM material a TLS server needs, read and checked. */
export interface TlsCredentials {
  /** The certificate file's PEM blocks (leaf first, then any chain). */
  readonly cert: string;
  readonly key: string;
  /** One entry per certificate found in the client root CA files. */
  readonly ca: readonly string[];
  /**
   * Problems with the server certificate that do not stop it from being served (Go serves it
   * too): outside its validity window, or an extended key usage without serverAuth.
   */
  readonly warnings?: readonly string[];
}

export interface LoadTlsOptions {
  /** How error lines name each file; the peer's `core.yaml` keys by default. */
  readonly labels?: Partial<TlsFileLabels>;
  /** Reads a whole file (tests inject one); `fs.readFileSync` by default. */
  readonly read?: (path: string) => string;
  /** The clock the validity warnings use. Default now. */
  readonly now?: Date;
}

type ReadText = (path: string) => string;

const readUtf8: ReadText = (path) => readFileSync(path, 'utf8');

const CERTIFICATE_BLOCK = /-----BEGIN CERTIFICATE-----\r?\n[\s\S]*?-----END CERTIFICATE-----/g;
const PRIVATE_KEY_BLOCK = /-----BEGIN ((?:RSA |EC |ENCRYPTED )?PRIVATE KEY)-----\r?\n[\s\S]*?-----END \1-----/;

function readOrFail(read: ReadText, key: string, path: string): string {
  try {
    return read(path);
  } catch (error) {
    const reason = goErrnoText(error);
    throw new TlsAuthError('FILE_UNREADABLE', `${key}: open ${path}: ${reason}`, { cause: error });
  }
}

function certificatesIn(text: string, key: string, path: string): X509Certificate[] {
  const blocks = text.match(CERTIFICATE_BLOCK) ?? [];
  if (blocks.length === 0) throw new TlsAuthError('NOT_PEM', `${key}: ${path}: no PEM certificate found`);
  return blocks.map((block, index) => {
    try {
      return new X509Certificate(block);
    } catch {
      throw new TlsAuthError('NOT_PEM', `${key}: ${path}: PEM certificate #${index + 1} cannot be parsed`);
    }
  });
}

function privateKeyIn(text: string, key: string, path: string): { object: KeyObject; pem: string } {
  const match = PRIVATE_KEY_BLOCK.exec(text);
  if (match === null) throw new TlsAuthError('NOT_PEM', `${key}: ${path}: no PEM private key found`);
  if (match[1] === 'ENCRYPTED PRIVATE KEY') {
    throw new TlsAuthError('NOT_PEM', `${key}: ${path}: the private key is encrypted; an unencrypted key is required`);
  }
  try {
    return { object: createPrivateKey(match[0]), pem: match[0] };
  } catch {
    throw new TlsAuthError('NOT_PEM', `${key}: ${path}: the PEM private key cannot be parsed`);
  }
}

const SERVER_AUTH_EKU = '1.3.6.1.5.5.7.3.1';
const ANY_EKU = '2.5.29.37.0';

/** What a TLS client would object to in the server certificate; the server still serves it. */
export function serverCertificateWarnings(leaf: X509Certificate, now: Date): string[] {
  const warnings: string[] = [];
  const notBefore = new Date(leaf.validFrom);
  const notAfter = new Date(leaf.validTo);
  if (now.getTime() > notAfter.getTime()) warnings.push(`the server certificate expired at ${notAfter.toISOString()}`);
  if (now.getTime() < notBefore.getTime()) warnings.push(`the server certificate is not valid before ${notBefore.toISOString()}`);
  const usages = leaf.keyUsage as string[] | undefined;
  if (usages !== undefined && usages.length > 0 && !usages.includes(SERVER_AUTH_EKU) && !usages.includes(ANY_EKU)) {
    warnings.push('the server certificate\'s extended key usage does not include serverAuth; TLS clients will refuse it');
  }
  return warnings;
}

/**
 * Reads and checks the server certificate, key and client CAs.
 * Any problem throws a TlsAuthError whose one-line message names the file by its label and
 * path; nothing is half-loaded.
 */
export function loadTlsCredentials(files: TlsFiles, options: LoadTlsOptions = {}): TlsCredentials {
  const labels: TlsFileLabels = { ...DEFAULT_FILE_LABELS, ...options.labels };
  const read = options.read ?? readUtf8;
  const certText = readOrFail(read, labels.certFile, files.certFile);
  const keyText = readOrFail(read, labels.keyFile, files.keyFile);
  const chain = certificatesIn(certText, labels.certFile, files.certFile);
  const privateKey = privateKeyIn(keyText, labels.keyFile, files.keyFile);
  if (!chain[0]!.checkPrivateKey(privateKey.object)) {
    throw new TlsAuthError('KEY_MISMATCH', `${labels.keyFile}: ${files.keyFile}: private key does not match the certificate in ${files.certFile}`);
  }
  const ca: string[] = [];
  files.clientRootCAs.forEach((path, index) => {
    const caLabel = clientRootCaLabel(labels, index);
    for (const certificate of certificatesIn(readOrFail(read, caLabel, path), caLabel, path)) ca.push(certificate.toString());
  });
  const warnings = serverCertificateWarnings(chain[0]!, options.now ?? new Date());
  return { cert: chain.map((c) => c.toString()).join(''), key: privateKey.pem, ca, ...(warnings.length > 0 ? { warnings } : {}) };
}
