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
import { english, translator } from '../../src/views/l10n';
import { sayWarning } from '../../src/views/step-warnings';
import { fillPlaceholders, STATUS_REASON_TEXT, TRIAL_REASON_TEXT } from '../../src/format/warning-text';
import { progressView, statusBarText } from '../../src/views/progress';
import { applyTuneEvent, newTuneLiveState, runningTrialProgress, tuneEndMessage, tuneLiveHeadline } from '../../src/views/tune-live';
import { buildTuneView } from '../../src/views/tune';
import { makeStep } from '../helpers/result-documents';
import { sampleTuneFile } from '../helpers/tune-documents';
import { sweepLiveState, tuneLiveStateLaunching } from '../helpers/live-states';
import { TuneConfigSchema, type TuneEvent } from '../../src/format/tune';
import { runTune } from '../../src/tune/index';
import { cancelledTuneFile, engineWorkerScript, liveSimulators, llmbenchCommand, REFUSING_SEARCH, tempDir, vllmLikeConfig } from '../helpers/tune-runs';
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
  assert.match(text('#step-detail'), /本步约剩 \d+ 秒/);
  assert.match(text('#step-detail'), / · 2\.0 秒/, 'the step\'s time so far in seconds, worded');
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
  assert.equal(text('#headline'), '已结束（已完成），共 2 步，用时 9.0 秒');
  assert.equal(text('#result-path'), '已保存到 /w/benchmarks/r.llmbench.json');
  assert.deepEqual(englishLeft(panel, RUN_DATA), []);
  assert.deepEqual(panel.scriptErrors, []);
});

test('the status bar and the progress notification say the time left in the display language too', () => {
  const state = runState();
  const view = progressView(state, t);
  assert.match(view.eta, /^本步约剩 \d+ 秒/);
  assert.match(statusBarText(state, view), /^LLM Bench \d+% · 96 tok\/s · 剩 \d+ 秒$/);
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
  // The refusal is worded in Chinese; the rule's own message is the rule set's text, kept as written.
  assert.ok(cells.includes('被规则 vllm.batched-tokens-cover-model-len 拒绝：max_num_batched_tokens (512) is smaller than max_model_len (4096) and chunked prefill is off'), cells.join(' | '));
  assert.deepEqual(englishLeft(page, [...TUNE_DATA, 'sim.llmtune.json', /vllm\.[\w-]+ 拒绝：[^\n]*/g, /^ValueError: .*/g]), []);
  assert.deepEqual(page.scriptErrors, []);
});


test("a real tune's reasons in Chinese: why it ended (its budget, then re-measurement), a refused trial's rule, a cancel; English as stored", async (context) => {
  const dir = tempDir();
  const config = TuneConfigSchema.parse(
    vllmLikeConfig({
      ...REFUSING_SEARCH,
      budget: { trials: 2 },
      remeasure: { candidates: 1, rounds: 2 },
    }),
  );
  const events: TuneEvent[] = [];
  const outPath = join(dir, 'reasons.llmtune.json');
  const file = await runTune({ config, configDir: dir, outPath, resume: false, llmbenchCommand, engineWorkerScript, env: { ...process.env, LLMBENCH_TUNE_TEST: dir }, onEvent: (e) => events.push(e) });
  assert.deepEqual(liveSimulators(dir), []);
  assert.equal(file.statusReason, 'The budget of 2 launched trials is spent. The best trial was re-measured 2 times each.', 'English as before');
  const refused = file.trials.find((trial) => trial.status === 'refused');
  assert.match(refused?.reason ?? '', /^refused by rule vllm\/batched-tokens-cover-model-len: max_num_batched_tokens/);

  // The live panel's headline at the end.
  const state = newTuneLiveState({ id: 'reasons', outPath, configPath: join(dir, 'tune.json'), startedAt: file.trials[0]!.startedAt }, config);
  for (const event of events) applyTuneEvent(state, event, 0, t);
  assert.equal(tuneLiveHeadline(state, t).text, '已结束（已完成）：2 个启动试验的预算已用完。最佳试验复测了 2 次。');
  assert.equal(tuneLiveHeadline(state).text, 'Finished (complete): The budget of 2 launched trials is spent. The best trial was re-measured 2 times each.');
  // The tune editor's trials table: the refusal in Chinese, the rule's own message as the rule set wrote it.
  const reasons = (view: ReturnType<typeof buildTuneView>) => view.rows.map((row) => row.cells.at(-1));
  const zhReasons = reasons(buildTuneView(file, 'reasons.llmtune.json', [], undefined, t));
  assert.ok(zhReasons.some((cell) => /^被规则 vllm\/batched-tokens-cover-model-len 拒绝：max_num_batched_tokens \(\d+\) is smaller/.test(cell ?? '')), zhReasons.join(' | '));
  assert.ok(reasons(buildTuneView(file, 'reasons.llmtune.json', [])).includes(refused!.reason!), 'English as stored');

  // A tune cancelled before its first launch: the tune editor's note and the notification.
  const cancelled = (await cancelledTuneFile(dir, 'cancelled.llmtune.json')).file;
  assert.equal(cancelled.statusReason, 'Cancelled: the running server was stopped. Continue with --resume.');
  const page = openPage('tune', { language: zhCn });
  context.after(() => page.close());
  page.send({ type: 'show', view: buildTuneView(cancelled, 'cancelled.llmtune.json', [], undefined, t) });
  const notes = [...page.document.querySelectorAll('p, li')].map((p) => p.textContent ?? '');
  assert.ok(notes.some((note) => note.includes('已取消：运行中的服务已停止。可用 --resume 继续。')), notes.join(' | '));
  assert.match(tuneEndMessage('cancelled', cancelled.statusReason, 0, t) ?? '', /已取消：运行中的服务已停止。可用 --resume 继续。/);
  assert.deepEqual(page.scriptErrors, []);
});

