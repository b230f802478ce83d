/**
 * What users install: the VSIX made by `vsce package` with no flags (no warnings, nothing from the
 * sources, tests or source maps, a small extension bundle), and the npm package of the command
 * line, installed from its tarball into an empty folder and run from there with `npx llmbench`.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { parseResultDocument } from '../../src/format/result';
import { listZipEntries } from '../helpers/zip';
import { repoRoot } from '../vscode/harness/tools';
import { packageExtensionWithOutput } from '../vscode/harness/vsix';

/**
 * The goal of issue 9: the host bundle stays small because it never pulls in zod's locales (they
 * alone would add well over 100 KiB), and what activation does not need loads on first use from a
 * bundle of its own: the tuner (dist/tune-feature.js) and the result editor, compare, report and
 * imports with their view models (dist/views-feature.js).
 */
const EXTENSION_BUNDLE_LIMIT = 300 * 1024;

function run(command: string, args: string[], cwd: string): { stdout: string; stderr: string } {
  // An inner npm must not inherit the outer `npm test`'s own variables (user agent, prefix, ...).
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^npm_/i.test(name)));
  const result = spawnSync(command, args, { cwd, env, encoding: 'utf8', timeout: 240_000 });
  assert.equal(result.status, 0, `\`${command} ${args.join(' ')}\` in ${cwd} exited ${result.status}:\n${result.stdout}\n${result.stderr}`);
  return { stdout: result.stdout, stderr: result.stderr };
}

