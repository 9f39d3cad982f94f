import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** A certificate (or chain) and its private key, as files on disk and as PEM text. */
export interface PemPair {
  readonly certFile: string;
  readonly keyFile: string;
  readonly cert: string;
  readonly key: string;
}

export interface IssueOptions {
  /** Subject written in RFC 2253 order of the DN, most significant first: `{ O: 'Org1', CN: 'operator' }`. */
  readonly subject: Readonly<Record<string, string>>;
  /** `serverAuth`, `clientAuth`, both, or `anyExtendedKeyUsage`; an empty list leaves the extension out. */
  readonly extendedKeyUsage: readonly ('serverAuth' | 'clientAuth' | 'anyExtendedKeyUsage')[];
  /** KeyUsage bits (OpenSSL names); default `digitalSignature, keyEncipherment`. */
  readonly keyUsage?: readonly string[];
  /** Extra lines for OpenSSL's extension section, e.g. `1.2.3.4 = critical, ASN1:UTF8String:x`. */
  readonly extraExtensions?: readonly string[];
  readonly dnsNames?: readonly string[];
  readonly ipAddresses?: readonly string[];
  /** UTC validity window; defaults to one hour ago until one day ahead. */
  readonly notBefore?: Date;
  readonly notAfter?: Date;
}

export interface TestCa {
  readonly certFile: string;
  readonly cert: string;
  /** Issues a leaf certificate signed by this CA. `name` must be unique within the PKI. */
  issue(name: string, options: IssueOptions): Promise<PemPair>;
  /** Issues a subordinate CA (CA:TRUE unless `ca: false`), which can issue in turn. `name` must be unique within the PKI. */
  issueIntermediate(name: string, options?: IntermediateOptions): Promise<TestCa>;
}

/** Shapes of a subordinate CA certificate, for chain-verification tests. */
export interface IntermediateOptions {
  /** Restricts the CA's extended key usage; none by default. */
  readonly extendedKeyUsage?: readonly ('serverAuth' | 'clientAuth' | 'anyExtendedKeyUsage')[];
  /** basicConstraints pathlen. */
  readonly pathLength?: number;
  /** false writes CA:FALSE (with keyCertSign still set): a certificate that signs without being a CA. */
  readonly ca?: boolean;
}

/**
 * A throw-away PKI for one test file: the operations CA plus every kind of client certificate
 * the TLS rules distinguish. Generated with the `openssl` CLI (scripts/test-deps.sh installs it).
 */
export interface TestPki {
  readonly dir: string;
  /** The dedicated operations CA; clients list it in clientRootCAs and trust it for the server. */
  readonly ca: TestCa;
  /** A CA nobody trusts. */
  readonly rogueCa: TestCa;
  /** An intermediate under `ca`, used for the chain file. */
  readonly intermediateCa: TestCa;
  /** Server leaf for 127.0.0.1, ::1 and localhost (serverAuth), signed by `ca`. */
  readonly server: PemPair;
  /** Server leaf signed by `intermediateCa`; `certFile` holds the leaf followed by the intermediate. */
  readonly serverChain: PemPair;
  readonly clients: {
    /** `CN=operator,O=Org1`, clientAuth, signed by `ca`. */
    readonly good: PemPair;
    /** Same subject and usage, signed by `rogueCa`. */
    readonly rogueCa: PemPair;
    /** Signed by `ca`, validity ended yesterday. */
    readonly expired: PemPair;
    /** Signed by `ca`, validity starts tomorrow. */
    readonly notYetValid: PemPair;
    /** Signed by `ca`, extended key usage serverAuth only. */
    readonly serverAuthOnly: PemPair;
  };
  /** Removes the directory. */
  cleanup(): Promise<void>;
}

const HOUR = 3_600_000;

function opensslTime(date: Date): string {
  return date
    .toISOString()
    .replace(/[-:T]/g, '')
    .replace(/\.\d+Z$/, 'Z');
}

function subjectArgument(subject: Readonly<Record<string, string>>): string {
  return Object.entries(subject)
    .map(([k, v]) => `/${k}=${v.replace(/[/=]/g, (c) => `\\${c}`)}`)
    .join('');
}

async function openssl(args: string[], cwd: string): Promise<void> {
  try {
    await run('openssl', args, { cwd, timeout: 30_000 });
  } catch (error) {
    const stderr = (error as { stderr?: string }).stderr ?? '';
    throw new Error(`openssl ${args[0]} failed: ${stderr.trim() || String(error)}`);
  }
}

