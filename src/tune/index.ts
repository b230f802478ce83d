/**
 * The tuner's public API, for the command line (`llmbench tune`) and the extension host: launch
 * a server per trial with flags chosen by the search, benchmark it, score it, stop it, and write
 * the tune file (`*.llmtune.json`) after every trial. Nothing here imports `vscode`.
 */
import type { TuneConfig, TuneEvent, TuneFile } from '../format/tune';

export interface TuneOptions {
  /** Parsed with TuneConfigSchema (see parseTuneConfigText for a file's text). */
  config: TuneConfig;
  /** The tune config file's folder: relative paths in the config (cwd, a benchmark file) resolve here. */
  configDir: string;
  /** The tune file, `NAME.llmtune.json`; trial result files and server logs go beside it. */
  outPath: string;
  /** Continue the tune file at outPath: its finished trials are kept, not run again. */
  resume: boolean;
  /** Cancels the tune: the running server is stopped, the file ends `cancelled`. */
  signal?: AbortSignal;
  /** The argv that runs this package's CLI, put in place of a command's first word `llmbench`, e.g. [process.execPath, '<pkg>/dist/cli.js']. */
  llmbenchCommand: readonly string[];
  /** The environment servers inherit (server.env is added to it); process.env by default. */
  env?: Readonly<Record<string, string | undefined>>;
  /** Asked once, with the exact argv, before the first launch; false ends the tune before anything starts. */
  confirmFirstLaunch?: (argv: string[]) => Promise<boolean>;
  onEvent?: (event: TuneEvent) => void;
}

export async function runTune(options: TuneOptions): Promise<TuneFile> {
  throw new Error(`runTune is not implemented yet (${options.outPath})`);
}
