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

/**
 * The key a certificate gets: ECDSA on P-256 (Fabric's default) or P-384, Ed25519, or RSA of
 * the given size (`rsa-2048`).
 */
export type KeyType = 'ec-p256' | 'ec-p384' | 'ed25519' | `rsa-${number}`;

/** Which key a new certificate is made for. */
export interface KeyChoice {
  /** Algorithm of a new key; default `ec-p256`. */
  readonly keyType?: KeyType;
  /**
   * An existing private key (PEM file) instead of a new one: a CA re-issued or cross-signed under
   * another issuer keeps its key, and self-issued copies of one CA share theirs.
   */
  readonly keyFile?: string;
}

export interface IssueOptions extends KeyChoice {
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
  /** The CA's private key, for a cross-signed copy of it (`keyFile` of another issuer's `issueIntermediate`). */
  readonly keyFile: string;
  /** Issues a leaf certificate signed by this CA. `name` must be unique within the PKI. */
  issue(name: string, options: IssueOptions): Promise<PemPair>;
  /** Issues a subordinate CA (CA:TRUE unless `ca: false`), which can issue in turn. `name` must be unique within the PKI. */
  issueIntermediate(name: string, options?: IntermediateOptions): Promise<TestCa>;
}

/** Shapes of a CA certificate, for chain-verification tests. */
export interface CaOptions extends KeyChoice {
  /** Default `{ O: 'Operations Test', CN: <name> }`; two CAs given one subject (and one `keyFile`) are copies of one CA. */
  readonly subject?: Readonly<Record<string, string>>;
  /** Extra lines for the CA's extension section, e.g. `nameConstraints = critical, excluded;DNS:x.example`. */
  readonly extraExtensions?: readonly string[];
}

/** Shapes of a subordinate CA certificate, for chain-verification tests. */
export interface IntermediateOptions extends CaOptions {
  /** Restricts the CA's extended key usage; none by default. */
  readonly extendedKeyUsage?: readonly ('serverAuth' | 'clientAuth' | 'anyExtendedKeyUsage')[];
  /** basicConstraints pathlen. */
  readonly pathLength?: number;
  /** false writes CA:FALSE (with keyCertSign still set): a certificate that signs without being a CA. */
  readonly ca?: boolean;
}

/** A directory to make CAs in, and nothing made yet: for tests and benches that need only their own CAs. */
export interface PkiWorkspace {
  readonly dir: string;
  /** Makes a self-signed CA (valid for 30 days) that can issue leaves and intermediates. `name` must be unique within the directory. */
  rootCa(name: string, options?: CaOptions): Promise<TestCa>;
  /** Removes the directory. */
  cleanup(): Promise<void>;
}

/**
 * A throw-away PKI for one test file: the operations CA plus every kind of client certificate
 * the TLS rules distinguish. Generated with the `openssl` CLI (scripts/test-deps.sh installs it).
 */
