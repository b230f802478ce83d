/**
 * The exported HTML report in a real browser (headless Debian Chromium) with every network request
 * refused: it must render its tables and charts from the file alone, asking for nothing; and it
 * must fit the windows people read it in.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { launchChromium } from '../vscode/harness/browser';
import { renderHtmlReport } from '../../src/report/html';
import { buildReportModel, runName } from '../../src/views/report';
import { concurrencySweep } from '../helpers/result-documents';

const repoRoot = process.env['LLMBENCH_ROOT'] ?? process.cwd();
const fixtures = resolve(repoRoot, '../shared/fixtures');
// In CI the fixtures must be there; on a clone without ../shared this test says so and skips.
const skip = !existsSync(fixtures) && process.env['CI'] !== 'true' ? `no ${fixtures} (a clone without ../shared): skipped` : false;

test('the HTML report of imported GuideLLM, vLLM and AIPerf runs renders offline in Chromium', { timeout: 60_000, skip }, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'llmbench-html-'));
  const out = join(dir, 'report.html');
  // The report command in its own process, from other tools' files (the real fixtures when present).
  const inputs = [
    join(fixtures, 'guidellm/guidellm_repo_benchmarks_stripped_pre0.3.json'),
    join(fixtures, 'vllm/llmd_exp7_h100_vllm-2replicas_benchmark_2025-05-13_04-55-27.json'),
    join(fixtures, 'aiperf/aiperf-0.1.1_run1_profile_export_aiperf.json'),
  ];
  const modulePath = join(__dirname, '../../src/cli/commands/report.js');
  const script = `require(${JSON.stringify(modulePath)}).run(${JSON.stringify([...inputs, '--out', out, '--group-by', 'source', '--slo', 'ttft=500', '--axis', 'rate', '--stat', 'mean'])}).then((c) => { process.exitCode = c; })`;
  const made = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8', timeout: 30_000 });
  assert.equal(made.status, 0, made.stderr);

  const browser = await launchChromium();
  try {
    const context = await browser.newContext({ offline: true, viewport: { width: 1280, height: 800 } });
    const page = await context.newPage();
    const requests: string[] = [];
    page.on('request', (request) => {
      if (request.url() !== pathToFileURL(out).href) requests.push(request.url());
    });
    await context.route('**/*', (route) => (route.request().url() === pathToFileURL(out).href ? route.continue() : route.abort()));
    const blocked: string[] = [];
    page.on('console', (message) => {
      if (/Content Security Policy|Refused to/i.test(message.text())) blocked.push(message.text());
    });
    await page.goto(pathToFileURL(out).href);
    const seen = await page.evaluate(() => ({
      charts: [...document.querySelectorAll('svg[data-chart]')].map((svg) => {
        const box = svg.getBoundingClientRect();
        return { id: svg.getAttribute('data-chart'), width: box.width, height: box.height, curves: svg.querySelectorAll('g.curve path').length };
      }),
      rankingRows: document.querySelectorAll('table.ranking tbody tr').length,
      runRows: [...document.querySelectorAll('table.runs tbody tr td:first-child')].map((td) => td.textContent),
      stepTables: document.querySelectorAll('table.steps').length,
      offAxis: document.querySelector('.off-axis')?.textContent ?? null,
      firstRank: document.querySelector('table.ranking tbody tr td:nth-child(2)')?.textContent,
      legendDisplay: getComputedStyle(document.querySelector('.legend') as Element).display,
      // Wide tables scroll inside their own box; the page itself never runs off to the right.
      pageWidth: document.documentElement.scrollWidth,
      viewWidth: document.documentElement.clientWidth,
    }));
    assert.ok(seen.pageWidth <= seen.viewWidth, `the page is ${seen.pageWidth} px wide in a ${seen.viewWidth} px window`);
    assert.deepEqual(blocked, [], 'the CSP blocked nothing');
    assert.equal(seen.legendDisplay, 'flex', "the page's style sheet applies under its CSP");
    assert.deepEqual(requests, [], 'the report asked for nothing from the network');
    assert.equal(seen.charts.length, 8);
    for (const chart of seen.charts) {
      assert.ok(chart.width > 300 && chart.height > 200, `${chart.id} is drawn at its size`);
    }
    const byId = Object.fromEntries(seen.charts.map((c) => [c.id, c.curves]));
    assert.equal(byId['ttftMs'], 3, 'each run has a TTFT curve');
    assert.equal(byId['tpotMs'], 3);
    assert.equal(byId['itlMs'], 2, 'GuideLLM has no per-chunk ITL');
    assert.equal(seen.offAxis, null, 'on the rate axis every run has points');
    assert.equal(seen.rankingRows, 3);
    assert.equal(seen.stepTables, 3);
    assert.equal(seen.runRows.length, 3);
    assert.match(String(seen.firstRank), /aiperf|llmd|guidellm/);
    assert.ok(readFileSync(out, 'utf8').length > 5000);
  } finally {
    await browser.close();
  }
});

test('the HTML report fits a 1000 and a 1280 px window: no table scrolls sideways, text columns left-aligned, each chart half the page', { timeout: 60_000 }, async () => {
  // Its Runs and Ranking tables were cut at both widths, with Run, Model and Labels right-aligned,
  // and every chart was 640 px wide whatever the page.
  const runs = ['vllm', 'sglang', 'trt-llm', 'llama.cpp'].map((engine, i) => {
    const doc = concurrencySweep(20, 1 + i / 4);
    doc.labels = { engine, gpu: 'NVIDIA H100 80GB HBM3 x8', model: 'Qwen/Qwen2.5-72B-Instruct-AWQ', quantization: 'awq-int4' };
    return { name: runName(doc, `/results/${engine}-h100-tp8-concurrency-sweep.llmbench.json`), doc, source: `/results/${engine}.llmbench.json` };
  });
  const html = renderHtmlReport(buildReportModel(runs, { groupBy: 'engine' }), runs, 'Four engines on an H100');
  const file = join(mkdtempSync(join(tmpdir(), 'llmbench-html-')), 'report.html');
  writeFileSync(file, html);
  const browser = await launchChromium();
  try {
    for (const width of [1000, 1280]) {
      const page = await browser.newPage({ viewport: { width, height: 800 } });
      await page.goto(pathToFileURL(file).href);
      const seen = await page.evaluate(() => ({
        scrolling: [...document.querySelectorAll('.table-scroll')].filter((box) => box.scrollWidth > box.clientWidth + 1).map((box) => `${box.querySelector('table')?.className}: ${box.scrollWidth} in ${box.clientWidth} px`),
        textAlign: [...document.querySelectorAll('table.runs tbody td, table.ranking tbody td:nth-child(2)')].map((td) => getComputedStyle(td).textAlign),
        numberAlign: [...document.querySelectorAll('table.ranking tbody td.num')].map((td) => getComputedStyle(td).textAlign),
        body: document.body.clientWidth,
        charts: [...document.querySelectorAll('.charts svg')].map((svg) => svg.getBoundingClientRect().width),
      }));
      assert.deepEqual(seen.scrolling, [], `at ${width} px`);
      assert.ok(seen.textAlign.length > 0 && seen.textAlign.every((a) => a === 'left'), `text columns at ${width} px: ${seen.textAlign.join(' ')}`);
      assert.ok(seen.numberAlign.length > 0 && seen.numberAlign.every((a) => a === 'right'));
      for (const chart of seen.charts) assert.ok(chart > seen.body * 0.4 && chart < seen.body * 0.5, `a chart ${chart} px wide on a ${seen.body} px page`);
      await page.close();
    }
  } finally {
    await browser.close();
  }
});
