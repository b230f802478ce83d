/**
 * The live panel, the live tune panel and the tune editor in Simplified Chinese (issue 27): each
 * page opened with the zh-cn bundle as the host writes it, a run or a tune shown, and everything the
 * page draws (text, hover titles, labels) read back. What the views say is Chinese; what stays
 * English is the run's own data (model, URL, step names, flags, commands, server log lines).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { LiveState } from '../../src/format/messages/live';
import { applyRunEvent } from '../../src/host/live-state';
import { translator } from '../../src/views/l10n';
import { progressView, statusBarText } from '../../src/views/progress';
import { applyTuneEvent, runningTrialProgress } from '../../src/views/tune-live';
import { buildTuneView } from '../../src/views/tune';
import { makeStep } from '../helpers/result-documents';
import { sampleTuneFile } from '../helpers/tune-documents';
import { sweepLiveState, tuneLiveStateLaunching } from '../helpers/live-states';
import { openPage, type Page } from '../helpers/webview-page';
import { repoRoot } from '../vscode/harness/tools';

const chinese = JSON.parse(readFileSync(join(repoRoot, 'l10n', 'bundle.l10n.zh-cn.json'), 'utf8')) as Record<string, string>;
const zhCn = { type: 'language', locale: 'zh-cn', strings: chinese };
const t = translator(chinese);

/** Every text a reader meets on the page: its text nodes, and the hover titles and labels of its elements. */
function shownTexts(page: Page): string[] {
  const texts: string[] = [];
  const walker = page.document.createTreeWalker(page.document.body, 4 /* NodeFilter.SHOW_TEXT */);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    if (node.parentElement?.closest('script, .hidden')) continue;
    const text = node.textContent?.trim();
    if (text) texts.push(text);
  }
  for (const element of page.document.body.querySelectorAll('[title], [aria-label]')) {
    if (element.closest('.hidden')) continue;
    for (const name of ['title', 'aria-label']) {
      const value = element.getAttribute(name)?.trim();
      if (value) texts.push(value);
    }
  }
  return texts;
}

/**
 * English prose left on the page: two English words in a row, once the run's own data (`data`: the
 * model, URLs, step names, parameters, commands, log lines) and the names that stay English in Chinese
 * text (LLM Bench, metric abbreviations, units) are taken out.
 */
function englishLeft(page: Page, data: readonly (string | RegExp)[]): string[] {
  const keep = [/LLM Bench/g, /\b(TTFT|TPOT|ITL|QPS|SLO|KV cache|GuideLLM|AIPerf|output tok\/s|tok\/s|req\/s|requests\/s|p\d\d|ms)\b/g];
  return shownTexts(page).filter((text) => {
    let rest = text;
    for (const item of [...data, ...keep]) rest = typeof item === 'string' ? rest.split(item).join(' ') : rest.replace(item, ' ');
    return /[A-Za-z]{2,}[ ,.:;]+[A-Za-z]{2,}/.test(rest);
  });
}

function runState(): LiveState {
  const state = sweepLiveState();
  applyRunEvent(state, {
    type: 'progress',
    snapshot: { stepIndex: 1, elapsedSec: 2, completed: 12, failed: 1, inFlight: 4, plannedRequests: 30, plannedDurationSec: null, requestsPerSecond: 6, outputTokensPerSecond: 96, recentTtftMs: [], recentLatencyMs: [] },
  }, 5);
  return state;
}

const RUN_DATA = ['Qwen/Qwen2-7B-Instruct', 'http://127.0.0.1:8000/v1', 'concurrency 1,4', 'concurrency@1', 'concurrency@4', '/w/benchmarks/r.llmbench.json', 'hardware: 1x A100 <80GB>'];

