/**
 * `llmbench report --lang zh-cn|en` (issue 27): the real command line writes the HTML and Markdown
 * reports of real result files in Simplified Chinese or English. The words change; the figures, the
 * names and the command's own console output (English, like the peer tools') do not.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { concurrencySweep } from '../helpers/result-documents';
import { runWithServerMetrics } from '../helpers/server-samples';
import { repoRoot } from '../vscode/harness/tools';

function withRuns(body: (dir: string, files: string[]) => void): void {
  const dir = mkdtempSync(join(tmpdir(), 'llmbench-report-lang-'));
  try {
    const files = [
      ['vllm.llmbench.json', { ...concurrencySweep(20), labels: { engine: 'vllm', gpu: 'L20' } }],
      ['sglang.llmbench.json', { ...runWithServerMetrics(), labels: { engine: 'sglang', gpu: 'L20' } }],
    ].map(([name, doc]) => {
      const path = join(dir, name as string);
      writeFileSync(path, JSON.stringify(doc));
      return path;
    });
    body(dir, files);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function report(files: string[], out: string, ...flags: string[]) {
  const result = spawnSync(process.execPath, [join(repoRoot, 'dist', 'cli.js'), 'report', ...files, '--out', out, '--group-by', 'engine', ...flags], { encoding: 'utf8', timeout: 60_000 });
  return { ...result, text: result.status === 0 || result.status === 1 ? readFileSync(out, 'utf8') : '' };
}

/** Every number in the report's table cells, cell by cell (sorted within a cell: "0 of 20" reads "20 个中 0 个"): what must not change with the language. */
const cellFigures = (html: string): string[] => [...html.matchAll(/<td[^>]*>([\s\S]*?)<\/td>/g)].flatMap((cell) => (cell[1]!.replace(/<[^>]+>/g, ' ').match(/\d+(?:[.,]\d+)*/g) ?? []).sort());
/** Each table row's numbers (sorted within the row: "0 of 20" reads "20 个中 0 个"). */
const markdownFigures = (md: string): string[] => md.split('\n').filter((line) => line.startsWith('|')).map((line) => (line.split('|').slice(2).join('|').match(/\d+(?:[.,]\d+)*/g) ?? []).sort().join(' ')).filter(Boolean);

test('llmbench report --lang zh-cn writes an HTML report with Chinese headings and the same figures as --lang en', () => {
  withRuns((dir, files) => {
    const english = report(files, join(dir, 'en.html'), '--lang', 'en');
    const chinese = report(files, join(dir, 'zh.html'), '--lang', 'zh-cn');
    assert.equal(chinese.status, 0, chinese.stderr);
    assert.match(chinese.text, /<html lang="zh-cn">/);
    const headings = [...chinese.text.matchAll(/<h2>([^<]*)<\/h2>/g)].map((m) => m[1]);
    assert.deepEqual(headings, ['运行', '排名', '拐点', '曲线', '各步']);
    assert.deepEqual([...english.text.matchAll(/<h2>([^<]*)<\/h2>/g)].map((m) => m[1]), ['Runs', 'Ranking', 'Knees', 'Curves', 'Steps']);
    // Table heads, chart titles and axes in Chinese, the metric abbreviations kept beside them.
    assert.match(chinese.text, /首 token 延迟 \(TTFT/);
    assert.match(chinese.text, /class="chart-title">请求延迟 \(p90\)</);
    assert.ok(cellFigures(english.text).length > 40, 'the English report has no figures to compare');
    assert.deepEqual(cellFigures(chinese.text), cellFigures(english.text));
    // The run and step names are data: the same in both.
    for (const name of ['concurrency@16', 'concurrency@8']) assert.ok(chinese.text.includes(name), name);
    // The command's own output stays English.
    assert.match(chinese.stdout, /^Wrote html report of 2 run\(s\) to /);
  });
});

test('llmbench report --lang zh-cn --format md: Chinese table heads (用时, 并发数, 延迟), the same figures as English', () => {
  withRuns((dir, files) => {
    const english = report(files, join(dir, 'en.md'), '--format', 'md');
    const chinese = report(files, join(dir, 'zh.md'), '--format', 'md', '--lang', 'zh-cn');
    assert.equal(chinese.status, 0, chinese.stderr);
    assert.match(chinese.text, /^# LLM Bench：2 次运行对比$/m);
    assert.match(chinese.text, /^\| 并发数 +\|/m);
    assert.match(chinese.text, /^\| 用时 +\|/m);
    assert.match(chinese.text, /^\| 平均延迟 +\|/m);
    assert.match(chinese.text, /^\| 排名 +\|/m);
    assert.ok(markdownFigures(english.text).length > 10);
    assert.deepEqual(markdownFigures(chinese.text), markdownFigures(english.text));
    // English stays the default.
    assert.match(english.text, /^\| Time taken +\|/m);
  });
});

test('an unknown --lang is a clear error naming the choices, and writes nothing', () => {
  withRuns((dir, files) => {
    const out = join(dir, 'fr.html');
    const result = spawnSync(process.execPath, [join(repoRoot, 'dist', 'cli.js'), 'report', ...files, '--out', out, '--lang', 'fr'], { encoding: 'utf8', timeout: 60_000 });
    assert.equal(result.status, 2, result.stderr);
    assert.match(result.stderr, /--lang: 'fr' is not one of the choices; choose en or zh-cn/);
    assert.throws(() => readFileSync(out));
  });
});

test('a Markdown report exported in zh-cn imports back (llmbench import): the concurrency table gives the same figures and request counts as the English one', () => {
  withRuns((dir, files) => {
    const imported = (lang: string) => {
      const md = join(dir, `${lang}.md`);
      assert.equal(report([files[0]!], md, '--lang', lang, '--format', 'md').status, 0);
      const out = join(dir, `imported-${lang}`);
      const run = spawnSync(process.execPath, [join(repoRoot, 'dist', 'cli.js'), 'import', md, '--out', out], { encoding: 'utf8', timeout: 60_000 });
      assert.equal(run.status, 0, run.stderr);
      // The concurrency table (并发数 | 1 | 4 ...) is the run whose steps hold request counts.
      return readdirSync(out)
        .sort()
        .map((name) => JSON.parse(readFileSync(join(out, name), 'utf8')) as { steps: { name: string; summary: Record<string, unknown> }[] })
        .map((doc) => doc.steps.map((step): Record<string, unknown> => ({ name: step.name, ...step.summary, warnings: undefined })));
    };
    const english = imported('en');
    const chinese = imported('zh-cn');
    assert.ok(english.length >= 2, 'the English report imported as fewer runs than its tables');
    assert.deepEqual(chinese, english);
    const counted = chinese.flat().filter((step) => (step['requests'] as { total: number }).total === 20);
    assert.ok(counted.length >= 3, `request counts (20 个中 0 个) not read: ${JSON.stringify(chinese.flat().map((s) => s['requests']))}`);
  });
});
