import { unwatchFile, watchFile, type Stats } from 'node:fs';
import { loadTlsCredentials, loadTlsCredentialsOffThread, type TlsCredentials } from './credentials.ts';
import type { TlsFileLabels, TlsFiles } from './settings.ts';
import { makeStandInsAhead } from './stand-in-ca.ts';

export interface CredentialReloaderOptions {
  readonly settings: TlsFiles;
  /** How error lines name each file (see `loadTlsCredentials`). */
  readonly labels?: Partial<TlsFileLabels> | undefined;
  /** Installs freshly loaded credentials, e.g. `server.setSecureContext(secureContextOptions(c))`. */
  readonly apply: (credentials: TlsCredentials) => void;
  readonly onReloaded?: (trigger: ReloadTrigger) => void;
  /** A reload that failed; the previous credentials stay in force. */
  readonly onReloadFailed?: (error: Error, trigger: ReloadTrigger) => void;
  /** Poll the files and reload when one changes. Default true. */
  readonly watchFiles?: boolean;
  /** Reload on SIGHUP. Default true. */
  readonly reloadOnSighup?: boolean;
  /** How often the files are stat'ed. Default 1000 ms. */
  readonly pollIntervalMs?: number;
  /** Quiet time after the last change before reloading, so a cert and key written one after the other load together. Default 300 ms. */
  readonly debounceMs?: number;
}

export type ReloadTrigger = 'file-change' | 'SIGHUP' | 'manual';

export interface CredentialReloader {
  /** Loads and applies the files now; throws TlsAuthError (old credentials kept) when they are bad. */
  reload(): void;
  /** Stops watching and listening for SIGHUP. */
  close(): void;
}

/**
 * Keeps a TLS server's credentials in step with its files. Polling (`fs.watchFile`) rather
 * than `fs.watch` because rotation tools replace files by rename, which inode watches miss.
 */
export function createCredentialReloader(options: CredentialReloaderOptions): CredentialReloader {
  const debounceMs = options.debounceMs ?? 300;
  let timer: NodeJS.Timeout | undefined;
  let closed = false;

  const loadOptions = options.labels === undefined ? {} : { labels: options.labels };
  // The latest load started: one that ends after a later one has begun is dropped (older files).
  let latest = 0;
  const reload = (): void => {
    latest += 1;
    options.apply(loadTlsCredentials(options.settings, loadOptions));
  };

  // A change or SIGHUP while serving: the client CAs are parsed off the event loop and their
  // OpenSSL stand-ins made in slices; the new credentials are applied whole once all is checked,
  // the old ones serving every handshake until then.
  const attempt = (trigger: ReloadTrigger): void => {
    if (closed) return;
    const mine = ++latest;
    loadTlsCredentialsOffThread(options.settings, loadOptions).then(
      async (credentials) => {
        if (closed || mine !== latest) return;
        await makeStandInsAhead(credentials.ca);
        if (closed || mine !== latest) return;
        try {
          options.apply(credentials);
          options.onReloaded?.(trigger);
        } catch (error) {
          options.onReloadFailed?.(error as Error, trigger);
        }
      },
      (error: unknown) => {
        if (!closed && mine === latest) options.onReloadFailed?.(error as Error, trigger);
      },
    );
  };

  const paths = [...new Set([options.settings.certFile, options.settings.keyFile, ...options.settings.clientRootCAs])];
  const onChange = (current: Stats, previous: Stats): void => {
    if (current.mtimeMs === previous.mtimeMs && current.ino === previous.ino && current.size === previous.size) return;
    clearTimeout(timer);
    timer = setTimeout(() => attempt('file-change'), debounceMs);
    timer.unref();
  };
  if (options.watchFiles ?? true) {
    for (const path of paths) watchFile(path, { interval: options.pollIntervalMs ?? 1_000, persistent: false }, onChange);
  }
  const onSighup = (): void => attempt('SIGHUP');
  const sighup = options.reloadOnSighup ?? true;
  if (sighup) process.on('SIGHUP', onSighup);

  return {
    reload,
    close() {
      if (closed) return;
      closed = true;
      clearTimeout(timer);
      for (const path of paths) unwatchFile(path, onChange);
      if (sighup) process.off('SIGHUP', onSighup);
    },
  };
}
