export { ProgramRunner, type ProgramExit, type ProgramSpec } from './program-runner.js';