test('the live panel in Chinese: headline, progress line, time left, table, footnote and chart titles; no English prose left', (context) => {
  const panel = openPage('live', { language: zhCn });
  // Closed however the test ends: a live page's clock would keep the process alive.
  context.after(() => panel.close());
  const state = runState();
  panel.send({ type: 'state', state });
  const text = (selector: string) => panel.document.querySelector(selector)?.textContent ?? '';
  assert.equal(text('#headline'), '正在运行第 2 / 2 步：concurrency@4');
  assert.match(text('#step-detail'), /^已完成 12 \/ 30 个请求 · 1 个失败 · 在途 4|^已完成 12 \/ 30 个请求 · 1 个失败/);
  assert.match(text('#step-detail'), /本步约剩 \d+ s/);
  assert.equal(text('#result-path'), '正在保存到 /w/benchmarks/r.llmbench.json');
  const rows = [...panel.document.querySelectorAll('#steps-table tbody tr')].map((tr) => tr.querySelector('td')?.textContent);
  assert.deepEqual(rows, ['concurrency@1', 'concurrency@4（运行中）']);
  const headers = [...panel.document.querySelectorAll('#steps-table th')].map((th) => th.textContent ?? '');
  assert.ok(headers.includes('首 token 延迟 (TTFT)均值，ms'), headers.join(' | '));
  const titles = [...panel.document.querySelectorAll('[data-chart] h3')].map((h) => h.textContent);
  assert.deepEqual(titles, ['吞吐量随时间变化（5 s 滑动平均）', '在途请求数与失败数', '各步的首 token 延迟 (TTFT)', '各步的每个输出 token 用时 (TPOT)', '各步的延迟']);
  assert.deepEqual(englishLeft(panel, RUN_DATA), []);
  // Chinese runs its sentences on: no space after a full stop.
  const footnote = [...panel.document.querySelectorAll('p.muted')].map((p) => p.textContent ?? '').find((p) => p.startsWith('成功请求的均值'));
  assert.match(footnote ?? '', /。\* 表示运行中的步/);
  assert.deepEqual(shownTexts(panel).filter((text) => /。 /.test(text)), []);

  applyRunEvent(state, { type: 'step-end', stepIndex: 1, name: 'concurrency@4', summary: makeStep({ name: 'concurrency@4', profile: { kind: 'concurrency', concurrency: 4 }, requests: 30, ttftMs: 60, gapMs: 8, chunks: 16 }).summary! }, 8);
  applyRunEvent(state, { type: 'run-end', status: 'complete', reason: null, resultPath: state.run.resultPath }, 9);
  panel.send({ type: 'state', state });
  assert.equal(text('#headline'), '已结束（已完成），共 2 步，用时 9.0 s');
  assert.equal(text('#result-path'), '已保存到 /w/benchmarks/r.llmbench.json');
  assert.deepEqual(englishLeft(panel, RUN_DATA), []);
  assert.deepEqual(panel.scriptErrors, []);
});

test('the status bar and the progress notification say the time left in the display language too', () => {
  const state = runState();
  const view = progressView(state, t);
  assert.match(view.eta, /^本步约剩 \d+ s/);
  assert.match(statusBarText(state, view), /^LLM Bench \d+% · 96 tok\/s · 剩 \d+ s$/);
  assert.match(statusBarText(state), /^LLM Bench \d+% · 96 tok\/s · \d+ s left$/, 'English as before');
});

const tuneState = tuneLiveStateLaunching;

const TUNE_DATA = [/max_num_seqs=\d+, max_num_batched_tokens=\d+, enable_chunked_prefill=(on|off)/g, /^\$ .*$/g, /llmbench sim [^\n]*/g, 'INFO:     Application startup complete.', '/w/benchmarks/sim.llmtune.json', /max_num_\w+|enable_chunked_prefill/g, 'output tok/s'];

