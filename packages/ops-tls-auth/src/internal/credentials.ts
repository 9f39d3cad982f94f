import { createPrivateKey, X509Certificate, type KeyObject } from 'node:crypto';
import { readRegularFileSync, shownPath } from '@fabric-ops/ops-http/fs';
import { goErrnoText } from '@fabric-ops/ops-http/go';
import { certificateLoads, loadableCertificates } from '@fabric-ops/go-x509/verifier';
import { TlsAuthError } from './errors.ts';
import { clientRootCaLabel, DEFAULT_FILE_LABELS, type TlsFileLabels, type TlsFiles } from './settings.ts';

/** The PEM material a TLS server needs, read and checked. */
export interface TlsCredentials {
  /** The certificate file's PEM blocks (leaf first, then any chain). */
  readonly cert: string;
  readonly key: string;
  /** One entry per certificate in the client root CA files that OpenSSL can load (what it names in its certificate request). */
  readonly ca: readonly string[];
  /**
   * The text of each client root CA file as read. Whom to admit is decided on these, by Go's
   * `AppendCertsFromPEM` rules (a certificate Go cannot parse is skipped). When absent (credentials
   * built by hand), `ca` is used instead.
   */
  readonly clientCaFiles?: readonly string[];
  /** How an error line names each of `clientCaFiles` (its setting and path), in the same order. */
  readonly clientCaFileNames?: readonly string[];
  /**
   * Problems with the server certificate that do not stop it from being served (Go serves it
   * too): outside its validity window, or an extended key usage without serverAuth.
   */
  readonly warnings?: readonly string[];
}

export interface LoadTlsOptions {
  /** How error lines name each file; the peer's `core.yaml` keys by default. */
  readonly labels?: Partial<TlsFileLabels>;
  /**
   * Reads a whole file (tests inject one). By default a regular file of at most
   * `MAX_TLS_FILE_BYTES` is read without ever blocking: a FIFO, a device or a directory is
   * refused unopened, as at start-up so at every reload.
   */
  readonly read?: (path: string) => string;
  /** The clock the validity warnings use. Default now. */
  readonly now?: Date;
}

type ReadText = (path: string) => string;

/** Far above any PEM bundle (Mozilla's whole CA bundle is about 220 KB); a wrong path cannot fill memory. */
export const MAX_TLS_FILE_BYTES: number = 4 * 1024 * 1024;

const KEY_LABELS = ['PRIVATE KEY', 'RSA PRIVATE KEY', 'EC PRIVATE KEY', 'ENCRYPTED PRIVATE KEY'] as const;

/** The newline a PEM header line ends with; the index after it, or -1. */
function afterHeader(text: string, at: number): number {
  if (text.startsWith('\n', at)) return at + 1;
  return text.startsWith('\r\n', at) ? at + 2 : -1;
}

/**
 * Every `-----BEGIN <label>-----` … `-----END <label>-----` block, first first. A scan rather
 * than a lazy regular expression, which goes back over the rest of the text from every BEGIN
 * without an END: a 4 MiB file of bare BEGIN lines would hold the event loop for minutes.
 */
function pemBlocks(text: string, labels: readonly string[], first = false): { label: string; block: string }[] {
  const found: { label: string; block: string }[] = [];
  const unterminated = new Set<string>();
  let from = 0;
  for (;;) {
    const begin = text.indexOf('-----BEGIN ', from);
    if (begin === -1) return found;
    from = begin + 1;
    for (const label of labels) {
      const header = `-----BEGIN ${label}-----`;
      if (unterminated.has(label) || !text.startsWith(header, begin)) continue;
      const body = afterHeader(text, begin + header.length);
      if (body === -1) continue;
      const footer = `-----END ${label}-----`;
      const end = text.indexOf(footer, body);
      // no END now means no END after any later BEGIN either
      if (end === -1) {
        unterminated.add(label);
        continue;
      }
      found.push({ label, block: text.slice(begin, end + footer.length) });
      if (first) return found;
      from = end + footer.length;
      break;
    }
  }
}

function readOrFail(read: ReadText | undefined, key: string, path: string): string {
  if (read === undefined) {
    const result = readRegularFileSync(path, { maxBytes: MAX_TLS_FILE_BYTES });
    if (!result.ok) throw new TlsAuthError('FILE_UNREADABLE', `${key}: ${result.message}`);
    return result.bytes.toString('utf8');
  }
  try {
    return read(path);
  } catch (error) {
    const reason = goErrnoText(error);
    throw new TlsAuthError('FILE_UNREADABLE', `${key}: open ${shownPath(path)}: ${reason}`, { cause: error });
  }
}

/**
 * The client CA certificates OpenSSL can load, and a warning for each it cannot. Fabric builds
 * its pool with Go's AppendCertsFromPEM, which skips what it cannot parse without a word; the
 * file must still hold at least one certificate that parses.
 */
