import { asError, errorCode } from '../../domain/error-message.js';
import { randomBytes } from 'node:crypto';
import {
  close,
  closeSync,
  constants,
  fchmodSync,
  fstatSync,
  ftruncateSync,
  openSync,
  renameSync,
  rmSync,
  writeSync,
  writevSync,
  type Stats,
} from 'node:fs';
import { lstat, realpath, stat } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import type { ReportDocument, ReportSink } from '../../ports/report-sink.port.js';
import type { ReportTarget } from '../../ports/report-target.port.js';
import { errorText, isStickyWorldWritable, kindInWords, refusePlantedLinks } from './file-safety.js';

/** The file system calls a {@link FileReportSink} makes while publishing (a test seam for faults). */
export interface SinkFileSystem {
  openSync(path: string, flags: number, mode: number): number;
  writevSync(fd: number, buffers: NodeJS.ArrayBufferView[]): number;
  writeSync(fd: number, buffer: Uint8Array, offset: number, length: number, position: number): number;
  renameSync(from: string, to: string): void;
  fchmodSync(fd: number, mode: number): void;
  fstatSync(fd: number): { mode: number; size: number; uid: number };
  ftruncateSync(fd: number, length: number): void;
  closeSync(fd: number): void;
}

const NODE_FS: SinkFileSystem = {
  openSync,
  writevSync,
  renameSync,
  fchmodSync,
  fstatSync,
  ftruncateSync,
  closeSync,
  writeSync: (fd, buffer, offset, length, position) => writeSync(fd, buffer, offset, length, position),
};

/** Options and test seams of a {@link FileReportSink}. */
export interface FileReportSinkOptions {
  /** The random part of temp file names (default: 12 hex digits from `crypto.randomBytes`). */
  randomHex?: () => string;
  /**
   * Told once, the first time a report is written in place because the folder refused the temp file or
   * the rename (one line for the operator, without the program prefix).
   */
  notice?: (line: string) => void;
  /** The file system calls of a publish (default `node:fs`); a test seam for ENOSPC and refusals. */
  fileSystem?: Partial<SinkFileSystem>;
  /** The proxy's user id (default `process.getuid()`; undefined where there is none, e.g. Windows). */
  uid?: number;
}

const NO_FOLLOW = constants.O_NOFOLLOW ?? 0;
/** `wx` plus O_NOFOLLOW: create exclusively, never through a planted link. */
const TEMP_FLAGS = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | NO_FOLLOW;
/** The in-place fallback writes the resolved target, never through a link planted there later, and never truncates first. */
const IN_PLACE_FLAGS = constants.O_WRONLY | constants.O_CREAT | NO_FOLLOW;
const FILE_MODE = 0o666;
const TEMP_NAME_ATTEMPTS = 5;
/** A full disk or quota: writing in place instead would destroy the last complete report. */
const NO_SPACE = new Set(['ENOSPC', 'EDQUOT']);

function requireRegular(info: Stats, shown: string): void {
  if (!info.isFile()) throw new Error(`report file must be a regular file: ${shown} is ${kindInWords(info)}`);
}

async function requireFolder(folder: string): Promise<Stats> {
  const info = await stat(folder).catch((error: unknown) => {
    const why = errorCode(error) === 'ENOENT' ? 'does not exist' : `cannot be used (${errorText(error)})`;
    throw new Error(`report file folder ${why}: ${folder}`);
  });
  if (!info.isDirectory()) throw new Error(`report file folder is not a folder: ${folder}`);
  return info;
}

/** The real file to write, the mode of the file already there (kept by every write), and its folder's kind. */
interface Target {
  path: string;
  mode: number | undefined;
  /** The folder is world-writable and sticky (`/tmp`): another user may create the name at any time. */
  sharedFolder: boolean;
}

/**
 * the real file to write, or a one-line Error. Never opens or reads the target. Like the kernel's
 * `protected_symlinks` and `protected_regular`, it refuses a path through another user's link planted in a
 * world-writable sticky folder at any component, and at the last one a link owned by another user, any link in a
 * world-writable sticky folder (`/tmp`), and another user's file there: a name planted by someone else
 * must never redirect the report onto a file the proxy's user owns.
 */