export interface TestPki extends PkiWorkspace {
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
  /**
   * The files a server's TLS settings name for this PKI: `server`'s certificate and key, client
   * certificates checked against `ca`. Spread into the settings a test needs
   * (`{ enabled: true, clientAuthRequired: false, ...pki.serverTls }`).
   */
  readonly serverTls: { readonly certFile: string; readonly keyFile: string; readonly clientRootCAs: readonly string[] };
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

/** `openssl req` arguments that make (or reuse) the key a request is for, writing a new one to `keyOut`. */
function keyArguments(key: KeyChoice, keyOut: string): string[] {
  if (key.keyFile !== undefined) return ['-key', key.keyFile];
  const type = key.keyType ?? 'ec-p256';
  const rsaBits = /^rsa-(\d+)$/.exec(type)?.[1];
  let algorithm: string[];
  if (rsaBits !== undefined) algorithm = ['-newkey', `rsa:${rsaBits}`];
  else if (type === 'ed25519') algorithm = ['-newkey', 'ed25519'];
  else if (type === 'ec-p256' || type === 'ec-p384') algorithm = ['-newkey', 'ec', '-pkeyopt', `ec_paramgen_curve:${type === 'ec-p256' ? 'P-256' : 'P-384'}`];
  else throw new Error(`test PKI: unknown keyType '${type}'; expected ec-p256, ec-p384, ed25519 or rsa-<bits>`);
  return [...algorithm, '-nodes', '-keyout', keyOut];
}

async function newKeyAndCsr(dir: string, name: string, subject: Readonly<Record<string, string>>, key: KeyChoice): Promise<{ keyFile: string; csrFile: string }> {
  const keyFile = key.keyFile ?? join(dir, `${name}.key.pem`);
  const csrFile = join(dir, `${name}.csr.pem`);
  await openssl(['req', '-new', ...keyArguments(key, keyFile), '-out', csrFile, '-subj', subjectArgument(subject)], dir);
  return { keyFile, csrFile };
}

/** A CA certificate's request (a root's or an intermediate's), as against a leaf's `IssueOptions`. */
type CaShape = { readonly intermediate: IntermediateOptions };

function isCaShape(options: IssueOptions | CaShape): options is CaShape {
  return 'intermediate' in options;
}

function extensionSection(options: IssueOptions | CaShape): string {
  if (isCaShape(options)) {
    const shape = options.intermediate;
    const lines = [
      `basicConstraints = critical, CA:${shape.ca === false ? 'FALSE' : 'TRUE'}${shape.pathLength === undefined ? '' : `, pathlen:${shape.pathLength}`}`,
      'keyUsage = critical, keyCertSign, cRLSign, digitalSignature',
      'subjectKeyIdentifier = hash',
      'authorityKeyIdentifier = keyid',
    ];
    if (shape.extendedKeyUsage !== undefined) lines.push(`extendedKeyUsage = ${shape.extendedKeyUsage.join(', ')}`);
    lines.push(...(shape.extraExtensions ?? []));
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

function makeCa(dir: string, certFile: string, keyFile: string, configFile: string, cert: string): TestCa {
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
    issue: (leafName, options) => issue(leafName, options),
    async issueIntermediate(caName, options = {}) {
      const pair = await issue(caName, { intermediate: options });
      const config = await caConfig(dir, caName, pair.certFile, pair.keyFile);
      return makeCa(dir, pair.certFile, pair.keyFile, config, pair.cert);
    },
  };
}

async function signWith(dir: string, signer: { certFile: string; keyFile: string; configFile: string }, name: string, options: IssueOptions | CaShape): Promise<PemPair> {
  const caOptions: CaOptions = isCaShape(options) ? options.intermediate : {};
  const subject = isCaShape(options) ? (caOptions.subject ?? { O: 'Operations Test', CN: name }) : options.subject;
  const { keyFile, csrFile } = await newKeyAndCsr(dir, name, subject, isCaShape(options) ? caOptions : options);
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

async function makeRootCa(dir: string, name: string, options: CaOptions = {}): Promise<TestCa> {
  const keyFile = options.keyFile ?? join(dir, `${name}.key.pem`);
  const certFile = join(dir, `${name}.cert.pem`);
  const extFile = join(dir, `${name}.ext.cnf`);
  await writeFile(extFile, `[req]\ndistinguished_name = dn\n[dn]\n[root]\n${extensionSection({ intermediate: options })}\n`);
  const subject = options.subject ?? { O: 'Operations Test', CN: name };
  await openssl(['req', '-x509', ...keyArguments(options, keyFile), '-out', certFile, '-days', '30', '-subj', subjectArgument(subject), '-config', extFile, '-extensions', 'root'], dir);
  const configFile = await caConfig(dir, name, certFile, keyFile);
  return makeCa(dir, certFile, keyFile, configFile, await readFile(certFile, 'utf8'));
}

/** A new temp directory to make CAs in (none made yet). */
export async function createPkiWorkspace(): Promise<PkiWorkspace> {
  const dir = await mkdtemp(join(tmpdir(), 'fabric-ops-pki-'));
  return { dir, rootCa: (name, options) => makeRootCa(dir, name, options), cleanup: () => rm(dir, { recursive: true, force: true }) };
}

/** Builds a fresh PKI in a new temp directory (about a second). Reuse one per test file. */
export async function createTestPki(): Promise<TestPki> {
  const workspace = await createPkiWorkspace();
  const { dir } = workspace;
  try {
    const [ca, rogueCa] = await Promise.all([makeRootCa(dir, 'ops-ca'), makeRootCa(dir, 'rogue-ca')]);
    const intermediateCa = await ca.issueIntermediate('ops-intermediate-ca');

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
    const chainPem = chainLeaf.cert + intermediateCa.cert;
    await writeFile(chainFile, chainPem);
    return {
      ...workspace,
      ca,
      rogueCa,
      intermediateCa,
      server,
      serverTls: { certFile: server.certFile, keyFile: server.keyFile, clientRootCAs: [ca.certFile] },
      serverChain: { certFile: chainFile, keyFile: chainLeaf.keyFile, cert: chainPem, key: chainLeaf.key },
      clients: { good, rogueCa: rogue, expired, notYetValid, serverAuthOnly },
    };
  } catch (error) {
    await workspace.cleanup();
    throw error;
  }
}