test('vsce package with no flags: no warning, only bundles, media and the manifest files, a small host bundle', () => {
  const { vsix, output } = packageExtensionWithOutput();
  try {
    assert.doesNotMatch(output, /WARNING|warn(ing)?:/i, `vsce printed a warning:\n${output}`);
    const entries = listZipEntries(vsix);
    const files = entries.map((e) => e.name).filter((name) => name.startsWith('extension/')).map((name) => name.slice('extension/'.length));
    const unexpected = files.filter((f) => /^(src|test|webview|scripts|tools|docs|node_modules)\//.test(f) || f.endsWith('.map') || f.endsWith('.ts'));
    assert.deepEqual(unexpected, [], 'sources, tests or source maps in the VSIX');
    for (const wanted of ['package.json', 'readme.md', 'changelog.md', 'LICENSE.txt', 'media/icon.png', 'dist/extension.js', 'dist/tune-feature.js', 'dist/views-feature.js', 'dist/engine-worker.js', 'dist/executor-worker.js', 'dist/sim-worker.js', 'dist/webview/result.js', 'dist/webview/tune.js', 'dist/webview/tune-live.js', 'media/llmbench-config.schema.json', 'package.nls.json', 'package.nls.zh-cn.json', 'l10n/bundle.l10n.json', 'l10n/bundle.l10n.zh-cn.json']) {
      assert.ok(files.includes(wanted), `${wanted} missing from the VSIX (has: ${files.join(', ')})`);
    }
    // Tune Server Flags resolves `llmbench` in a tune's server command to the extension's own command line.
    assert.ok(files.includes('dist/cli.js'), 'the command line is in the VSIX, for the servers a tune launches');
    const extensionBundle = entries.find((e) => e.name === 'extension/dist/extension.js');
    assert.ok(extensionBundle && extensionBundle.uncompressedSize <= EXTENSION_BUNDLE_LIMIT, `dist/extension.js is ${extensionBundle?.uncompressedSize} bytes, above ${EXTENSION_BUNDLE_LIMIT}`);
    // zod's locales hold messages such as this Spanish one; the namespace import leaves them out.
    assert.doesNotMatch(readFileSync(join(repoRoot, 'dist', 'extension.js'), 'utf8'), /Entrada inválida/, 'zod locales are bundled into the extension');
    const icon = readFileSync(join(repoRoot, 'media', 'icon.png'));
    assert.deepEqual([icon.readUInt32BE(16), icon.readUInt32BE(20)], [128, 128], 'the Marketplace icon is a 128x128 PNG');
  } finally {
    rmSync(dirname(vsix), { recursive: true, force: true });
  }
});

test('npm pack holds the CLI, its workers and the JSON Schemas only, and the tarball runs from an empty folder', () => {
  const packDir = mkdtempSync(join(tmpdir(), 'llmbench-pack-'));
  const userDir = mkdtempSync(join(tmpdir(), 'llmbench-user-'));
  try {
    const packed = JSON.parse(run('npm', ['pack', '--json', '--pack-destination', packDir], repoRoot).stdout) as { filename: string; files: { path: string }[] }[];
    const files = packed[0]!.files.map((f) => f.path).sort();
    assert.deepEqual(files, [
      'LICENSE',
      'README.md',
      // npm packs every README* whatever `files` says: the Chinese one rides along.
      'README.zh-cn.md',
      'dist/cli.js',
      'dist/engine-worker.js',
      'dist/executor-worker.js',
      'dist/sim-worker.js',
      'media/llmbench-config.schema.json',
      'media/llmbench.schema.json',
      'media/llmtune-config.schema.json',
      'media/llmtune.schema.json',
      'package.json',
    ]);
    // The launchers' tests validate manifests with kubernetes-models (a dev dependency): none of it in the command line.
    assert.doesNotMatch(readFileSync(join(repoRoot, 'dist', 'cli.js'), 'utf8'), /IoK8sApi|@kubernetes-models|js-yaml/, 'a test-only package is bundled into the command line');
    const tarball = join(packDir, readdirSync(packDir).find((f) => f.endsWith('.tgz'))!);
    writeFileSync(join(userDir, 'package.json'), JSON.stringify({ name: 'a-user', private: true }));
    run('npm', ['install', '--no-audit', '--no-fund', tarball], userDir);

    run('npx', ['--no-install', 'llmbench', 'run', '--sim', 'tiny', '--requests', '4', '--output-tokens', '8', '--input-tokens', '16', '--out', 'sim.llmbench.json'], userDir);
    const result = parseResultDocument(readFileSync(join(userDir, 'sim.llmbench.json'), 'utf8'));
    assert.ok(result.ok, result.ok ? '' : result.error);
    assert.equal(result.value.status, 'complete');
    assert.equal(result.value.steps[0]!.requests.filter((r) => r.error === null).length, 4);
    // With workers the run starts executor threads from their own bundle, which the package must hold
    // (4 lanes: 2 for each worker).
    run('npx', ['--no-install', 'llmbench', 'run', '--sim', 'tiny', '--profile', 'concurrency', '--concurrency', '4', '--requests', '8', '--output-tokens', '8', '--input-tokens', '16', '--workers', '2', '--out', 'workers.llmbench.json'], userDir);
    const split = parseResultDocument(readFileSync(join(userDir, 'workers.llmbench.json'), 'utf8'));
    assert.ok(split.ok, split.ok ? '' : split.error);
    assert.equal(split.value.status, 'complete', split.value.statusReason ?? '');
    assert.deepEqual(new Set(split.value.steps[0]!.requests.map((r) => r.worker)), new Set([0, 1]), 'both workers sent requests');

    writeFileSync(join(userDir, 'vllm.json'), JSON.stringify(vllmBenchServeResult()));
    const imported = run('npx', ['--no-install', 'llmbench', 'import', 'vllm.json', '--out', 'vllm.llmbench.json'], userDir);
    assert.match(imported.stdout + imported.stderr, /vllm\.llmbench\.json/);
    const importedDoc = parseResultDocument(readFileSync(join(userDir, 'vllm.llmbench.json'), 'utf8'));
    assert.ok(importedDoc.ok, importedDoc.ok ? '' : importedDoc.error);
    assert.equal(importedDoc.value.steps[0]!.summary?.requests.completed, 10);
  } finally {
    rmSync(packDir, { recursive: true, force: true });
    rmSync(userDir, { recursive: true, force: true });
  }
});

/** A small `vllm bench serve --save-result` file, in the layout vLLM writes. */
function vllmBenchServeResult(): Record<string, unknown> {
  return {
    date: '20250101-120000',
    backend: 'openai-chat',
    model_id: 'Qwen/Qwen2-7B-Instruct',
    tokenizer_id: 'Qwen/Qwen2-7B-Instruct',
    num_prompts: 10,
    request_rate: 'inf',
    burstiness: 1.0,
    max_concurrency: 4,
    duration: 5.0,
    completed: 10,
    total_input_tokens: 5120,
    total_output_tokens: 1280,
    request_throughput: 2.0,
    output_throughput: 256.0,
    total_token_throughput: 1280.0,
    mean_ttft_ms: 50.0,
    median_ttft_ms: 48.0,
    std_ttft_ms: 5.0,
    p99_ttft_ms: 70.0,
    mean_tpot_ms: 12.0,
    median_tpot_ms: 12.0,
    std_tpot_ms: 1.0,
    p99_tpot_ms: 15.0,
    mean_itl_ms: 12.0,
    median_itl_ms: 11.5,
    std_itl_ms: 2.0,
    p99_itl_ms: 20.0,
  };
}
