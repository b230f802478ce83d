// Builds every bundle the package ships, found by convention so that adding an entry needs no edit here:
//   src/host/extension.ts      -> dist/extension.js        (VS Code extension host, CommonJS)
//   src/host/tune-feature.ts   -> dist/tune-feature.js     (Tune Server Flags, loaded on first use)
//   src/host/views-feature.ts  -> dist/views-feature.js    (result editor, compare, report, imports: on first use)
//   src/cli/main.ts            -> dist/cli.js              (the `llmbench` command line)
//   src/load/worker.ts         -> dist/engine-worker.js    (the benchmark engine in a worker thread)
//   src/load/executor-worker.ts -> dist/executor-worker.js (one executor of a run with --workers N)
//   src/sim/worker.ts          -> dist/sim-worker.js       (the simulator in a worker thread)
//   webview/<name>/main.ts     -> dist/webview/<name>.js   (browser bundles, one per view)
//   test/bench/<name>.ts       -> dist/bench/<name>.js     (benchmark scripts, not packaged)
// It also writes the JSON Schemas generated from zod: media/llmbench.schema.json (result files) and
// media/llmbench-config.schema.json (run config files), media/llmtune-config.schema.json (tune
// config files) and media/llmtune.schema.json (tune files).
// `--watch` rebuilds on change; `--production` minifies and drops source maps.
import * as esbuild from 'esbuild';
import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';

const production = process.argv.includes('--production');
const watch = process.argv.includes('--watch');

const common = {
  bundle: true,
  minify: production,
  sourcemap: !production,
  logLevel: 'warning',
  legalComments: 'none',
};

const nodeTargets = [
  { in: 'src/host/extension.ts', out: 'extension' },
  { in: 'src/host/tune-feature.ts', out: 'tune-feature' },
  { in: 'src/host/views-feature.ts', out: 'views-feature' },
  { in: 'src/cli/main.ts', out: 'cli' },
  { in: 'src/load/worker.ts', out: 'engine-worker' },
  { in: 'src/load/executor-worker.ts', out: 'executor-worker' },
  { in: 'src/sim/worker.ts', out: 'sim-worker' },
].filter((entry) => existsSync(entry.in));

const listEntries = (dir, pick) =>
  existsSync(dir) ? readdirSync(dir, { withFileTypes: true }).flatMap((d) => pick(d) ?? []) : [];

const webviewTargets = listEntries('webview', (d) =>
  d.isDirectory() && existsSync(join('webview', d.name, 'main.ts'))
    ? { in: join('webview', d.name, 'main.ts'), out: d.name }
    : undefined,
);
const benchTargets = listEntries('test/bench', (d) =>
  d.isFile() && d.name.endsWith('.ts') ? { in: join('test/bench', d.name), out: d.name.slice(0, -3) } : undefined,
);

const builds = [
  {
    ...common,
    entryPoints: nodeTargets,
    outdir: 'dist',
    platform: 'node',
    target: 'node20',
    format: 'cjs',
    external: ['vscode'],
  },
  {
    ...common,
    entryPoints: webviewTargets,
    outdir: 'dist/webview',
    platform: 'browser',
    target: 'es2022',
    format: 'iife',
  },
  {
    ...common,
    entryPoints: benchTargets,
    outdir: 'dist/bench',
    platform: 'node',
    target: 'node20',
    format: 'cjs',
    // playwright-core finds its own files relative to itself: it is loaded from node_modules, not bundled.
    external: ['vscode', 'playwright-core'],
  },
].filter((b) => b.entryPoints.length > 0);

async function writeJsonSchemas() {
  const bundle = await esbuild.build({
    entryPoints: ['src/format/json-schema.ts'],
    bundle: true,
    write: false,
    platform: 'node',
    format: 'cjs',
    logLevel: 'warning',
  });
  const module = { exports: {} };
  new Function('module', 'exports', 'require', bundle.outputFiles[0].text)(module, module.exports, createRequire(import.meta.url));
  const write = (file, schema) => writeFileSync(file, JSON.stringify(schema, null, 2) + '\n');
  write('media/llmbench.schema.json', module.exports.resultJsonSchema());
  write('media/llmbench-config.schema.json', module.exports.runConfigJsonSchema());
  write('media/llmtune-config.schema.json', module.exports.tuneConfigJsonSchema());
  write('media/llmtune.schema.json', module.exports.tuneFileJsonSchema());
}

await writeJsonSchemas();
if (watch) {
  for (const options of builds) await (await esbuild.context(options)).watch();
} else {
  await Promise.all(builds.map((options) => esbuild.build(options)));
}
