export { TrialFolder, type TrialRunFolder } from './trial-folder.js';
