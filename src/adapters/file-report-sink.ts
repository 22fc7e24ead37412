import { randomBytes } from 'node:crypto';
import { closeSync, constants, openSync, renameSync, rmSync, writeSync, type Stats } from 'node:fs';
import { lstat, open, realpath, rename, rm, stat } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import type { ReportSink } from '../ports/report-sink.port.js';

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

interface Batch {
  json: string;
  waiters: Array<{ resolve: () => void; reject: (error: Error) => void }>;
}

/**
 * The report file. Each publish writes `<file>.<pid>.<random>.tmp` beside the real
 * target, created exclusively and without following links, then renames it into place; if that fails it
 * writes the target directly; if that fails too the publish rejects with a one-line Error. Publishes
 * are serialised and coalesced: while one write runs, only the newest queued report is written next,
 * and every caller resolves after a write at least as new as its own report.
 */
export class FileReportSink implements ReportSink {
  private queued: Batch | undefined;
  private writing = false;
  /** Counts synchronous publishes, so a slower asynchronous write never lands after a newer one. */
  private syncWrites = 0;

  private constructor(
    /** The real file written (a symbolic link resolved, so the link stays a link). */
    readonly targetPath: string,
    private readonly randomHex: () => string,
  ) {}

  /** Validates the target and returns a sink for it; rejects with a one-line Error. */
  static async open(path: string, options: FileReportSinkOptions = {}): Promise<FileReportSink> {
    const target = await resolveTarget(path);
    return new FileReportSink(target, options.randomHex ?? (() => randomBytes(6).toString('hex')));
  }

  /** Writes the report atomically (coalescing queued reports); rejects with a one-line Error. */
  publish(json: string): Promise<void> {
    return new Promise((resolvePublish, rejectPublish) => {
      const waiter = { resolve: resolvePublish, reject: rejectPublish };
      if (this.queued) {
        this.queued.json = json;
        this.queued.waiters.push(waiter);
      } else {
        this.queued = { json, waiters: [waiter] };
      }
      if (!this.writing) void this.drain();
    });
  }

  /** The same write, synchronously, for the process-exit path; throws a one-line Error. */
  publishSync(json: string): void {
    this.syncWrites += 1;
    try {
      this.writeViaTempSync(json);
    } catch (error) {
      this.writeDirectSync(json, error);
    }
    const superseded = this.queued;
    this.queued = undefined;
    superseded?.waiters.forEach((waiter) => waiter.resolve());
  }

  private async drain(): Promise<void> {
    this.writing = true;
    for (let batch = this.queued; batch !== undefined; batch = this.queued) {
      this.queued = undefined;
      try {
        await this.writeOnce(batch.json);
        batch.waiters.forEach((waiter) => waiter.resolve());
      } catch (error) {
        const failure = error instanceof Error ? error : new Error(String(error));
        batch.waiters.forEach((waiter) => waiter.reject(failure));
      }
    }
    this.writing = false;
  }

  private async writeOnce(json: string): Promise<void> {
    const generation = this.syncWrites;
    try {
      await this.writeViaTemp(json, () => generation !== this.syncWrites);
    } catch (error) {
      await this.writeDirect(json, error);
    }
  }

  private tempName(): string {
    return `${this.targetPath}.${process.pid}.${this.randomHex()}.tmp`;
  }

  private async writeViaTemp(json: string, superseded: () => boolean): Promise<void> {
    for (let attempt = 1; ; attempt += 1) {
      const temp = this.tempName();
      const handle = await open(temp, TEMP_FLAGS, FILE_MODE).catch((error: unknown) => {
        if (errorCode(error) === 'EEXIST' && attempt < TEMP_NAME_ATTEMPTS) return undefined;
        throw error;
      });
      if (handle === undefined) continue;
      try {
        await handle.writeFile(json, 'utf8').finally(() => handle.close());
        if (superseded()) await rm(temp, { force: true });
        else await rename(temp, this.targetPath);
      } catch (error) {
        await rm(temp, { force: true }).catch(() => undefined);
        throw error;
      }
      return;
    }
  }

  private async writeDirect(json: string, tempError: unknown): Promise<void> {
    try {
      const handle = await open(this.targetPath, DIRECT_FLAGS, FILE_MODE);
      await handle.writeFile(json, 'utf8').finally(() => handle.close());
    } catch (error) {
      throw this.failure(tempError, error);
    }
  }

  private writeViaTempSync(json: string): void {
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
        writeAllSync(fd, json);
        renameSync(temp, this.targetPath);
      } catch (error) {
        rmSync(temp, { force: true });
        throw error;
      }
      return;
    }
  }

  private writeDirectSync(json: string, tempError: unknown): void {
    try {
      writeAllSync(openSync(this.targetPath, DIRECT_FLAGS, FILE_MODE), json);
    } catch (error) {
      throw this.failure(tempError, error);
    }
  }

  private failure(tempError: unknown, directError: unknown): Error {
    return new Error(
      `report file not writable: ${this.targetPath} (temp file and rename: ${errorText(tempError)}; ` +
        `direct write: ${errorText(directError)})`,
    );
  }
}

/** Writes all of `text` to `fd` and closes it, even when a write fails. */
function writeAllSync(fd: number, text: string): void {
  try {
    const bytes = Buffer.from(text, 'utf8');
    for (let offset = 0; offset < bytes.length; ) offset += writeSync(fd, bytes, offset);
  } finally {
    closeSync(fd);
  }
}