async function resolveTarget(path: string, uid: number | undefined): Promise<Target> {
  const absolute = resolve(path);
  await refusePlantedLinks('report file', path, uid);
  let info: Stats;
  try {
    info = await lstat(absolute);
  } catch (error) {
    if (errorCode(error) !== 'ENOENT' && errorCode(error) !== 'ENOTDIR') {
      throw new Error(`report file cannot be used: ${path} (${errorText(error)})`);
    }
    const folder = await requireFolder(dirname(absolute));
    return { path: absolute, mode: undefined, sharedFolder: isStickyWorldWritable(folder) };
  }
  const folder = await requireFolder(dirname(absolute));
  const othersFolder = isStickyWorldWritable(folder);
  const ownedByOther = uid !== undefined && info.uid !== uid;
  if (!info.isSymbolicLink()) {
    requireRegular(info, path);
    if (othersFolder && ownedByOther) {
      throw new Error(
        `report file belongs to another user (uid ${info.uid}) in a world-writable folder: ${path}; use a private folder`,
      );
    }
    return { path: absolute, mode: info.mode & 0o777, sharedFolder: othersFolder };
  }
  if (othersFolder) {
    throw new Error(
      `report file is a symbolic link in a world-writable folder, refused (it may have been planted): ${path}; use a private folder`,
    );
  }
  if (ownedByOther) {
    throw new Error(`report file is a symbolic link owned by another user (uid ${info.uid}), refused: ${path}`);
  }
  const linked = await stat(absolute).catch(() => {
    throw new Error(`report file is a symbolic link to a missing file: ${path}`);
  });
  requireRegular(linked, path);
  const real = await realpath(absolute);
  return { path: real, mode: linked.mode & 0o777, sharedFolder: isStickyWorldWritable(await requireFolder(dirname(real))) };
}

/** The temp file or the rename was refused (not a full disk): the report may be written in place. */
class Refused extends Error {
  constructor(readonly refusal: unknown) {
    super(errorText(refusal));
  }
}

