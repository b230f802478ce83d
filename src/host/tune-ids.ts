/**
 * The names of the tune feature that VS Code needs at activation (package.json contributes them):
 * the feature itself loads on first use (tune-feature.ts).
 */
export const TUNE_VIEW_TYPE = 'llmBench.tuneResult';
export const TUNE_LIVE_VIEW_TYPE = 'llmBench.tuneLive';
export const TUNE_COMMANDS = { tune: 'llmBench.tune', cancel: 'llmBench.cancelTune', show: 'llmBench.showTune' } as const;
