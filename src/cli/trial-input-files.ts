/**
 * The files a trial reads before any run — the system prompt, the task file, the stub model's script,
 * the patch file, the model recording of `--model-replay` — each refused in one clear line (UsageError) when it cannot be read or makes no sense.
 */
import { stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { jsonSyntaxProblem } from '../adapters/files/report-files/json-problem.js';
import { readRegularFile } from '../adapters/files/report-files/regular-file.js';
import { errorCode, errorMessage } from '../domain/error-message.js';
import { PATCH_TEXTS, type PatchId } from '../domain/report/patches.js';
import { settingFileNames } from '../app/trial/measured-settings.js';
import { tasksFromFile } from '../app/trial/task-file.js';
import type { ModelReplay, PatchChoice, StubGateway, TrialTask } from '../app/trial/trial-plan.js';
import type { ModelFault } from '../domain/faults/model-fault.js';
import { STUB_MODEL_NAME } from '../ports/shapes/stub-script.js';
import { commaList, repeated, type FlagValues } from './argv.js';
import { FatalError, UsageError } from './errors.js';

/** `--patch auto|ID,ID` or `--patch-file FILE`. */
export async function readPatch(
  value: string | undefined,
  file: string | undefined,
  cwd: string,
): Promise<PatchChoice | undefined> {
  if (value !== undefined && file !== undefined) throw new UsageError('give --patch or --patch-file, not both');
  if (file !== undefined) {
    const path = resolve(cwd, file);
    let text: string;
    try {
      text = await readRegularFile(path);
    } catch (error) {
      throw new UsageError(unreadable('patch file', path, error));
    }
    if (text.trim() === '') throw new UsageError(`the patch file ${path} is empty`);
    return { kind: 'texts', label: 'patch file', texts: [text.trim()] };
  }
  if (value === undefined) return undefined;
  if (value.trim().toLowerCase() === 'auto') return { kind: 'auto' };
  const ids: PatchId[] = [];
  for (const item of commaList(value, 'patch')) {
    const id = item.toUpperCase() as PatchId;
    if (!PATCH_TEXTS.has(id))
      throw new UsageError(`flag --patch takes auto or patch ids (${[...PATCH_TEXTS.keys()].join(', ')}), got "${item}"`);
    if (ids.includes(id)) throw new UsageError(`flag --patch names ${id} twice`);
    ids.push(id);
  }
  return { kind: 'texts', label: `${ids.join(' + ')} patch`, texts: ids.map((id) => PATCH_TEXTS.get(id)!) };
}

/**
 * Why an input file cannot be read, in one line. A FIFO or a device is refused by its kind (it is opened
 * non-blocking, never waited on or read without end): a FIFO nobody writes to cannot hang the trial.
 */
function unreadable(what: string, path: string, error: unknown): string {
  const code = errorCode(error);
  if (code === 'ENOENT') return `${what} not found: ${path}`;
  if (code === undefined && error instanceof Error) return `${what} ${path} is ${error.message}`;
  return `${what} cannot be read: ${path}`;
}

/** `--system-prompt FILE|TEXT`: the text, and the file (as given) when it was read from one. */
export interface SystemPromptInput {
  text: string;
  file?: string;
}

export async function readSystemPrompt(value: string | undefined, cwd: string): Promise<SystemPromptInput | undefined> {
  if (value === undefined) return undefined;
  const path = resolve(cwd, value);
  const info = await stat(path).catch(() => null);
  if (info === null) return { text: value };
  if (!info.isFile()) throw new UsageError(`flag --system-prompt names ${path}, which is not a file`);
  let text: string;
  try {
    text = await readRegularFile(path);
  } catch (error) {
    throw new UsageError(unreadable('system prompt file', path, error));
  }
  if (text.trim() === '') throw new UsageError(`the system prompt file ${path} is empty`);
  return { text, file: value };
}

/**
 * TrialPlan.settingFiles: the file each task's texts and the patch texts came from, as given. A task's
 * system prompt came from `--system-prompt FILE` when it is that file's text, else from the task file
 * (its own `system_prompt`); one given as text on the command line names no file.
 */
export function inputSettingFiles(
  tasks: readonly TrialTask[],
  prompt: SystemPromptInput | undefined,
  taskFile: string | undefined,
  patchFile: string | undefined,
): Record<string, string> {
  const files: Record<string, string> = {};
  for (const task of tasks) {
    if (taskFile !== undefined) {
      files[settingFileNames.task(task.id)] = taskFile;
      if (task.followUps.length > 0) files[settingFileNames.followUps(task.id)] = taskFile;
    }
    if (task.systemPrompt === undefined) continue;
    const source = prompt !== undefined && task.systemPrompt === prompt.text ? prompt.file : taskFile;
    if (source !== undefined) files[settingFileNames.systemPrompt(task.id)] = source;
  }
  if (patchFile !== undefined) files[settingFileNames.patchTexts] = patchFile;
  return files;
}

export async function readTasks(
  values: FlagValues,
  get: (flag: string) => string | undefined,
  systemPrompt: string | undefined,
  maxSteps: number,
  cwd: string,
  needTask: boolean,
  inlineTasks: unknown,
): Promise<TrialTask[]> {
  const file = get('task-file');
  const task = get('task');
  if (file === undefined) {
    if (task === undefined && needTask)
      throw new UsageError("--model needs --task TEXT (the user's first message) or --task-file FILE");
    return [{ id: 'default', systemPrompt, task: task ?? '', followUps: repeated(values, 'follow-up'), maxSteps }];
  }
  if (task !== undefined || Object.hasOwn(values, 'follow-up'))
    throw new UsageError('give --task/--follow-up or --task-file, not both');
  if (inlineTasks !== undefined) {
    try {
      return tasksFromFile(inlineTasks, { systemPrompt, maxSteps });
    } catch (error) {
      throw new UsageError(`--task-file (the tasks of ${file}): ${errorMessage(error)}`);
    }
  }
  const path = resolve(cwd, file);
  let text: string;
  try {
    text = await readRegularFile(path);
  } catch (error) {
    throw new UsageError(unreadable('task file', path, error));
  }
  let parsed: unknown;
  const yaml = /\.ya?ml$/i.test(path);
  try {
    parsed = yaml ? (await import('yaml')).parse(text) : JSON.parse(text);
  } catch (error) {
    // Where it goes wrong, never what it says: V8's JSON message quotes the file's first characters.
    throw new UsageError(
      `task file ${path} is not valid ${yaml ? 'YAML' : 'JSON'}: ${yaml ? errorMessage(error).split('\n')[0] : jsonSyntaxProblem(error, text)}`,
    );
  }
  try {
    return tasksFromFile(parsed, { systemPrompt, maxSteps });
  } catch (error) {
    throw new UsageError(`task file ${path}: ${errorMessage(error)}`);
  }
}

/** `--stub-model FILE`: the script, checked before any run (one line naming the file and the key). */
export async function readStubGateway(file: string, cwd: string, inlineScript: unknown): Promise<StubGateway> {
  if (inlineScript !== undefined) {
    const { stubScriptOf } = await import('../adapters/files/stub-model-file.js');
    try {
      return { kind: 'stub', script: stubScriptOf(inlineScript), file, model: STUB_MODEL_NAME };
    } catch (error) {
      throw new UsageError(`--stub-model (the script in ${file}): ${errorMessage(error)}`);
    }
  }
  try {
    const { readStubScript } = await import('../adapters/files/stub-model-file.js');
    return { kind: 'stub', script: await readStubScript(resolve(cwd, file)), file, model: STUB_MODEL_NAME };
  } catch (error) {
    throw new UsageError(errorMessage(error));
  }
}

/**
 * `--model-replay FILE`: the recording's model exchanges, read before anything starts. A recording that
 * cannot answer the model (unreadable, no model requests, made under another --model-fault) is one line.
 */
export async function readModelReplay(
  file: string,
  cwd: string,
  allowRedacted: boolean,
  modelFault: ModelFault | undefined,
): Promise<ModelReplay> {
  const { readCassette } = await import('../adapters/cassette/cassette-reader.js');
  const { recordedModelExchanges, modelFaultMismatch } = await import('../app/trial/replay-chat-model.js');
  const path = resolve(cwd, file);
  try {
    const cassette = await readCassette(path, { allowRedacted });
    const exchanges = recordedModelExchanges(cassette.lines);
    if (exchanges.length === 0)
      throw new Error(
        `recording ${path}: it holds no model requests (record a trial run with the built-in loop or --stub-model, or forward mode)`,
      );
    const mismatch = modelFaultMismatch(cassette.header.modelFault, modelFault);
    if (mismatch !== null) throw new Error(`recording ${path} ${mismatch}`);
    return { file, exchanges };
  } catch (error) {
    throw new FatalError(`--model-replay: ${errorMessage(error)}`);
  }
}
