import { randomBytes } from 'node:crypto';
import { close, closeSync, constants, openSync, renameSync, rmSync, writevSync, type Stats } from 'node:fs';
import { lstat, realpath, stat } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import type { ReportDocument, ReportSink } from '../ports/report-sink.port.js';

/** Test seams of a {@link FileReportSink}. */
export interface FileReportSinkOptions {
  /** The random part of temp file names (default: 12 hex digits from `crypto.randomBytes`). */
  randomHex?: () => string;
}

const NO_FOLLOW = constants.O_NOFOLLOW ?? 0;
/** `wx` plus O_NOFOLLOW: create exclusively, never through a planted link. */
const TEMP_FLAGS = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | NO_FOLLOW;
/** The direct fallback writes the resolved target, never through a link planted there later. */
const DIRECT_FLAGS = constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | NO_FOLLOW;
const FILE_MODE = 0o666;
const TEMP_NAME_ATTEMPTS = 5;

function errorText(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).replace(/\s+/g, ' ');
}

function errorCode(error: unknown): string | undefined {
  const code: unknown = error instanceof Error ? Object.getOwnPropertyDescriptor(error, 'code')?.value : undefined;
  return typeof code === 'string' ? code : undefined;
}

function kindOf(info: Stats): string | undefined {
  if (info.isFile()) return undefined;
  if (info.isDirectory()) return 'a folder';
  if (info.isCharacterDevice()) return 'a character device';
  if (info.isBlockDevice()) return 'a block device';
  if (info.isFIFO()) return 'a FIFO (named pipe)';
  if (info.isSocket()) return 'a socket';
  return 'not a regular file';
}

function requireRegular(info: Stats, shown: string): void {
  const kind = kindOf(info);
  if (kind !== undefined) throw new Error(`report file must be a regular file: ${shown} is ${kind}`);
}

async function requireFolder(folder: string): Promise<void> {
  const info = await stat(folder).catch((error: unknown) => {
    const why = errorCode(error) === 'ENOENT' ? 'does not exist' : `cannot be used (${errorText(error)})`;
    throw new Error(`report file folder ${why}: ${folder}`);
  });
  if (!info.isDirectory()) throw new Error(`report file folder is not a folder: ${folder}`);
}

/** the real file to write, or a one-line Error. Never opens or reads the target. */
async function resolveTarget(path: string): Promise<string> {
  const absolute = resolve(path);
  let info: Stats;
  try {
    info = await lstat(absolute);
  } catch (error) {
    if (errorCode(error) !== 'ENOENT' && errorCode(error) !== 'ENOTDIR') {
      throw new Error(`report file cannot be used: ${path} (${errorText(error)})`);
    }
    await requireFolder(dirname(absolute));
    return absolute;
  }
  if (!info.isSymbolicLink()) {
    requireRegular(info, path);
    return absolute;
  }
  const linked = await stat(absolute).catch(() => {
    throw new Error(`report file is a symbolic link to a missing file: ${path}`);
  });
  requireRegular(linked, path);
  return realpath(absolute);
}

/**
 * The report file. Each publish writes `<file>.<pid>.<random>.tmp` beside the real
 * target, created exclusively and without following links, then renames it into place; if that fails it
 * writes the target directly; if that fails too the publish rejects with a one-line Error.
 * Writes are synchronous on purpose: the agent's answer waits for the report anyway, and four
 * direct system calls cost far less than four round trips through libuv's thread pool. Callers that
 * publish for several calls at once coalesce before calling (see the proxy's report publisher).
 */
export class FileReportSink implements ReportSink {
  /**
   * The open descriptor of the file last renamed into place. Closing it only after the NEXT rename, off
   * the hot path, keeps the replaced file's final release (which on ext4 waits for the writeback that the
   * rename started) out of the rename: measured 1.06 ms → 0.05 ms per 30 kB report, 3.2 → 0.14 ms at 300 kB.
   */
  private heldFd: number | null = null;