function clientCaCertificatesIn(text: string, key: string, file: string, warnings: string[], parses: (block: string) => boolean): string[] {
  const path = shownPath(file);
  const blocks = certificateBlocks(text);
  if (blocks.length === 0) throw new TlsAuthError('NOT_PEM', `${key}: ${path}: no PEM certificate found`);
  const loadable: string[] = [];
  blocks.forEach((block, index) => {
    if (parses(block)) loadable.push(`${block}\n`);
    else warnings.push(`${key}: ${path}: PEM certificate #${index + 1} cannot be parsed; it is skipped, as Fabric skips it`);
  });
  // Fabric's pool would get nothing from it and trust no client through it: a mistake, refused
  // at start and on reload alike (a reload then keeps the trust in force).
  if (loadable.length === 0) throw new TlsAuthError('NOT_PEM', `${key}: ${path}: no PEM certificate in it can be parsed (${blocks.length} found)`);
  return loadable;
}

const certificateBlocks = (text: string): string[] => pemBlocks(text, ['CERTIFICATE']).map((found) => found.block);

function certificatesIn(text: string, key: string, file: string): X509Certificate[] {
  const path = shownPath(file);
  const blocks = certificateBlocks(text);
  if (blocks.length === 0) throw new TlsAuthError('NOT_PEM', `${key}: ${path}: no PEM certificate found`);
  return blocks.map((block, index) => {
    try {
      return new X509Certificate(block);
    } catch {
      throw new TlsAuthError('NOT_PEM', `${key}: ${path}: PEM certificate #${index + 1} cannot be parsed`);
    }
  });
}

function privateKeyIn(text: string, key: string, file: string): { object: KeyObject; pem: string } {
  const path = shownPath(file);
  const [match] = pemBlocks(text, KEY_LABELS, true);
  if (match === undefined) throw new TlsAuthError('NOT_PEM', `${key}: ${path}: no PEM private key found`);
  if (match.label === 'ENCRYPTED PRIVATE KEY') {
    throw new TlsAuthError('NOT_PEM', `${key}: ${path}: the private key is encrypted; an unencrypted key is required`);
  }
  try {
    return { object: createPrivateKey(match.block), pem: match.block };
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
    warnings.push("the server certificate's extended key usage does not include serverAuth; TLS clients will refuse it");
  }
  return warnings;
}

/**
 * Reads and checks the server certificate, key and client CAs.
 * Any problem throws a TlsAuthError whose one-line message names the file by its label and
 * path; nothing is half-loaded.
 */
export function loadTlsCredentials(files: TlsFiles, options: LoadTlsOptions = {}): TlsCredentials {
  return loadWith(files, options, labelsOf(options), (_index, key, path) => readOrFail(options.read, key, path), certificateLoads);
}

/**
 * `loadTlsCredentials` for a reload while serving, with the same result and errors: the client
 * CA certificates are parsed on a thread started for it, so the event loop's share no longer
 * grows with their number (the files are read and scanned here, the server's pair checked here).
 */
export async function loadTlsCredentialsOffThread(files: TlsFiles, options: LoadTlsOptions = {}): Promise<TlsCredentials> {
  const labels = labelsOf(options);
  const texts = files.clientRootCAs.map((path, index) => {
    try {
      return readOrFail(options.read, clientRootCaLabel(labels, index), path);
    } catch (error) {
      return error as Error;
    }
  });
  const blocks = [...new Set(texts.flatMap((text) => (typeof text === 'string' ? certificateBlocks(text) : [])))];
  const parsed = await loadableCertificates(blocks);
  const loadable = new Set(blocks.filter((_, index) => parsed[index] === true));
  const readCa = (index: number): string => {
    const text = texts[index]!;
    if (typeof text !== 'string') throw text;
    return text;
  };
  return loadWith(files, options, labels, readCa, (block) => loadable.has(block));
}

const labelsOf = (options: LoadTlsOptions): TlsFileLabels => ({ ...DEFAULT_FILE_LABELS, ...options.labels });

function loadWith(files: TlsFiles, options: LoadTlsOptions, labels: TlsFileLabels, readCa: (index: number, key: string, path: string) => string, parsesCa: (block: string) => boolean): TlsCredentials {
  const read = options.read;
  const certText = readOrFail(read, labels.certFile, files.certFile);
  const keyText = readOrFail(read, labels.keyFile, files.keyFile);
  const chain = certificatesIn(certText, labels.certFile, files.certFile);
  const privateKey = privateKeyIn(keyText, labels.keyFile, files.keyFile);
  if (!chain[0]!.checkPrivateKey(privateKey.object)) {
    throw new TlsAuthError('KEY_MISMATCH', `${labels.keyFile}: ${shownPath(files.keyFile)}: private key does not match the certificate in ${shownPath(files.certFile)}`);
  }
  const warnings = serverCertificateWarnings(chain[0]!, options.now ?? new Date());
  const ca: string[] = [];
  const clientCaFiles: string[] = [];
  const clientCaFileNames: string[] = [];
  files.clientRootCAs.forEach((path, index) => {
    const caLabel = clientRootCaLabel(labels, index);
    const text = readCa(index, caLabel, path);
    clientCaFiles.push(text);
    clientCaFileNames.push(`${caLabel}: ${shownPath(path)}`);
    ca.push(...clientCaCertificatesIn(text, caLabel, path, warnings, parsesCa));
  });
  return { cert: chain.map((c) => c.toString()).join(''), key: privateKey.pem, ca, clientCaFiles, clientCaFileNames, ...(warnings.length > 0 ? { warnings } : {}) };
}