async function newKeyAndCsr(dir: string, name: string, subject: Readonly<Record<string, string>>): Promise<{ keyFile: string; csrFile: string }> {
  const keyFile = join(dir, `${name}.key.pem`);
  const csrFile = join(dir, `${name}.csr.pem`);
  await openssl(['req', '-new', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes', '-keyout', keyFile, '-out', csrFile, '-subj', subjectArgument(subject)], dir);
  return { keyFile, csrFile };
}

type CaShape = 'ca' | { readonly intermediate: IntermediateOptions };

function isCaShape(options: IssueOptions | CaShape): options is CaShape {
  return options === 'ca' || 'intermediate' in options;
}

function extensionSection(options: IssueOptions | CaShape): string {
  if (isCaShape(options)) {
    const shape = options === 'ca' ? {} : options.intermediate;
    const lines = [
      `basicConstraints = critical, CA:${shape.ca === false ? 'FALSE' : 'TRUE'}${shape.pathLength === undefined ? '' : `, pathlen:${shape.pathLength}`}`,
      'keyUsage = critical, keyCertSign, cRLSign, digitalSignature',
      'subjectKeyIdentifier = hash',
      'authorityKeyIdentifier = keyid',
    ];
    if (shape.extendedKeyUsage !== undefined) lines.push(`extendedKeyUsage = ${shape.extendedKeyUsage.join(', ')}`);
    return lines.join('\n');
  }
  const lines = [
    'basicConstraints = critical, CA:FALSE',
    `keyUsage = critical, ${(options.keyUsage ?? ['digitalSignature', 'keyEncipherment']).join(', ')}`,
    'subjectKeyIdentifier = hash',
    'authorityKeyIdentifier = keyid',
  ];
  if (options.extendedKeyUsage.length > 0) lines.push(`extendedKeyUsage = ${options.extendedKeyUsage.join(', ')}`);
  lines.push(...(options.extraExtensions ?? []));
  const sans = [...(options.dnsNames ?? []).map((d) => `DNS:${d}`), ...(options.ipAddresses ?? []).map((ip) => `IP:${ip}`)];
  if (sans.length > 0) lines.push(`subjectAltName = ${sans.join(', ')}`);
  return lines.join('\n');
}

interface CaState extends TestCa {
  readonly keyFile: string;
  readonly configFile: string;
  issueCa(name: string, shape?: CaShape): Promise<PemPair>;
}

/** `openssl ca` (not `x509 -req`) because only it takes explicit start and end dates on OpenSSL 3.0. */
async function caConfig(dir: string, name: string, certFile: string, keyFile: string): Promise<string> {
  const home = join(dir, `${name}.db`);
  await mkdir(home, { recursive: true });
  await writeFile(join(home, 'index.txt'), '');
  await writeFile(join(home, 'serial'), `${randomSerial()}\n`);
  const configFile = join(dir, `${name}.ca.cnf`);
  await writeFile(
    configFile,
    [
      '[ca]',
      'default_ca = this_ca',
      '[this_ca]',
      `dir = ${home}`,
      'database = $dir/index.txt',
      'serial = $dir/serial',
      'new_certs_dir = $dir',
      `certificate = ${certFile}`,
      `private_key = ${keyFile}`,
      'default_md = sha256',
      'policy = any_subject',
      'unique_subject = no',
      'copy_extensions = none',
      'preserve = yes',
      // `openssl ca` writes the subject in policy order: most significant first, as X.509 expects.
      '[any_subject]',
      'countryName = optional',
      'organizationName = optional',
      'organizationalUnitName = optional',
      'commonName = optional',
      '',
    ].join('\n'),
  );
  return configFile;
}

function randomSerial(): string {
  return Array.from({ length: 16 }, () => Math.floor(Math.random() * 16).toString(16))
    .join('')
    .replace(/^0/, '1');
}

function makeCa(dir: string, certFile: string, keyFile: string, configFile: string, cert: string): CaState {
  // `openssl ca` rewrites its database, so issuing from one CA is serialised.
  let queue: Promise<unknown> = Promise.resolve();
  const issue = (leafName: string, options: IssueOptions | CaShape): Promise<PemPair> => {
    const next = queue.then(() => signWith(dir, { certFile, keyFile, configFile }, leafName, options));
    queue = next.catch(() => undefined);
    return next;
  };
  return {
    certFile,
    cert,
    keyFile,
    configFile,
    issue: (leafName, options) => issue(leafName, options),
    issueCa: (leafName, shape = 'ca') => issue(leafName, shape),
    async issueIntermediate(caName, options = {}) {
      const pair = await issue(caName, { intermediate: options });
      const config = await caConfig(dir, caName, pair.certFile, pair.keyFile);
      return makeCa(dir, pair.certFile, pair.keyFile, config, pair.cert);
    },
  };
}

async function signWith(dir: string, signer: { certFile: string; keyFile: string; configFile: string }, name: string, options: IssueOptions | CaShape): Promise<PemPair> {
  const subject = isCaShape(options) ? { O: 'Operations Test', CN: name } : options.subject;
  const { keyFile, csrFile } = await newKeyAndCsr(dir, name, subject);
  const extFile = join(dir, `${name}.ext.cnf`);
  await writeFile(extFile, `[leaf]\n${extensionSection(options)}\n`);
  const now = Date.now();
  const notBefore = isCaShape(options) ? new Date(now - HOUR) : (options.notBefore ?? new Date(now - HOUR));
  const notAfter = isCaShape(options) ? new Date(now + 30 * 24 * HOUR) : (options.notAfter ?? new Date(now + 24 * HOUR));
  const certFile = join(dir, `${name}.cert.pem`);
  await openssl(
    [
      'ca',
      '-batch',
      '-notext',
      '-config',
      signer.configFile,
      '-in',
      csrFile,
      '-out',
      certFile,
      '-extfile',
      extFile,
      '-extensions',
      'leaf',
      '-startdate',
      opensslTime(notBefore),
      '-enddate',
      opensslTime(notAfter),
    ],
    dir,
  );
  return { certFile, keyFile, cert: await readFile(certFile, 'utf8'), key: await readFile(keyFile, 'utf8') };
}

async function makeRootCa(dir: string, name: string): Promise<CaState> {
  const keyFile = join(dir, `${name}.key.pem`);
  const certFile = join(dir, `${name}.cert.pem`);
  const extFile = join(dir, `${name}.ext.cnf`);
  await writeFile(extFile, `[req]\ndistinguished_name = dn\n[dn]\n[root]\n${extensionSection('ca')}\n`);
  await openssl(
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:P-256',
      '-nodes',
      '-keyout',
      keyFile,
      '-out',
      certFile,
      '-days',
      '30',
      '-subj',
      subjectArgument({ O: 'Operations Test', CN: name }),
      '-config',
      extFile,
      '-extensions',
      'root',
    ],
    dir,
  );
  const configFile = await caConfig(dir, name, certFile, keyFile);
  return makeCa(dir, certFile, keyFile, configFile, await readFile(certFile, 'utf8'));
}

/** Builds a fresh PKI in a new temp directory (about a second). Reuse one per test file. */
export async function createTestPki(): Promise<TestPki> {
  const dir = await mkdtemp(join(tmpdir(), 'fabric-ops-pki-'));
  try {
    const [ca, rogueCa] = await Promise.all([makeRootCa(dir, 'ops-ca'), makeRootCa(dir, 'rogue-ca')]);
    const intermediatePair = await ca.issueCa('ops-intermediate-ca');
    const intermediateConfig = await caConfig(dir, 'ops-intermediate-ca', intermediatePair.certFile, intermediatePair.keyFile);
    const intermediateCa = makeCa(dir, intermediatePair.certFile, intermediatePair.keyFile, intermediateConfig, intermediatePair.cert);

    const serverUsage: IssueOptions = {
      subject: { O: 'Operations Test', CN: 'localhost' },
      extendedKeyUsage: ['serverAuth'],
      dnsNames: ['localhost'],
      ipAddresses: ['127.0.0.1', '::1'],
    };
    const operator = { O: 'Org1', CN: 'operator' };
    const now = Date.now();
    const [server, good, expired, notYetValid, serverAuthOnly, rogue, chainLeaf] = await Promise.all([
      ca.issue('server', serverUsage),
      ca.issue('client-good', { subject: operator, extendedKeyUsage: ['clientAuth'] }),
      ca.issue('client-expired', { subject: operator, extendedKeyUsage: ['clientAuth'], notBefore: new Date(now - 72 * HOUR), notAfter: new Date(now - 24 * HOUR) }),
      ca.issue('client-not-yet-valid', { subject: operator, extendedKeyUsage: ['clientAuth'], notBefore: new Date(now + 24 * HOUR), notAfter: new Date(now + 72 * HOUR) }),
      ca.issue('client-server-auth-only', { subject: operator, extendedKeyUsage: ['serverAuth'] }),
      rogueCa.issue('client-rogue-ca', { subject: operator, extendedKeyUsage: ['clientAuth'] }),
      intermediateCa.issue('server-chain-leaf', serverUsage),
    ]);
    const chainFile = join(dir, 'server-chain.cert.pem');
    const chainPem = chainLeaf.cert + intermediatePair.cert;
    await writeFile(chainFile, chainPem);
    return {
      dir,
      ca,
      rogueCa,
      intermediateCa,
      server,
      serverChain: { certFile: chainFile, keyFile: chainLeaf.keyFile, cert: chainPem, key: chainLeaf.key },
      clients: { good, rogueCa: rogue, expired, notYetValid, serverAuthOnly },
      cleanup: () => rm(dir, { recursive: true, force: true }),
    };
  } catch (error) {
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
}