  private constructor(
    /** The real file written (a symbolic link resolved, so the link stays a link). */
    readonly targetPath: string,
    private readonly randomHex: () => string,
  ) {}

  /** Validates the target and returns a sink for it; rejects with a one-line Error. */
  static async open(path: string, options: FileReportSinkOptions = {}): Promise<FileReportSink> {
    const target = await resolveTarget(path);
    return new FileReportSink(target, options.randomHex ?? randomHexPool());
  }

  /** Writes the report atomically; rejects with a one-line Error. */
  publish(document: ReportDocument): Promise<void> {
    try {
      this.publishSync(document);
      return Promise.resolve();
    } catch (error) {
      return Promise.reject(error instanceof Error ? error : new Error(String(error)));
    }
  }

  /** The same write, synchronously; throws a one-line Error. */
  publishSync(document: ReportDocument): void {
    const parts = toBuffers(document);
    try {
      this.writeViaTempSync(parts);
    } catch (error) {
      this.writeDirectSync(parts, error);
    }
  }

  private tempName(): string {
    return `${this.targetPath}.${process.pid}.${this.randomHex()}.tmp`;
  }

  private writeViaTempSync(parts: Uint8Array[]): void {
    for (let attempt = 1; ; attempt += 1) {
      const temp = this.tempName();
      let fd: number;
      try {
        fd = openSync(temp, TEMP_FLAGS, FILE_MODE);
      } catch (error) {
        if (errorCode(error) === 'EEXIST' && attempt < TEMP_NAME_ATTEMPTS) continue;
        throw error;
      }
      try {
        writeAll(fd, parts);
        renameSync(temp, this.targetPath);
      } catch (error) {
        closeSync(fd);
        rmSync(temp, { force: true });
        throw error;
      }
      this.hold(fd);
      return;
    }
  }

  private writeDirectSync(parts: Uint8Array[], tempError: unknown): void {
    try {
      const fd = openSync(this.targetPath, DIRECT_FLAGS, FILE_MODE);
      try {
        writeAll(fd, parts);
      } finally {
        closeSync(fd);
      }
    } catch (error) {
      throw this.failure(tempError, error);
    }
  }

  /** Keeps `fd` open until the next publish; closes the one held before, asynchronously. */
  private hold(fd: number): void {
    const previous = this.heldFd;
    this.heldFd = fd;
    if (previous !== null) close(previous, () => undefined);
  }

  /** Releases the descriptor still held (at exit; harmless to skip, the process end closes it). */
  release(): void {
    if (this.heldFd !== null) closeSync(this.heldFd);
    this.heldFd = null;
  }

  private failure(tempError: unknown, directError: unknown): Error {
    return new Error(
      `report file not writable: ${this.targetPath} (temp file and rename: ${errorText(tempError)}; ` +
        `direct write: ${errorText(directError)})`,
    );
  }
}

/** 12 random hex digits per call, drawn 64 names at a time (one `randomBytes` call instead of 64). */
function randomHexPool(): () => string {
  let pool = '';
  return () => {
    if (pool.length < 12) pool = randomBytes(6 * 64).toString('hex');
    const name = pool.slice(0, 12);
    pool = pool.slice(12);
    return name;
  };
}

function toBuffers(document: ReportDocument): Uint8Array[] {
  const parts = typeof document === 'string' ? [document] : document;
  return parts.map((p) => (typeof p === 'string' ? Buffer.from(p, 'utf8') : p)).filter((p) => p.length > 0);
}

/** Writes every part to `fd`: one `writev` system call, continued after a short write. */
function writeAll(fd: number, parts: readonly Uint8Array[]): void {
  let pending = [...parts];
  while (pending.length > 0) {
    let written = writevSync(fd, pending as NodeJS.ArrayBufferView[]);
    while (pending.length > 0 && written >= pending[0]!.length) written -= pending.shift()!.length;
    if (pending.length > 0 && written > 0) pending[0] = pending[0]!.subarray(written);
  }
}

