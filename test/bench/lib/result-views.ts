/**
 * What the result-view benchmarks share (test/bench/render.ts in bare Chromium, test/bench/activation.ts
 * in a real VS Code): the big result file they open, and the sizes of the view bundles as packaged.
 * Not a benchmark entry of its own (esbuild builds only test/bench/*.ts).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { makeDocument } from '../../helpers/result-documents';

export const REQUESTS = 10_000;
export const STEPS = 5;
export const CHUNKS = 128;

/** A finished concurrency sweep of REQUESTS requests in STEPS steps (1 in 97 failed), as file text. */
export function bigResultText(): string {
  const levels = [1, 4, 16, 64, 256].slice(0, STEPS);
  const doc = makeDocument(
    levels.map((c) => ({
      name: `concurrency@${c}`,
      profile: { kind: 'concurrency' as const, concurrency: c },
      requests: REQUESTS / STEPS,
      ttftMs: 30 + c * 4,
      gapMs: 8 + c / 16,
      chunks: CHUNKS,
      failEvery: 97,
    })),
  );
  return JSON.stringify(doc);
}

/** Each view minified as `esbuild.mjs --production` builds it (into a scratch folder): one printable line per view. */
export function webviewBundleSizes(root: string): string[] {
  const lines: string[] = [];
  const scratch = mkdtempSync(join(tmpdir(), 'llmbench-bundle-'));
  try {
    for (const view of ['result', 'compare']) {
      const out = join(scratch, `${view}.js`);
      execFileSync(join(root, 'node_modules', '.bin', 'esbuild'), [
        join(root, 'webview', view, 'main.ts'), '--bundle', '--minify', '--platform=browser', '--target=es2022',
        '--format=iife', '--legal-comments=none', `--outfile=${out}`, '--log-level=warning',
      ]);
      const code = readFileSync(out);
      lines.push(`  ${view}.js (minified, as packaged): ${(code.length / 1024).toFixed(0)} KiB, ${(gzipSync(code).length / 1024).toFixed(0)} KiB gzipped`);
    }
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
  return lines;
}
