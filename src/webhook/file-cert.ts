/**
 * File mode: serve `tls.crt` and `tls.key` from a directory, the layout of a
 * kubernetes.io/tls Secret (what cert-manager writes), and pick up renewals
 * without a restart. Nothing is minted and the caBundle is left alone: with
 * cert-manager, its CA injector owns the caBundle.
 *
 * Kubelet updates a Secret volume by writing a new timestamped directory and
 * swapping the `..data` symlink, and the visible files are symlinks through
 * it; fs.watch on the directory sees the swap. Watch events can be missed
 * (some file systems, a directory that appears late), so a periodic check
 * compares the file contents too.
 */
import { type FSWatcher, watch } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from 'pino';
import { errorMessage } from '../api/index.js';
import { x509 } from '../x509/index.js';
import type { ServingCertificate } from './types.js';

const CERT_FILE = 'tls.crt';
const KEY_FILE = 'tls.key';

/** Kubelet writes several entries per update; wait for the burst to end before reading. */
const SETTLE_MS = 100;

interface FileCertificateSourceOptions {
  dir: string;
  log: Logger;
  checkIntervalMs: number;
  install(cert: ServingCertificate): Promise<void>;
}

async function readOptional(path: string): Promise<string | undefined> {
  try {
    return await readFile(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}

export class FileCertificateSource {
  private watcher: FSWatcher | undefined;
  private interval: NodeJS.Timeout | undefined;
  private settle: NodeJS.Timeout | undefined;
  private closed = false;
  private running: Promise<void> | undefined;
  private again = false;
  /** The contents last installed, to tell a real change from a touch. */
  private installed: { cert: string; key: string } | undefined;
  private problem_: string | undefined = 'the first check has not finished';

  constructor(private readonly o: FileCertificateSourceOptions) {}

  get problem(): string | undefined {
    return this.problem_;
  }

  start(): void {
    this.watchDir();
    this.interval = setInterval(() => {
      this.watchDir();
      this.trigger();
    }, this.o.checkIntervalMs);
    this.trigger();
  }

  close(): void {
    this.closed = true;
    clearInterval(this.interval);
    clearTimeout(this.settle);
    this.watcher?.close();
  }

  /** (Re)starts the watch; the directory may not exist yet when the Secret is mounted late. */
  private watchDir(): void {
    if (this.watcher || this.closed) return;
    try {
      const w = watch(this.o.dir, () => {
        clearTimeout(this.settle);
        this.settle = setTimeout(() => this.trigger(), SETTLE_MS);
      });
      w.on('error', () => {
        // The directory went away; the periodic check re-creates the watch.
        w.close();
        if (this.watcher === w) this.watcher = undefined;
      });
      this.watcher = w;
    } catch {
      // Not there yet: the periodic check tries again.
    }
  }

  /** Runs a check, or one more after the running one, never two at once. */
  private trigger(): void {
    if (this.closed) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = this.check().finally(() => {
      this.running = undefined;
      if (this.again) {
        this.again = false;
        this.trigger();
      }
    });
  }

  private async check(): Promise<void> {
    const certPath = join(this.o.dir, CERT_FILE);
    const keyPath = join(this.o.dir, KEY_FILE);
    try {
      const [cert, key] = await Promise.all([readOptional(certPath), readOptional(keyPath)]);
      if (cert === undefined || key === undefined) {
        const missing = [cert === undefined ? certPath : undefined, key === undefined ? keyPath : undefined].filter(Boolean).join(' and ');
        this.setProblem(`${missing} not found`);
        return;
      }
      if (this.installed && this.installed.cert === cert && this.installed.key === key) return;
      const leaf = x509.PemConverter.decodeWithHeaders(cert).find((b) => b.type === 'CERTIFICATE');
      if (!leaf) throw new Error(`${certPath} holds no PEM CERTIFICATE`);
      const notAfter = new x509.X509Certificate(leaf.rawData).notAfter;
      // Throws on a key that does not match: a renewal caught half-written is retried, not served.
      await this.o.install({ certPem: cert, keyPem: key, notAfter });
      const first = !this.installed;
      this.installed = { cert, key };
      this.setProblem(undefined);
      this.o.log.info({ dir: this.o.dir, notAfter: notAfter.toISOString() }, first ? 'webhook serving certificate loaded' : 'webhook serving certificate reloaded');
    } catch (err) {
      this.setProblem(`cannot use ${certPath} and ${keyPath}: ${errorMessage(err)}`, err);
    }
  }

  /** Logs a problem once, when it changes; `err` is the thrown value behind it, when there is one. */
  private setProblem(problem: string | undefined, err?: unknown): void {
    if (problem === this.problem_) return;
    this.problem_ = problem;
    if (problem !== undefined) this.o.log.warn({ reason: problem, err }, 'webhook serving certificate files not usable');
  }
}