/**
 * The report file. Each publish writes `<file>.<pid>.<random>.tmp` beside the real
 * target, created exclusively and without following links, with the mode of the file it replaces, then
 * renames it into place. A full disk (ENOSPC, EDQUOT) or any failed write of the temp file rejects and
 * keeps the last complete report. Only when the folder refuses the temp file or the rename (a folder that
 * refuses new files, a file mounted in place) is the target written in place — the operator is told once
 * — without truncating it first, so a disk that fills up meanwhile still leaves the old report. If that
 * fails too the publish rejects with a one-line Error.
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
  private toldInPlace = false;
  /**
   * The text parts of the document being published, encoded one after the other: one buffer reused by
   * every publish (a publish writes synchronously, so its views are written before the next one reuses
   * it) instead of one new Buffer per text part: a report document has about ten.
   */
  private scratch = Buffer.allocUnsafe(16 * 1024);

  private constructor(
    /** The real file written (a symbolic link resolved, so the link stays a link). */
    readonly targetPath: string,
    /** The mode of the file that was there at open (a replaced file keeps it; 600 stays 600). */
    private readonly initialMode: number | undefined,
    /** The target's folder is world-writable and sticky, and the proxy's user id (to refuse others' files there). */
    private readonly shared: { folder: boolean; uid: number | undefined },
    private readonly randomHex: () => string,
    private readonly fs: SinkFileSystem,
    private readonly notice: (line: string) => void,
  ) {}

  /** Validates the target and returns a sink for it; rejects with a one-line Error. */
  static async open(path: string, options: FileReportSinkOptions = {}): Promise<FileReportSink> {
    const uid = 'uid' in options ? options.uid : process.getuid?.();
    const target = await resolveTarget(path, uid);
    return new FileReportSink(
      target.path,
      target.mode,
      { folder: target.sharedFolder, uid },
      options.randomHex ?? randomHexPool(),
      { ...NODE_FS, ...options.fileSystem },
      options.notice ?? (() => undefined),
    );
  }

  /** Writes the report atomically; rejects with a one-line Error. */
  publish(document: ReportDocument): Promise<void> {
    try {
      this.publishSync(document);
      return Promise.resolve();
    } catch (error) {
      return Promise.reject(asError(error));
    }
  }

  /** The same write, synchronously; throws a one-line Error. */
  publishSync(document: ReportDocument): void {
    const parts = this.toBuffers(document);
    try {
      this.writeViaTempSync(parts);
    } catch (error) {
      if (!(error instanceof Refused)) throw this.kept(error);
      this.writeInPlaceSync(parts, error.refusal);
      this.tellInPlaceOnce(error.refusal);
    }
  }

  /** The document as byte parts, empty parts left out; text parts are views of {@link scratch} when they fit. */
  private toBuffers(document: ReportDocument): Uint8Array[] {
    const parts = typeof document === 'string' ? [document] : document;
    // UTF-8 takes at most 3 bytes per UTF-16 code unit (a surrogate pair: 4 bytes for 2).
    let room = 0;
    for (const part of parts) if (typeof part === 'string') room += 3 * part.length;
    if (room > MAX_SCRATCH_BYTES) return toBuffers(parts);
    if (this.scratch.length < room) this.scratch = Buffer.allocUnsafe(Math.max(room, 2 * this.scratch.length));
    const scratch = this.scratch;
    const buffers: Uint8Array[] = [];
    let used = 0;
    for (const part of parts) {
      if (part.length === 0) continue;
      if (typeof part !== 'string') {
        buffers.push(part);
        continue;
      }
      const written = scratch.write(part, used, 'utf8');
      buffers.push(scratch.subarray(used, used + written));
      used += written;
    }
    return buffers;
  }

  private tempName(): string {
    return `${this.targetPath}.${process.pid}.${this.randomHex()}.tmp`;
  }

  /** The mode for the next temp file: the current one of the file in place, else the one found at open. */
  private currentMode(): number | undefined {
    if (this.heldFd === null) return this.initialMode;
    try {
      return this.fs.fstatSync(this.heldFd).mode & 0o777;
    } catch {
      return this.initialMode;
    }
  }

  /** Throws {@link Refused} when the folder refuses the temp file or the rename, any other error as is. */
  private writeViaTempSync(parts: Uint8Array[]): void {
    const fs = this.fs;
    const mode = this.currentMode();
    for (let attempt = 1; ; attempt += 1) {
      const temp = this.tempName();
      let fd: number;
      try {
        fd = fs.openSync(temp, TEMP_FLAGS, mode ?? FILE_MODE);
      } catch (error) {
        if (errorCode(error) === 'EEXIST' && attempt < TEMP_NAME_ATTEMPTS) continue;
        throw NO_SPACE.has(errorCode(error) ?? '') ? error : new Refused(error);
      }
      try {
        if (mode !== undefined) this.step(() => fs.fchmodSync(fd, mode));
        writeAll(fs, fd, parts);
        this.step(() => fs.renameSync(temp, this.targetPath));
      } catch (error) {
        fs.closeSync(fd);
        rmSync(temp, { force: true });
        throw error;
      }
      this.hold(fd);
      return;
    }
  }

  /** Runs a step whose refusal (not a full disk) allows the in-place write. */
  private step(run: () => void): void {
    try {
      run();
    } catch (error) {
      throw NO_SPACE.has(errorCode(error) ?? '') ? error : new Refused(error);
    }
  }

  private tellInPlaceOnce(refusal: unknown): void {
    if (this.toldInPlace) return;
    this.toldInPlace = true;
    this.notice(
      `warning: the report file ${this.targetPath} is written in place, not atomically (the temp file or the rename was refused: ` +
        `${errorText(refusal)}); a reader may see a partly written file while it is being written`,
    );
  }

  /**
   * Writes the target in place without truncating it first: the part beyond the old end (which needs new
   * space) goes first and is cut off again if the disk is full, then the old part is overwritten, then the
   * file is cut to the new length. A full disk thus leaves the old report whole on file systems that
   * overwrite in place (ext4, xfs, tmpfs; not copy-on-write ones such as btrfs or ZFS).
   */
  private writeInPlaceSync(parts: Uint8Array[], refusal: unknown): void {
    const fs = this.fs;
    let fd: number;
    try {
      fd = fs.openSync(this.targetPath, IN_PLACE_FLAGS, this.initialMode ?? FILE_MODE);
    } catch (error) {
      throw this.failure(refusal, error);
    }
    try {
      const data = parts.length === 1 ? parts[0]! : Buffer.concat(parts);
      const { size: oldSize, uid: owner } = fs.fstatSync(fd);
      if (this.shared.folder && this.shared.uid !== undefined && owner !== this.shared.uid) {
        throw new Error(`the file now belongs to another user (uid ${owner}) in a world-writable folder; not written`);
      }
      if (data.length > oldSize) {
        try {
          writeAt(fs, fd, data.subarray(oldSize), oldSize);
        } catch (error) {
          fs.ftruncateSync(fd, oldSize);
          throw error;
        }
      }
      writeAt(fs, fd, data.subarray(0, Math.min(oldSize, data.length)), 0);
      if (data.length < oldSize) fs.ftruncateSync(fd, data.length);
    } catch (error) {
      throw this.failure(refusal, error);
    } finally {
      fs.closeSync(fd);
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
    if (this.heldFd !== null) this.fs.closeSync(this.heldFd);
    this.heldFd = null;
  }

  /** The temp file could not be written: nothing else was touched. */
  private kept(error: unknown): Error {
    const full = NO_SPACE.has(errorCode(error) ?? '') ? 'the disk is full; ' : '';
    return new Error(
      `report file not writable: ${this.targetPath} (${errorText(error)}; ${full}the last complete report is kept)`,
    );
  }

  private failure(tempError: unknown, directError: unknown): Error {
    const full = NO_SPACE.has(errorCode(directError) ?? '') ? '; the disk is full, the last complete report is kept' : '';
    return new Error(
      `report file not writable: ${this.targetPath} (temp file and rename: ${errorText(tempError)}; ` +
        `direct write: ${errorText(directError)}${full})`,
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

/** Text parts longer than this (as UTF-8 at most) get buffers of their own rather than a scratch buffer kept that large. */
const MAX_SCRATCH_BYTES = 1 << 20;

function toBuffers(parts: ReadonlyArray<string | Uint8Array>): Uint8Array[] {
  return parts.map((p) => (typeof p === 'string' ? Buffer.from(p, 'utf8') : p)).filter((p) => p.length > 0);
}

/** Writes every part to `fd`: one `writev` system call, continued after a short write. */
function writeAll(fs: SinkFileSystem, fd: number, parts: readonly Uint8Array[]): void {
  const pending = [...parts];
  while (pending.length > 0) {
    let written = fs.writevSync(fd, pending);
    while (pending.length > 0 && written >= pending[0]!.length) written -= pending.shift()!.length;
    if (pending.length > 0 && written > 0) pending[0] = pending[0]!.subarray(written);
  }
}

/** Writes all of `data` at `position`, continued after a short write. */
function writeAt(fs: SinkFileSystem, fd: number, data: Uint8Array, position: number): void {
  for (let done = 0; done < data.length;) {
    const written = fs.writeSync(fd, data, done, data.length - done, position + done);
    if (written <= 0) throw new Error('the file system accepted no bytes');
    done += written;
  }
}

/**
 * `--report-file`: the one file every session's report goes to, and the start-up state before any
 * session (`status: "starting"`, `startupError`).
 */
export class FileReportTarget implements ReportTarget {
  private constructor(readonly sink: FileReportSink) {}

  /** Validates the file (R-9.4, see {@link FileReportSink.open}); rejects with a one-line Error. */
  static async open(path: string, options: FileReportSinkOptions = {}): Promise<FileReportTarget> {
    return new FileReportTarget(await FileReportSink.open(path, options));
  }

  /** The real file written (a symbolic link resolved). */
  get location(): string {
    return this.sink.targetPath;
  }

  get startupSink(): ReportSink {
    return this.sink;
  }

  sinkFor(): ReportSink {
    return this.sink;
  }

  pathFor(): string {
    return this.sink.targetPath;
  }
}