test("the live tune panel in Chinese: the trial's stage, the time left, the trials' states; the launching trial is said once", (context) => {
  const { state, second } = tuneState();
  const page = openPage('tune-live', { language: zhCn });
  context.after(() => page.close());
  page.send({ type: 'state', state });
  const text = (selector: string) => page.document.querySelector(selector)?.textContent ?? '';
  assert.equal(text('#tune-headline'), '试验 2：正在启动服务（max_num_seqs=64, max_num_batched_tokens=4096, enable_chunked_prefill=on）');
  // The headline says what the trial does; a second line saying it again was the defect.
  assert.ok(page.document.getElementById('tune-progress')?.classList.contains('hidden'), `the launching trial is said twice: "${text('#tune-progress')}"`);
  assert.match(text('#tune-eta'), /^已完成 1 \/ 12 个试验，目前每个试验用时 .*：调优约剩 /);
  const states = [...page.document.querySelectorAll('.trials-table tbody tr')].map((row) => [...row.querySelectorAll('td')].map((td) => td.textContent)[4]);
  assert.deepEqual(states, ['已完成', '启动中']);
  assert.deepEqual(englishLeft(page, TUNE_DATA), []);

  applyTuneEvent(state, { type: 'trial-stage', trial: 2, stage: 'benchmarking' });
  applyTuneEvent(state, {
    type: 'benchmark',
    trial: 2,
    event: { type: 'progress', snapshot: { stepIndex: 0, elapsedSec: 1, completed: 12, failed: 0, inFlight: 32, plannedRequests: 64, plannedDurationSec: null, requestsPerSecond: 10, outputTokensPerSecond: 830, recentTtftMs: [], recentLatencyMs: [] } },
  }, Date.now(), t);
  page.send({ type: 'state', state });
  assert.equal(text('#tune-headline'), '试验 2：测试中（max_num_seqs=64, max_num_batched_tokens=4096, enable_chunked_prefill=on）');
  assert.equal(text('#tune-progress'), '试验 2：第 1 步：12 / 64 个请求，输出 830 tok/s');

  applyTuneEvent(state, { type: 'trial-end', trial: { ...second, objective: 1200 }, best: { trial: 2, params: second.params, objective: 1200, command: second.command } });
  applyTuneEvent(state, { type: 'done', status: 'complete', reason: null, best: state.best, trials: 2 });
  page.send({ type: 'state', state });
  assert.equal(text('#tune-headline'), '已结束（已完成）');
  assert.deepEqual(englishLeft(page, TUNE_DATA), []);
  assert.deepEqual(page.scriptErrors, []);
});

test('in English, a launching trial is said once too: in the headline, not again in the progress line', () => {
  const { state } = tuneState();
  assert.equal(runningTrialProgress(state), '');
});

test('the tune editor in Chinese: the headline, the best trial, the trials table and the notes', (context) => {
  const file = sampleTuneFile();
  const page = openPage('tune', { language: zhCn });
  context.after(() => page.close());
  page.send({ type: 'show', view: buildTuneView(file, 'sim.llmtune.json', [], undefined, t) });
  const text = (selector: string) => page.document.querySelector(selector)?.textContent ?? '';
  assert.match(text('#tune-headline'), /^\d+ 个试验中的 \d+ 个：.*。最佳：/);
  assert.match(text('#best h2'), /^最佳：试验 \d+/);
  const statuses = new Set([...page.document.querySelectorAll('.trials-table tbody tr')].map((row) => row.className.split(' ')[0]));
  assert.ok(statuses.has('trial-refused'));
  const cells = [...page.document.querySelectorAll('.trials-table tbody td')].map((td) => td.textContent);
  for (const word of ['已完成', '已拒绝']) assert.ok(cells.includes(word), `no "${word}" in ${cells.join(', ')}`);
  // The refusal's reason is the tuner's rule text: data, kept as written.
  assert.deepEqual(englishLeft(page, [...TUNE_DATA, 'sim.llmtune.json', /refused by rule [^\n]*/g, /^ValueError: .*/g]), []);
  assert.deepEqual(page.scriptErrors, []);
});

