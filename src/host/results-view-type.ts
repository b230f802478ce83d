/** The `*.llmbench.json` custom editor's view type (package.json contributes.customEditors). */
export const RESULT_VIEW_TYPE = 'llmBench.result';