test("the tune's other end reasons in Chinese, as the tuner writes them", () => {
  const said = (reason: string) => tuneEndMessage('failed', reason, 3, t) ?? '';
  assert.match(said('The budget of 600 s is spent. No trial scored: nothing was re-measured.'), /600 秒的预算已用完。没有试验测得目标值：未进行复测。/);
  assert.match(said('Every combination the constraints allow has been tried. The best 3 trials were re-measured 3 times each.'), /约束允许的每种组合都已试过。最佳的 3 个试验各复测了 3 次。/);
  assert.match(said('The constraints refused 200 combinations in a row: they leave (almost) nothing to try. Widen the space or loosen the rules.'), /约束连续拒绝了 200 个组合/);
  assert.match(said('The first launch was not confirmed: nothing was started.'), /第一次启动未获确认/);
  assert.match(said('The tune stopped: EACCES: permission denied'), /调优已停止：EACCES: permission denied/);
});

test("a run the engine itself stopped: its error said in Chinese, alone or after the reason the run had already failed for", () => {
  const clientFailed = fillPlaceholders(STATUS_REASON_TEXT.clientFailed, ['this machine could not open a connection (EMFILE): too many open files.']);
  const after = fillPlaceholders(STATUS_REASON_TEXT.engineStoppedAfter, [clientFailed, "EMFILE: too many open files, open '/w/r.llmbench.json'"]);
  assert.equal(after, "The client failed, not the server: this machine could not open a connection (EMFILE): too many open files. The run was stopped: its figures would measure this machine. The engine stopped with an error: EMFILE: too many open files, open '/w/r.llmbench.json'");
  assert.equal(sayWarning(after, t), "失败的是客户端，而不是服务端：this machine could not open a connection (EMFILE): too many open files. 运行已停止：它的数字测的会是本机。引擎因错误而停止：EMFILE: too many open files, open '/w/r.llmbench.json'");
  // A reason this version has no template for stays as written before the engine's words.
  assert.equal(sayWarning(fillPlaceholders(STATUS_REASON_TEXT.engineStoppedAfter, ['An older reason.', 'disk full']), t), 'An older reason.引擎因错误而停止：disk full');
  assert.equal(sayWarning(fillPlaceholders(STATUS_REASON_TEXT.engineStopped, ['disk full']), t), '引擎因错误而停止：disk full');
  assert.equal(sayWarning(after, english), after);
});

test("a trial's reasons in Chinese, as the tuner writes them; the server's and the benchmark's own words kept or worded by their own templates", () => {
  const fill = (text: string, ...args: (string | number)[]) => fillPlaceholders(text, args);
  const cases: [string, string][] = [
    [TRIAL_REASON_TEXT.noSlo, '没有一步满足 SLO。'],
    [fill(TRIAL_REASON_TEXT.notReadyLast, 600, 'INFO: loading weights'), '600 秒后仍未就绪（startTimeoutSec）；它的最后一行：INFO: loading weights'],
    [fill(TRIAL_REASON_TEXT.notReady, 600), '600 秒后仍未就绪（startTimeoutSec）'],
    [fill(TRIAL_REASON_TEXT.silentExitCode, 1), '服务端未留下任何输出就退出了（退出码 1）'],
    [fill(TRIAL_REASON_TEXT.silentKilled, 'SIGKILL'), '服务端未留下任何输出就退出了（被 SIGKILL 终止）'],
    [fill(TRIAL_REASON_TEXT.exitCode, 'CUDA out of memory', 1), 'CUDA out of memory（退出码 1）'],
    [fill(TRIAL_REASON_TEXT.couldNotRun, 'connect ECONNREFUSED 127.0.0.1:8000'), '基准测试无法运行：connect ECONNREFUSED 127.0.0.1:8000'],
    // The benchmark's own reason is one of its templates: said in Chinese inside the trial's.
    [fill(TRIAL_REASON_TEXT.failed, 'No measured request finished within the step limits (all were warm-up or cut off).'), '基准测试失败：在步的限制内没有计量请求完成（全部是预热请求或被截断）。'],
    [fill(TRIAL_REASON_TEXT.failed, TRIAL_REASON_TEXT.noReason), '基准测试失败：未给出原因'],
  ];
  for (const [stored, zh] of cases) {
    assert.equal(sayWarning(stored, t), zh);
    assert.equal(sayWarning(stored, english), stored);
  }
});
