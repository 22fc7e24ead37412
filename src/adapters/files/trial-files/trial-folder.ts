/**
 * The output folder of a trial: `runs/<id>/` per run (its `report.json` written by the same file report
 * sink as `proxy --report-file`, its `run.json`, the agent program's logs) and `summary.json`. Every JSON
 * file is written atomically through that sink (exclusive temp file, never through a planted link, rename).
 */
import { errorCode, errorMessage } from '../../../domain/error-message.js';
import { randomBytes } from 'node:crypto';
import { link, mkdir, readdir, readFile, rename, rmdir, unlink, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import type { ReportSink } from '../../../ports/report-sink.port.js';
import { FileReportSink } from '../file-report-sink.js';
import { refusePlantedLinks } from '../file-safety.js';
import { describeOwner, ownerAlive, ownOwner, parseOwner } from '../owner-lock.js';

/**
 * Made exclusively by the trial that takes the folder: a second trial started at the same time is refused.
 * It holds the owner's pid, host and start (JSON): a claim left by a trial that was killed (SIGKILL, a
 * crash, a machine that rebooted) names a process that no longer runs on this host, and is taken over,
 * with a notice saying so (docs/commands/trial.md).
 */
const CLAIM = '.trial';

/** Whether an empty folder was removed (rmdir removes nothing else). */
const removed = (dir: string): Promise<boolean> =>
  rmdir(dir).then(
    () => true,
    () => false,
  );

export interface TrialRunFolder {
  id: string;
  dir: string;
  reportFile: string;
  reportSink: ReportSink;
}

/** A sink that opens its file on the first publish and can give its held descriptor back. */
class LazyFileSink implements ReportSink {
  private sink: Promise<FileReportSink> | null = null;

  constructor(private readonly file: string) {}

  async publish(document: Parameters<ReportSink['publish']>[0]): Promise<void> {
    this.sink ??= FileReportSink.open(this.file);
    return (await this.sink).publish(document);
  }

  async release(): Promise<void> {
    if (this.sink !== null) (await this.sink.catch(() => null))?.release();
  }
}

export class TrialFolder {
  private constructor(
    readonly root: string,
    /** The first folder `open` created (root or one of its parents), undefined when root already existed. */
    private readonly created: string | undefined,
    /** Set when `open` took over the claim of a trial that no longer runs: what to tell the user. */
    readonly takenOver: string | null = null,
  ) {}

  /**
   * Creates the folder (and its parents); rejects with a one-line Error when it cannot be used or already
   * holds runs of another trial (never mixed, never overwritten).
   */
  static async open(path: string): Promise<TrialFolder> {
    const root = resolve(path);
    // Before mkdir: the folder and its runs created through another user's planted link would land where they chose.
    await refusePlantedLinks('output folder', root, process.getuid?.());
    const earlier = await readdir(join(root, 'runs')).catch(() => []);
    if (earlier.length > 0) throw new Error(`output folder ${root} already holds the runs of a trial; choose another --out`);
    let created: string | undefined;
    try {
      created = await mkdir(root, { recursive: true });
      await mkdir(join(root, 'runs'), { recursive: true });
    } catch (error) {
      throw new Error(`output folder ${root} cannot be created: ${errorMessage(error)}`);
    }
    const takenOver = await claim(root);
    return new TrialFolder(root, created, takenOver);
  }

  /**
   * The trial is over (finished or interrupted, its summary written): gives up the `.trial` claim, so the
   * folder holds only the trial's files. Its runs keep it from being used again; a folder whose trial
   * ended before any run can be.
   */
  async release(): Promise<void> {
    await unlink(join(this.root, CLAIM)).catch(() => undefined);
  }

  /**
   * After bad input found once the folder existed (an upstream that does not start): removes `runs/` and
   * the folders `open` created, as long as they are empty (rmdir never removes anything else).
   */
  async discardIfUnused(): Promise<void> {
    const folders = [join(this.root, 'runs')];
    if (this.created !== undefined)
      for (let dir = this.root; dir.length >= this.created.length; dir = dirname(dir)) {
        folders.push(dir);
        if (dir === this.created) break;
      }
    await this.release();
    for (const dir of folders) if (!(await removed(dir))) return;
  }

  async openRun(runId: string): Promise<TrialRunFolder & { release(): Promise<void> }> {
    const safe = runId.replace(/[^A-Za-z0-9_.-]/g, '_');
    const dir = join(this.root, 'runs', safe);
    await mkdir(dir, { recursive: true });
    const reportFile = join(dir, 'report.json');
    const sink = new LazyFileSink(reportFile);
    return { id: runId, dir, reportFile, reportSink: sink, release: () => sink.release() };
  }

  async readText(path: string): Promise<string | null> {
    try {
      return await readFile(path, 'utf8');
    } catch {
      return null;
    }
  }

  async writeJson(relativePath: string, value: unknown): Promise<string> {
    return this.writeText(relativePath, `${JSON.stringify(value, null, 2)}\n`);
  }

  async writeText(relativePath: string, text: string): Promise<string> {
    const file = join(this.root, relativePath);
    const sink = await FileReportSink.open(file);
    try {
      await sink.publish(text);
    } finally {
      sink.release();
    }
    return file;
  }
}

/** Writes the claim exclusively (O_EXCL); null, or the notice when a dead trial's claim was taken over. */
async function claim(root: string): Promise<string | null> {
  const file = join(root, CLAIM);
  const text = `${JSON.stringify(ownOwner())}\n`;
  // Written whole beside it, then linked into place (exclusive, like O_EXCL): a reader never sees a
  // claim half-written. Where hard links are refused, O_EXCL itself.
  const create = async (): Promise<void> => {
    const whole = `${file}.${process.pid}.${randomBytes(6).toString('hex')}.new`;
    await writeFile(whole, text, { flag: 'wx' });
    try {
      await link(whole, file);
    } catch (error) {
      const code = errorCode(error);
      if (code === 'EEXIST') throw error;
      await writeFile(file, text, { flag: 'wx' });
    } finally {
      await unlink(whole).catch(() => undefined);
    }
  };
  const unusable = (error: unknown) => new Error(`output folder ${root} cannot be used: ${errorMessage(error)}`);
  try {
    // O_EXCL: of two trials that found the folder free at the same moment, only one creates it.
    await create();
    return null;
  } catch (error) {
    if (errorCode(error) !== 'EEXIST') throw unusable(error);
  }
  const found = await readFile(file, 'utf8').catch(() => '');
  const owner = parseOwner(found);
  if (owner === null)
    throw new Error(
      `output folder ${root} is taken by another trial (its .trial file does not name a trial's process: remove it if no trial runs); choose another --out`,
    );
  if (ownerAlive(owner))
    throw new Error(
      `output folder ${root} is taken by another trial running now (its .trial file: ${describeOwner(owner)}); choose another --out`,
    );
  // Moved aside atomically, so of two trials taking over at once only one gets the dead claim; one that
  // moved a live claim instead (made in between) puts it back and is refused.
  const aside = `${file}.${process.pid}.stale`;
  try {
    await rename(file, aside);
  } catch (error) {
    throw new Error(`output folder ${root} is taken by another trial starting now (its .trial file); choose another --out`, {
      cause: error,
    });
  }
  const moved = await readFile(aside, 'utf8').catch(() => '');
  if (moved !== found) {
    await link(aside, file).catch(() => undefined);
    await unlink(aside).catch(() => undefined);
    throw new Error(`output folder ${root} is taken by another trial starting now (its .trial file); choose another --out`);
  }
  await unlink(aside).catch(() => undefined);
  try {
    await create();
  } catch (error) {
    if (errorCode(error) === 'EEXIST')
      throw new Error(`output folder ${root} is taken by another trial starting now (its .trial file); choose another --out`);
    throw unusable(error);
  }
  return `output folder ${root}: took over the .trial claim of a trial that is no longer running (${describeOwner(owner)})`;
}
