import { createPrivateKey, X509Certificate, type KeyObject } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { TlsAuthError } from './errors.ts';
import { PEER_TLS_KEY_NAMES, type TlsKeyNames, type TlsSettings } from './settings.ts';

/** The PEM material a TLS server needs, read and checked. */
export interface TlsCredentials {
  /** The certificate file's PEM blocks (leaf first, then any chain). */
  readonly cert: string;
  readonly key: string;
  /** One entry per certificate found in the client root CA files. */
  readonly ca: readonly string[];
}

/** Reads a whole file; injectable so the checks can be tested without a disk. */
export type ReadText = (path: string) => string;

const readUtf8: ReadText = (path) => readFileSync(path, 'utf8');

const CERTIFICATE_BLOCK = /-----BEGIN CERTIFICATE-----\r?\n[\s\S]*?-----END CERTIFICATE-----/g;
const PRIVATE_KEY_BLOCK = /-----BEGIN ((?:RSA |EC |ENCRYPTED )?PRIVATE KEY)-----\r?\n[\s\S]*?-----END \1-----/;

/** Go's wording for the common errno values, so messages read like Fabric's. */
const ERRNO_TEXT: Readonly<Record<string, string>> = {
  ENOENT: 'no such file or directory',
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  EISDIR: 'is a directory',
  ENOTDIR: 'not a directory',
  ELOOP: 'too many levels of symbolic links',
  EMFILE: 'too many open files',
};

function readOrFail(read: ReadText, key: string, path: string): string {
  try {
    return read(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? '';
    const reason = ERRNO_TEXT[code] ?? (code || (error as Error).message.split('\n')[0]);
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

/**
 * Reads and checks the server certificate, key and client CAs named by the settings.
 * Any problem throws a TlsAuthError whose one-line message names the key and the path;
 * nothing is half-loaded.
 */
export function loadTlsCredentials(settings: TlsSettings, keyNames: TlsKeyNames = PEER_TLS_KEY_NAMES, read: ReadText = readUtf8): TlsCredentials {
  const certText = readOrFail(read, keyNames.certFile, settings.certFile);
  const keyText = readOrFail(read, keyNames.keyFile, settings.keyFile);
  const chain = certificatesIn(certText, keyNames.certFile, settings.certFile);
  const privateKey = privateKeyIn(keyText, keyNames.keyFile, settings.keyFile);
  if (!chain[0]!.checkPrivateKey(privateKey.object)) {
    throw new TlsAuthError('KEY_MISMATCH', `${keyNames.keyFile}: ${settings.keyFile}: private key does not match the certificate in ${settings.certFile}`);
  }
  const ca: string[] = [];
  settings.clientRootCAs.forEach((path, index) => {
    const caKey = `${keyNames.clientRootCAs}[${index}]`;
    for (const certificate of certificatesIn(readOrFail(read, caKey, path), caKey, path)) ca.push(certificate.toString());
  });
  return { cert: chain.map((c) => c.toString()).join(''), key: privateKey.pem, ca };
}
