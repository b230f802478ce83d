/**
 * The names of the result editor, compare, report and import commands that VS Code needs at
 * activation (package.json contributes them): their code (views-feature.ts) loads on first use.
 */
import type { FeatureNames } from './feature-loader';
import { RESULT_VIEW_TYPE } from './results-view-type';

export const RESULT_COMMANDS = {
  copyMarkdown: 'llmBench.copyResultTableMarkdown',
  saveMarkdown: 'llmBench.saveResultTableMarkdown',
  exportChart: 'llmBench.exportResultChart',
} as const;

export const COMPARE_SCHEME = 'llmbench-compare';
export const COMPARE_VIEW_TYPE = 'llmBench.compare';
export const COMPARE_COMMANDS = {
  compareWith: 'llmBench.compareWith',
  compareSelected: 'llmBench.compareSelected',
} as const;

export const REPORT_VIEW_TYPE = 'llmBench.report';
export const REPORT_COMMANDS = {
  open: 'llmBench.openReport',
  editLabels: 'llmBench.editLabels',
} as const;

export const IMPORT_COMMANDS = {
  importResults: 'llmBench.importResults',
  importFromClipboard: 'llmBench.importFromClipboard',
} as const;

/** Everything views-feature.ts registers. */
export const VIEWS_FEATURE: FeatureNames = {
  commands: [...Object.values(RESULT_COMMANDS), ...Object.values(COMPARE_COMMANDS), ...Object.values(REPORT_COMMANDS), ...Object.values(IMPORT_COMMANDS)],
  customEditors: [{ viewType: RESULT_VIEW_TYPE, options: { supportsMultipleEditorsPerDocument: true, webviewOptions: { enableFindWidget: true } } }],
  panels: [COMPARE_VIEW_TYPE, REPORT_VIEW_TYPE],
};
