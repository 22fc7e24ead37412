/**
 * The output folder of a trial: `runs/<id>/` per run (its `report.json` written by the same file report
 * sink as `proxy --report-file`, its `run.json`, the agent program's logs) and `summary.json`. Every JSON
 * file is written atomically through that sink (exclusive temp file, never through a planted link, rename).
 */
import { mkdir, readdir, readFile, rmdir, unlink, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import type { ReportSink } from '../../ports/report-sink.port.js';
import { FileReportSink } from '../file-report-sink.js';
import { refusePlantedLinks } from '../file-safety.js';

/** Made exclusively by the trial that takes the folder: a second trial started at the same time is refused. */
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
      throw new Error(`output folder ${root} cannot be created: ${error instanceof Error ? error.message : String(error)}`);
    }
    try {
      // O_EXCL: of two trials that found the folder free at the same moment, only one creates it.
      await writeFile(join(root, CLAIM), `${process.pid}\n`, { flag: 'wx' });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EEXIST')
        throw new Error(`output folder ${root} is taken by another trial running now (its .trial file); choose another --out`);
      throw new Error(`output folder ${root} cannot be used: ${error instanceof Error ? error.message : String(error)}`);
    }
    return new TrialFolder(root, created);
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
