/**
 * The built tune editor and live tune panel bundles under jsdom, with a fake acquireVsCodeApi that
 * records what the view posts and keeps (test/helpers/webview-page.ts): file text is shown as text, a trial's row asks for its
 * result, Copy asks for the best command, the live panel shows the running trial and its server log
 * and keeps its state for a reload.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildTuneView } from '../../src/views/tune';
import { makeTrial, sampleTuneFile } from '../helpers/tune-documents';
import { openPage } from '../helpers/webview-page';
import { tuneLiveStateLaunching } from '../helpers/live-states';

function openView(view: 'tune' | 'tune-live', saved?: unknown) {
  const page = openPage(view, { saved });
  return Object.assign(page, {
    click(selector: string) {
      const node = page.document.querySelector(selector);
      assert.ok(node, `no ${selector}`);
      node.dispatchEvent(new page.window.MouseEvent('click', { bubbles: true }));
    },
  });
}

test('the tune editor: headline, best command with Copy, a row per trial; a measured trial\'s row opens its result, a refused one does not', async () => {
  const page = openView('tune');
  assert.deepEqual(page.posted, [{ type: 'ready' }]);
  const file = sampleTuneFile();
  file.trials[1]!.reason = '<img src=x onerror=alert(1)> refused';
  page.send({ type: 'show', view: buildTuneView(file, 'sim.llmtune.json', []) });
  assert.match(page.document.getElementById('tune-headline')?.textContent ?? '', /^6 trials of 12/);
  assert.equal(page.document.querySelector('#best-command')?.textContent, buildTuneView(file, 'x', []).best?.commandLine);
  const rows = [...page.document.querySelectorAll('.trials-table tbody tr')];
  assert.equal(rows.length, 6);
  assert.equal(page.document.querySelector('img'), null, 'a reason is text, never markup');
  assert.match(rows[1]?.textContent ?? '', /<img src=x/);
  assert.ok(rows[2]?.classList.contains('best-trial'));
  page.click('.trials-table tbody tr[data-trial="2"]');
  page.click('.trials-table tbody tr[data-trial="3"]');
  page.click('#copy-best-command');
  assert.deepEqual(page.posted.slice(1), [{ type: 'open-trial', trial: 3 }, { type: 'copy-best-command' }]);
  // The table paints first, the charts on the next frame.
  await new Promise((resolve) => setTimeout(resolve, 100));
  assert.ok(page.document.querySelector('[data-chart="objective-per-trial"]'), 'the objective per trial is drawn');
  assert.deepEqual([...page.document.querySelectorAll('.effects-grid [data-chart]')].map((c) => c.getAttribute('data-chart')), ['effect-max_num_seqs', 'effect-max_num_batched_tokens', 'effect-enable_chunked_prefill']);
});

test('a tune file that cannot be read shows why and opens as text', () => {
  const page = openView('tune');
  page.send({ type: 'error', fileName: 'broken.llmtune.json', message: 'The file is not valid JSON.' });
  assert.match(page.document.body.textContent ?? '', /cannot be shown as an LLM Bench tune.*not valid JSON/s);
  page.click('#open-as-text');
  assert.deepEqual(page.posted.at(-1), { type: 'open-as-text' });
});

test('the live tune panel: the running trial, its command and server log, Cancel; the state kept for a reload and shown from it', () => {
  const { state } = tuneLiveStateLaunching();

  const page = openView('tune-live');
  assert.match(page.document.body.textContent ?? '', /No tune has run in this window yet/);
  page.send({ type: 'state', state });
  assert.equal(page.document.getElementById('tune-headline')?.textContent, 'Trial 2: launching its server (max_num_seqs=64, max_num_batched_tokens=4096, enable_chunked_prefill=on)');
  assert.deepEqual([...page.document.querySelectorAll('.trials-table tbody tr')].map((r) => r.className.split(' ')[0]), ['trial-complete', 'trial-running']);
  assert.equal(page.document.getElementById('server-log')?.textContent, 'INFO:     Application startup complete.');
  assert.match(page.document.getElementById('tune-eta')?.textContent ?? '', /^1 of \d+ trials done, .* left in the tune/, 'the time left in the whole tune');
  assert.match(page.document.querySelector('.server-command')?.textContent ?? '', /--max-num-seqs 64/);
  assert.equal(page.document.getElementById('copy-best-command'), null, 'the best so far is copied from the tune file, where it is final');
  page.click('#cancel-tune');
  assert.deepEqual(page.posted.at(-1), { type: 'cancel', tuneId: 't1' });
  // Kept as the webview's state (a structured clone): compared as JSON, the objects being of the page's realm.
  assert.deepEqual(JSON.parse(JSON.stringify(page.kept.at(-1))), { state: JSON.parse(JSON.stringify(state)) });

  const reopened = openView('tune-live', { state });
  assert.match(reopened.document.getElementById('tune-headline')?.textContent ?? '', /^Trial 2/, 'a reloaded panel shows its last state before the host answers');
  // A running tune's panel retells its time left every few seconds; closed, as a panel closes, its clock stops.
  page.close();
  reopened.close();
});

test('the tune editor shows ties as ties: the heading names the tied trials, their rows are marked, the interval and the noise are said', () => {
  const trials = [
    makeTrial(1, { seqs: 16, batched: 2048, chunked: false, objective: 2100, ttftP99: 800 }),
    makeTrial(2, { seqs: 128, batched: 4096, chunked: true, objective: 3127, ttftP99: 900 }),
    makeTrial(3, { seqs: 64, batched: 4096, chunked: true, objective: 3149, ttftP99: 1000 }),
  ];
  const run = (trial: number, round: number, objective: number) => ({ trial, round, objective, status: 'complete' as const, reason: null, slo: null, load: null, resultFile: null, logFile: null, port: 1, gpuMemoryUsedMiB: null, gpuMemoryNote: null, startedAt: '2026-11-25T08:10:00.000Z', endedAt: '2026-11-25T08:10:10.000Z' });
  const runs = [run(3, 1, 3100), run(2, 1, 3050), run(2, 2, 3090), run(3, 2, 3000), run(3, 3, 3080), run(2, 3, 3120)];
  const file = sampleTuneFile({
    trials,
    best: { trial: 2, params: trials[1]!.params, objective: 3086.6666666666665, command: trials[1]!.command },
    remeasure: {
      candidates: [3, 2],
      rounds: 3,
      status: 'complete',
      runs,
      summaries: [
        { trial: 3, n: 3, mean: 3060, halfWidth: 131.4496562845766, missed: 0 },
        { trial: 2, n: 3, mean: 3086.6666666666665, halfWidth: 87.24100779704716, missed: 0 },
      ],
      noisePercent: 1.5,
    },
  });
  const page = openView('tune');
  page.send({ type: 'show', view: buildTuneView(file, 'ties.llmtune.json', []) });
  assert.equal(page.document.querySelector('#best h2')?.textContent, 'Best: trial 2, tied with trial 3');
  assert.match(page.document.querySelector('#best strong')?.textContent ?? '', /^3,087 ± 87 output tok\/s$/);
  assert.match(page.document.querySelector('#best')?.textContent ?? '', /mean of 3 re-measurements, 95% interval/);
  assert.equal(page.document.getElementById('best-ties')?.textContent, 'Tied within noise with trial 3 (3,060 ± 131): their 95% intervals across re-measurements overlap.');
  assert.match(page.document.getElementById('best-noise')?.textContent ?? '', /^Noise: one measurement moved by 1\.5%/);
  const marks = [...page.document.querySelectorAll('.trials-table tbody tr')].map((r) => [r.getAttribute('data-trial'), r.classList.contains('best-trial'), r.classList.contains('tie-trial')]);
  assert.deepEqual(marks, [['1', false, false], ['2', true, false], ['3', false, true]]);
  assert.match(page.document.querySelector('.trials-table thead')?.textContent ?? '', /re-measured/);
});
