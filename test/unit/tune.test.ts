/**
 * Tuning against the built-in simulator launched as the server (`llmbench sim` through dist/cli.js,
 * at a high --speedup): refusals cost no launch, a server refusing to start is recorded with its
 * own message, cancel stops the server and frees its port, kill -9 of the tuner then --resume
 * finishes without rerunning a trial, the example config works verbatim. Plus the pure
 * parts: constraints, placeholders, config messages, the search.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseTuneFile, TuneConfigSchema, type Params, type TuneEvent, type TuneFile } from '../../src/format/tune';
import { checkConstraints, parseTuneConfigText, runTune, TuneConfigError } from '../../src/tune/index';
import { benchmarkSource, prepareBenchmark } from '../../src/tune/config';
import { RUN_PRESET_IDS } from '../../src/format/config';
import { isPortFree } from '../../src/tune/server';
import { createSearch } from '../../src/tune/search';
import { commandFor, paramsKey } from '../../src/tune/space';
import { formatObjective } from '../../src/views/tune';
import { english, translator } from '../../src/views/l10n';
import { sayWarning } from '../../src/views/step-warnings';
import { repoRoot } from '../helpers/limited-child';
import { bystander, cancelledTuneFile, engineWorkerScript, exited, groupAlive, liveSimulators, llmbenchCommand, readTune, SIM, startCli, REFUSING_SEARCH, tempDir, vllmLikeConfig } from '../helpers/tune-runs';

test('the vllm rule set reads the argv by vLLM flag names and names the rule it breaks', () => {
  const argv = (batched: number, chunked: string) => ['vllm', 'serve', 'm', '--max-num-seqs', '64', '--max-num-batched-tokens', String(batched), '--max-model-len=4096', chunked];
  assert.equal(checkConstraints(['vllm'], {}, argv(8192, '--no-enable-chunked-prefill')), undefined);
  assert.equal(checkConstraints(['vllm'], {}, argv(512, '--enable-chunked-prefill')), undefined);
  const refused = checkConstraints(['vllm'], {}, argv(512, '--no-enable-chunked-prefill'));
  assert.equal(refused?.rule, 'vllm/batched-tokens-cover-model-len');
  assert.match(refused!.message, /max_num_batched_tokens \(512\) is smaller than max_model_len \(4096\)/);
  assert.equal(checkConstraints(['vllm'], {}, ['vllm', 'serve', '--max-num-seqs', '128', '--max-num-batched-tokens', '64'])?.rule, 'vllm/batched-tokens-cover-seqs');
  assert.equal(checkConstraints(['vllm'], {}, ['vllm', 'serve', '--block-size', '24'])?.rule, 'vllm/block-size-supported');
  assert.equal(checkConstraints(['vllm'], {}, ['vllm', 'serve', '--max-num-partial-prefills', '2', '--no-enable-chunked-prefill'])?.rule, 'vllm/partial-prefills-need-chunked-prefill');
  assert.equal(checkConstraints(['vllm'], {}, ['vllm', 'serve', '--gpu-memory-utilization', '1.2'])?.rule, 'vllm/gpu-memory-utilization-share');
  // Unknown values (flags not given) decide nothing: vLLM's defaults apply.
  assert.equal(checkConstraints(['vllm'], {}, ['vllm', 'serve', '--max-num-batched-tokens', '512']), undefined);
});

test('declarative rules compare parameters and literals, only where their conditions hold', () => {
  const rule = { name: 'big-batch-needs-cache', when: [['batch', '>=', 1024] as const], require: ['cache', '==', true] as const, message: 'a big batch needs the cache' };
  const constraints = TuneConfigSchema.shape.constraints.parse([rule, { name: 'ctx-multiple', require: ['ctx', 'multipleOf', 'slots'] }, { name: 'mode', require: ['mode', 'in', { value: ['a', 'b'] }] }]);
  const check = (params: Params) => checkConstraints(constraints, params, [])?.rule;
  assert.equal(check({ batch: 512, cache: false, ctx: 4096, slots: 4, mode: 'a' }), undefined);
  assert.equal(check({ batch: 2048, cache: false, ctx: 4096, slots: 4, mode: 'a' }), 'big-batch-needs-cache');
  assert.equal(check({ batch: 2048, cache: true, ctx: 4096, slots: 3, mode: 'a' }), 'ctx-multiple');
  assert.equal(check({ batch: 2048, cache: true, ctx: 4096, slots: 4, mode: 'c' }), 'mode');
});

test('the command: placeholders filled as whole arguments, a bool becomes its arguments or none, llmbench resolved', () => {
  const config = TuneConfigSchema.parse(
    vllmLikeConfig({
      space: {
        max_num_seqs: { type: 'int', min: 4, max: 64, log: true },
        max_num_batched_tokens: { type: 'choice', values: [512, 1024] },
        enable_chunked_prefill: { type: 'bool', true: '--enable-chunked-prefill' },
        prefix: { type: 'bool', true: ['--enable-prefix-caching'], false: '--no-enable-prefix-caching' },
        block: { type: 'choice', values: [16, 32], args: ['--block-size={value}'] },
      },
    }),
  );
  const argv = commandFor(config.server, config.space, { max_num_seqs: 8, max_num_batched_tokens: 1024, enable_chunked_prefill: false, prefix: true, block: 32 }, 8000, ['node', 'cli.js']);
  assert.deepEqual(argv, ['node', 'cli.js', 'sim', '--preset', 'tiny', '--speedup', '50', '--port', '8000', '--max-num-seqs', '8', '--max-num-batched-tokens', '1024', '--max-model-len', '4096', '--enable-prefix-caching', '--block-size=32']);
  // A value with shell syntax stays one argument.
  const odd = TuneConfigSchema.parse(vllmLikeConfig({ space: { ...vllmLikeConfig().space, max_num_batched_tokens: { type: 'choice', values: ['1; rm -rf /', 1024] } } }));
  assert.ok(commandFor(odd.server, odd.space, { max_num_seqs: 8, max_num_batched_tokens: '1; rm -rf /', enable_chunked_prefill: true }, 1, ['x']).includes('1; rm -rf /'));
});

test('bad tune configs are refused with what to do', () => {
  const problem = (config: unknown) => {
    try {
      parseTuneConfigText(JSON.stringify(config), 'tune.json');
    } catch (error) {
      assert.ok(error instanceof TuneConfigError, String(error));
      return error.message;
    }
    return assert.fail('accepted');
  };
  const base = vllmLikeConfig();
  assert.match(problem({ ...base, server: { ...base.server, command: base.server.command.filter((word) => word !== '--port' && word !== '{port}') } }), /no \{port\}/);
  assert.match(problem({ ...base, server: { ...base.server, command: [...base.server.command, '--x', '{nope}'] } }), /uses \{nope\}, which is not a parameter of space/);
  assert.match(problem({ ...base, space: { ...base.space, extra: { type: 'int', min: 1, max: 2 } } }), /space\.extra never reaches the server/);
  assert.match(problem({ ...base, space: { ...base.space, max_num_seqs: { type: 'int', min: 0, max: 8, log: true } } }), /a log range needs min of at least 1/);
  assert.match(problem({ ...base, objective: { maximize: 'goodput' } }), /goodput needs benchmark\.slo/);
  assert.match(problem({ ...base, objective: { maximize: 'outputTokensPerSecond', slo: { 'ttft.p99': 1 } } }), /METRIC\.STAT/);
  assert.match(problem({ ...base, budget: {} }), /budget needs trials and\/or wallTimeSec/);
  assert.match(problem({ ...base, constraints: [{ name: 'r', require: ['missing', '<', 3] }] }), /names 'missing', which is not a parameter/);
  assert.match(problem({ ...base, server: { ...base.server, command: [...SIM, '{enable_chunked_prefill}x', '--max-num-seqs', '{max_num_seqs}', '{max_num_batched_tokens}'] } }), /must be a whole argument/);
  assert.doesNotThrow(() => parseTuneConfigText(JSON.stringify({ $schema: './media/llmtune-config.schema.json', ...base }), 'tune.json'));
});

test("benchmark: one of the extension's presets, with run config fields over it; a bad preset or field is named", () => {
  const prepare = (benchmark: unknown) => {
    const config = parseTuneConfigText(JSON.stringify({ ...vllmLikeConfig(), benchmark }), 'tune.json');
    return prepareBenchmark(benchmarkSource(config, repoRoot, 'tune.json', {}), 'http://127.0.0.1:9/v1', 'm').config;
  };
  // The concurrency preset at the settings' defaults: levels 1..64, 100 requests a step, 512 in / 128 out.
  const preset = prepare({ preset: 'concurrency' });
  assert.deepEqual(preset.profile, { kind: 'concurrency', levels: [1, 2, 4, 8, 16, 32, 64] });
  assert.equal(preset.limits.requests, 100);
  assert.deepEqual([preset.workload.kind, 'inputTokens' in preset.workload && preset.workload.inputTokens], ['synthetic', 512]);
  // A field given over it wins, key by key; the preset's other fields stay.
  const over = prepare({ preset: 'concurrency', profile: { kind: 'concurrency', levels: [8] }, limits: { requests: 16 } });
  assert.deepEqual(over.profile, { kind: 'concurrency', levels: [8] });
  assert.equal(over.limits.requests, 16);
  assert.equal(over.limits.warmup, 2);
  for (const id of RUN_PRESET_IDS) assert.doesNotThrow(() => prepare({ preset: id }), id);
  assert.throws(() => prepare({ preset: 'fastest' }), (error: Error) => error instanceof TuneConfigError && /quick.*concurrency.*sweep/.test(error.message));
  assert.throws(() => prepare({ preset: 'concurrency', limits: { requests: -1 } }), (error: Error) => error instanceof TuneConfigError && /limits\.requests/.test(error.message));
});

test('the search: tpe never proposes a refused or repeated combination; the same history gives the same proposal', () => {
  const config = TuneConfigSchema.parse(vllmLikeConfig());
  const allowed = (p: Params) => checkConstraints(config.constraints, p, commandFor(config.server, config.space, p, null, llmbenchCommand)) === undefined;
  const search = createSearch(config.space, config.search, allowed);
  const history: { params: Params; score: number | null }[] = [];
  for (let i = 0; i < 30; i++) {
    const params = search.propose(history)!;
    assert.ok(allowed(params), `proposal ${i} is refused: ${JSON.stringify(params)}`);
    assert.ok(!history.some((h) => paramsKey(h.params) === paramsKey(params)), `proposal ${i} repeats ${JSON.stringify(params)}`);
    history.push({ params, score: (params.max_num_seqs as number) * (params.enable_chunked_prefill ? 2 : 1) });
  }
  assert.deepEqual(createSearch(config.space, config.search, allowed).propose(history.slice(0, 10)), search.propose(history.slice(0, 10)));
});

test('the search: tpe finds a narrow optimum past a plateau, within 12 trials for most seeds, where random search mostly does not', () => {
  // A synthetic objective shaped like server throughput against a concurrency limit: rising, a narrow
  // peak (32 to 48 of 1 to 1024 on a log scale: 6% of the range), then a plateau of ties at 83% of it
  // whose values wobble by 1% (noise). Two parameters change nothing.
  const space = TuneConfigSchema.parse({
    ...vllmLikeConfig(),
    constraints: [],
    space: {
      slots: { type: 'int', min: 1, max: 1024, log: true, args: ['--slots', '{value}'] },
      batch: { type: 'choice', values: [256, 512, 1024, 2048, 4096], args: ['--batch', '{value}'] },
      cache: { type: 'bool', true: '--cache' },
    },
  }).space;
  const objective = (p: Params): number => {
    const slots = p.slots as number;
    const wobble = 10 * Math.sin(slots * 7.3 + (p.batch as number)) + (p.cache ? 3 : 0);
    return (slots < 32 ? 30 * slots : slots <= 48 ? 1200 : 1000) + wobble;
  };
  const budget = 12;
  const reachesPeak = (strategy: 'tpe' | 'random', seed: number): boolean => {
    const search = createSearch(space, { strategy, seed }, () => true);
    const history: { params: Params; score: number }[] = [];
    for (let i = 0; i < budget; i++) {
      const params = search.propose(history)!;
      history.push({ params, score: objective(params) });
      if (history.at(-1)!.score >= 1150) return true;
    }
    return false;
  };
  const seeds = Array.from({ length: 20 }, (_, i) => i + 1);
  const tpeHits = seeds.filter((seed) => reachesPeak('tpe', seed)).length;
  const randomHits = seeds.filter((seed) => reachesPeak('random', seed)).length;
  assert.ok(tpeHits >= 18, `tpe reached the peak within ${budget} trials for ${tpeHits} of 20 seeds (random: ${randomHits})`);
  assert.ok(randomHits <= 14, `random reached the peak within ${budget} trials for ${randomHits} of 20 seeds: the objective is too easy to tell the searches apart`);
});

test('the search covers each value of a small choice before it exploits, even where the rules refuse a value in most combinations', () => {
  // The llama.cpp space: -np 8 needs the largest contexts (a slot rule refuses it with the others).
  const space = TuneConfigSchema.parse({
    ...vllmLikeConfig(),
    constraints: [],
    space: {
      np: { type: 'choice', values: [1, 2, 4, 8], args: ['-np', '{value}'] },
      ctx: { type: 'choice', values: [1024, 2048, 4096, 8192], args: ['-c', '{value}'] },
      batch: { type: 'int', min: 64, max: 2048, log: true, args: ['-b', '{value}'] },
      cont: { type: 'bool', true: '--cont-batching' },
    },
  }).space;
  const allowed = (p: Params) => (p.ctx as number) / (p.np as number) >= 512;
  const late: string[] = [];
  for (let seed = 1; seed <= 40; seed++) {
    const search = createSearch(space, { strategy: 'tpe', seed }, allowed);
    const history: { params: Params; score: number }[] = [];
    // Scores that reward -np 1 most: the search would exploit it first.
    for (let i = 0; i < 5; i++) {
      const params = search.propose(history)!;
      history.push({ params, score: 1000 / (params.np as number) + (params.ctx as number) / 100 });
    }
    for (const name of ['np', 'ctx'] as const) {
      const seen = new Set(history.map((h) => h.params[name]));
      const values = (space[name] as { values: number[] }).values;
      if (values.some((v) => !seen.has(v))) late.push(`seed ${seed}: ${name} ${values.filter((v) => !seen.has(v)).join(', ')} not tried in 5 trials`);
    }
  }
  assert.deepEqual(late, []);
});

test('refused combinations are recorded with their rule and cost no launch', async () => {
  const dir = tempDir();
  const outPath = join(dir, 'refusals.llmtune.json');
  const events: TuneEvent[] = [];
  const config = TuneConfigSchema.parse(
    vllmLikeConfig({
      ...REFUSING_SEARCH,
      budget: { trials: 3 },
      // Only the search's launches here (re-measurement has tests of its own).
      remeasure: false,
    }),
  );
  const file = await runTune({ config, configDir: dir, outPath, resume: false, llmbenchCommand, engineWorkerScript, env: { ...process.env, LLMBENCH_TUNE_TEST: dir }, onEvent: (e) => events.push(e) });
  assert.equal(file.status, 'complete', file.statusReason ?? '');
  const refused = file.trials.filter((t) => t.status === 'refused');
  const launched = file.trials.filter((t) => t.status !== 'refused');
  assert.ok(refused.length >= 1, `no refusal among ${JSON.stringify(file.trials.map((t) => t.params))}`);
  assert.equal(launched.length, 3);
  for (const trial of refused) {
    assert.equal(trial.params.enable_chunked_prefill, false);
    assert.match(trial.reason ?? '', /^refused by rule vllm\/batched-tokens-cover-model-len: max_num_batched_tokens \((512|1024)\) is smaller than max_model_len \(4096\)/);
    assert.equal(trial.port, null);
    assert.equal(trial.logFile, null);
    assert.ok(!existsSync(join(dir, `refusals.trial-${trial.number}.log`)), 'a refused trial has a server log');
  }
  // One server log per launch, and as many launches as trials that were not refused.
  const logs = readdirSync(dir).filter((f) => f.endsWith('.log'));
  assert.equal(logs.length, launched.length);
  assert.equal(events.filter((e) => e.type === 'trial-stage' && e.stage === 'launching').length, launched.length);
  for (const trial of launched) {
    assert.equal(trial.status, 'complete', trial.reason ?? '');
    assert.ok(trial.objective! > 0);
    assert.ok(existsSync(join(dir, trial.resultFile!)));
  }
  assert.deepEqual(readTune(outPath).trials, file.trials);
  assert.deepEqual(liveSimulators(dir), []);
});

test('a server that refuses to start is recorded failed-to-start with its own message', async () => {
  const dir = tempDir();
  const config = TuneConfigSchema.parse(
    vllmLikeConfig({
      // No constraints: the simulator itself refuses (as vLLM would) and says why on stderr.
      constraints: [],
      // One combination, so the trial is this one whatever the search draws.
      space: { max_num_batched_tokens: { type: 'choice', values: [512] }, enable_chunked_prefill: { type: 'choice', values: ['--no-enable-chunked-prefill'] }, max_num_seqs: { type: 'choice', values: [8] } },
      budget: { trials: 1 },
    }),
  );
  const file = await runTune({ config, configDir: dir, outPath: join(dir, 'start.llmtune.json'), resume: false, llmbenchCommand, engineWorkerScript, env: { ...process.env, LLMBENCH_TUNE_TEST: dir } });
  const [trial] = file.trials;
  assert.equal(trial?.status, 'failed-to-start');
  assert.match(trial.reason ?? '', /max_num_batched_tokens \(512\) is smaller than max_model_len \(4096\).*\(exit code 2\)$/);
  assert.match(readFileSync(join(dir, trial.logFile!), 'utf8'), /llmbench sim: max_num_batched_tokens \(512\)/);
  // In Chinese (the tune editor's trials table): the server's own line kept, how it exited worded.
  const chinese = translator(JSON.parse(readFileSync(join(repoRoot, 'l10n', 'bundle.l10n.zh-cn.json'), 'utf8')) as Record<string, string>);
  assert.match(sayWarning(trial.reason ?? '', chinese), /max_num_batched_tokens \(512\) is smaller than max_model_len \(4096\).*（退出码 2）$/);
  assert.equal(sayWarning(trial.reason ?? '', english), trial.reason);
  assert.equal(file.best, null);
});

test('cancel stops the running server: no process left, the port free, the file says cancelled', async () => {
  const dir = tempDir();
  const outPath = join(dir, 'cancel.llmtune.json');
  const controller = new AbortController();
  let port: number | null = null;
  let pid: number | undefined;
  const config = TuneConfigSchema.parse(vllmLikeConfig({ benchmark: { profile: { kind: 'concurrency', levels: [4] }, limits: { durationSec: 60 } }, budget: { trials: 2 } }));
  const file = await runTune({
    config,
    configDir: dir,
    outPath,
    resume: false,
    signal: controller.signal,
    llmbenchCommand,
    engineWorkerScript,
    env: { ...process.env, LLMBENCH_TUNE_TEST: dir },
    onEvent: (event) => {
      if (event.type === 'trial-start') port = event.port;
      if (event.type === 'benchmark' && event.event.type === 'progress' && !controller.signal.aborted) {
        pid = readTune(outPath).runningServer?.pid;
        controller.abort();
      }
    },
  });
  assert.equal(file.status, 'cancelled');
  assert.equal(file.trials.length, 0, 'the cancelled trial is not recorded (a resume runs it again)');
  assert.equal(file.runningServer, null);
  assert.ok(pid !== undefined && port !== null);
  assert.equal(groupAlive(pid), false, `process group ${pid} still alive`);
  assert.equal(await isPortFree(port), true);
  assert.deepEqual(liveSimulators(dir), []);
});

test('max-load-within-slo: per trial, the highest concurrency within the SLO, found by doubling then bisecting', async () => {
  const dir = tempDir();
  const config = TuneConfigSchema.parse(
    vllmLikeConfig({
      server: { command: ['llmbench', 'sim', '--preset', 'tiny', '--port', '{port}', '--max-num-seqs', '{max_num_seqs}'], startTimeoutSec: 30, stopGraceSec: 5 },
      space: { max_num_seqs: { type: 'choice', values: [4, 16] } },
      constraints: [],
      // Requests beyond max_num_seqs wait a whole request (32 tokens, 1 ms steps) for a slot: the
      // median TTFT jumps past the SLO (a median, since one slow scheduling of this busy machine sets a p99).
      benchmark: { workload: { kind: 'synthetic', inputTokens: 16, outputTokens: 32 }, request: { extraBody: { ignore_eos: true } }, profile: { kind: 'concurrency', levels: [1] }, limits: { requests: 48 } },
      objective: { mode: 'max-load-within-slo', slo: { 'ttftMs.p50': 20 }, load: { kind: 'concurrency', min: 1, max: 64, precision: 0.2 } },
      budget: { trials: 2 },
      // The search's probes only: re-measuring would search each candidate's highest load again.
      remeasure: false,
    }),
  );
  const file = await runTune({ config, configDir: dir, outPath: join(dir, 'load.llmtune.json'), resume: false, llmbenchCommand, engineWorkerScript, env: { ...process.env, LLMBENCH_TUNE_TEST: dir } });
  assert.equal(file.status, 'complete', file.statusReason ?? '');
  const bySeqs = new Map(file.trials.map((t) => [t.params.max_num_seqs, t]));
  for (const [seqs, trial] of bySeqs) {
    assert.equal(trial.status, 'complete', trial.reason ?? '');
    assert.ok(trial.objective !== null && Number.isInteger(trial.objective) && trial.objective >= 1 && trial.objective <= 64, `max_num_seqs ${seqs}: ${trial.objective}`);
    assert.deepEqual(trial.load, { kind: 'concurrency', value: trial.objective });
    assert.equal(trial.slo?.met, true);
    assert.ok(trial.slo!.figures['ttftMs.p50']! <= 20);
    // Its result file is one of the probes, each a single step at one concurrency.
    assert.match(trial.resultFile ?? '', new RegExp(`^load\\.trial-${trial.number}\\.load-\\d+\\.llmbench\\.json$`));
    const probes = readdirSync(dir).filter((f) => f.startsWith(`load.trial-${trial.number}.load-`));
    assert.ok(probes.length >= 3, `only ${probes.length} probes`);
  }
  assert.ok(bySeqs.get(16)!.objective! > bySeqs.get(4)!.objective!, `16 slots held ${bySeqs.get(16)!.objective}, 4 slots ${bySeqs.get(4)!.objective}`);
  assert.deepEqual(liveSimulators(dir), []);
});

test('kill -9 of the tuner, then --resume: finished trials are kept, not rerun, and the left server is stopped', async () => {
  const dir = tempDir();
  const env = { LLMBENCH_TUNE_TEST: dir };
  writeFileSync(join(dir, 'tune.json'), JSON.stringify(vllmLikeConfig({ benchmark: { profile: { kind: 'concurrency', levels: [8] }, limits: { durationSec: 0.6 } }, budget: { trials: 4 } })));
  const outPath = join(dir, 'crash.llmtune.json');
  const first = startCli(['tune', '--config', 'tune.json', '--out', 'crash.llmtune.json'], dir, env);
  // Kill it while the third trial's server runs (two trials done).
  const deadline = Date.now() + 60_000;
  for (;;) {
    const text = existsSync(outPath) ? readFileSync(outPath, 'utf8') : '';
    const parsed = text ? parseTuneFile(text) : undefined;
    if (parsed?.ok && parsed.value.trials.length >= 2 && parsed.value.runningServer) break;
    if (Date.now() > deadline || first.exitCode !== null) assert.fail(`the tune did not reach its third trial:\n${first.output()}`);
    await sleep(50);
  }
  first.kill('SIGKILL');
  await exited(first);
  const crashed = readTune(outPath);
  assert.equal(crashed.status, 'running');
  const left = crashed.runningServer!;
  assert.ok(groupAlive(left.pid), 'kill -9 leaves the trial server running (nothing can run in the killed tuner)');

  const second = startCli(['tune', '--config', 'tune.json', '--out', 'crash.llmtune.json', '--resume'], dir, env);
  assert.equal(await exited(second), 0, second.output());
  assert.match(second.output(), new RegExp(`Stopped the server of trial ${left.trial} \\(process group ${left.pid}\\)`));
  const done = readTune(outPath);
  assert.equal(done.status, 'complete');
  assert.equal(done.trials.filter((t) => t.status !== 'refused').length, 4);
  assert.deepEqual(done.trials.slice(0, crashed.trials.length), crashed.trials, 'finished trials were rerun or changed');
  assert.deepEqual(done.trials.map((t) => t.number), done.trials.map((_, i) => i + 1));
  // After the search, the resumed tune re-measured its best 3, 3 rounds each (the default).
  assert.equal(done.remeasure?.status, 'complete');
  assert.equal(done.remeasure?.runs.length, 9);
  assert.equal(groupAlive(left.pid), false);
  assert.deepEqual(liveSimulators(dir), []);
});

test('--resume stops a left server only on the host whose tuner launched it: from another host it is named, and a process of this host with its number is left alone', async () => {
  // A tune file, cancelled before its first trial, then made to read as the file of a tuner on
  // another host that crashed while its trial's server ran as process group N...
  const { options, outPath, file } = await cancelledTuneFile(tempDir(), 'elsewhere.llmtune.json');
  // ...where N is, on this host, another process group.
  const stranger = bystander();
  const { pid } = stranger;
  try {
    writeFileSync(outPath, JSON.stringify({ ...file, status: 'running', statusReason: null, finishedAt: null, writer: { pid: 4242, host: 'gpu-box-elsewhere' }, runningServer: { trial: 1, pid, port: 8000 } }));
    const events: TuneEvent[] = [];
    const resumed = await runTune({ ...options, onEvent: (e) => events.push(e) });
    assert.equal(resumed.status, 'cancelled');
    await sleep(300); // time for a kill's exit to be seen: a killed child of this process lingers as a zombie, which a signal 0 still finds
    assert.ok(stranger.child.signalCode === null && groupAlive(pid), `process group ${pid} of this host was killed (${stranger.child.signalCode}) for a server that runs on another host`);
    const said = events.flatMap((e) => (e.type === 'log' ? [e.message] : [])).join('\n');
    assert.match(said, new RegExp(`trial 1 \\(process group ${pid}\\) .*gpu-box-elsewhere`));
  } finally {
    stranger.end();
  }
});

test('trials are numbered from 1 wherever a person reads them: the command line, the trial files, the tune file', async () => {
  // The command line said "trial 0" and wrote NAME.trial-0.llmbench.json for what the views call trial 1.
  const dir = tempDir();
  const config = vllmLikeConfig({
    space: { max_num_seqs: { type: 'choice', values: [8, 16] }, max_num_batched_tokens: { type: 'choice', values: [8192] }, enable_chunked_prefill: { type: 'bool', true: '--enable-chunked-prefill', false: '--no-enable-chunked-prefill' } },
    budget: { trials: 2 },
    remeasure: false,
  });
  writeFileSync(join(dir, 'tune.json'), JSON.stringify(config));
  const child = startCli(['tune', '--config', 'tune.json', '--out', 'count.llmtune.json'], dir, { LLMBENCH_TUNE_TEST: dir });
  assert.equal(await exited(child), 0, child.output());
  const file = readTune(join(dir, 'count.llmtune.json'));
  assert.deepEqual(file.trials.map((t) => t.number), [1, 2]);
  assert.deepEqual(file.trials.map((t) => [t.resultFile, t.logFile]), [['count.trial-1.llmbench.json', 'count.trial-1.log'], ['count.trial-2.llmbench.json', 'count.trial-2.log']]);
  assert.ok(!readdirSync(dir).some((name) => name.includes('trial-0')), readdirSync(dir).join(', '));
  assert.match(child.output(), /^trial 1: \[/m);
  assert.match(child.output(), /^trial 2: max_num_seqs=\d+, max_num_batched_tokens=8192, enable_chunked_prefill=(on|off): /m);
  assert.match(child.output(), new RegExp(`^Best: trial ${file.best!.trial}, objective `, 'm'));
  // The objective as the tune views print it (the command line printed 2682.09 where they show 2,682).
  assert.match(child.output(), new RegExp(`^trial 1: .*: objective ${formatObjective(file.config.objective, file.trials[0]!.objective)} output tok/s`, 'm'));
  assert.ok([1, 2].includes(file.best!.trial));
  assert.deepEqual(liveSimulators(dir), []);
});

test('--resume of a tune file written before trials were numbered from 1: its trials keep their files and are renumbered, the next one follows', async () => {
  const dir = tempDir();
  const input = vllmLikeConfig({ budget: { trials: 2 }, remeasure: false });
  writeFileSync(join(dir, 'tune.json'), JSON.stringify(input));
  const config = TuneConfigSchema.parse(input);
  const params = { max_num_seqs: 8, max_num_batched_tokens: 8192, enable_chunked_prefill: true };
  const command = commandFor(config.server, config.space, params, 41000, llmbenchCommand);
  const oldTrial = {
    index: 0, params, command, status: 'complete', reason: null, objective: 123, slo: { met: true, figures: { 'ttftMs.p99': 50 } }, load: { kind: 'concurrency', value: 8 },
    resultFile: 'old.trial-0.llmbench.json', logFile: 'old.trial-0.log', port: 41000, gpuMemoryUsedMiB: null, startedAt: '2026-01-01T00:00:00.000Z', endedAt: '2026-01-01T00:00:01.000Z',
  };
  writeFileSync(join(dir, 'old.llmtune.json'), JSON.stringify({
    schemaVersion: 1, tool: { name: 'llm-bench', version: '0.1.0' }, config, configDir: dir, createdAt: '2026-01-01T00:00:00.000Z', finishedAt: '2026-01-01T00:00:01.000Z',
    status: 'cancelled', statusReason: 'Cancelled', trials: [oldTrial], best: { trial: 0, params, objective: 123, command }, runningServer: null,
  }));
  const read = readTune(join(dir, 'old.llmtune.json'));
  assert.deepEqual([read.trials[0]?.number, read.trials[0]?.resultFile, read.best?.trial], [1, 'old.trial-0.llmbench.json', 1]);
  const child = startCli(['tune', '--config', 'tune.json', '--out', 'old.llmtune.json', '--resume'], dir, { LLMBENCH_TUNE_TEST: dir });
  assert.equal(await exited(child), 0, child.output());
  const file = readTune(join(dir, 'old.llmtune.json'));
  assert.equal(file.schemaVersion, 2);
  assert.deepEqual(file.trials.map((t) => [t.number, t.logFile]), [[1, 'old.trial-0.log'], [2, 'old.trial-2.log']]);
  assert.match(child.output(), /^trial 2: /m);
  assert.deepEqual(liveSimulators(dir), []);
});

test('Ctrl-C (SIGINT) to llmbench tune stops the running server gracefully and ends the file cancelled', async () => {
  const dir = tempDir();
  writeFileSync(join(dir, 'tune.json'), JSON.stringify(vllmLikeConfig({ benchmark: { profile: { kind: 'concurrency', levels: [4] }, limits: { durationSec: 60 } } })));
  const outPath = join(dir, 'sigint.llmtune.json');
  const child = startCli(['tune', '--config', 'tune.json', '--out', 'sigint.llmtune.json'], dir, { LLMBENCH_TUNE_TEST: dir });
  const deadline = Date.now() + 30_000;
  let running: TuneFile['runningServer'] = null;
  while (running === null) {
    const parsed = existsSync(outPath) ? parseTuneFile(readFileSync(outPath, 'utf8')) : undefined;
    if (parsed?.ok) running = parsed.value.runningServer;
    if (Date.now() > deadline || child.exitCode !== null) assert.fail(`no server started:\n${child.output()}`);
    await sleep(50);
  }
  await sleep(1500); // into the benchmark
  child.kill('SIGINT');
  assert.equal(await exited(child), 1, child.output());
  const file = readTune(outPath);
  assert.equal(file.status, 'cancelled');
  assert.equal(groupAlive(running.pid), false);
  assert.equal(await isPortFree(running.port), true);
  // Stopped with SIGTERM first: the simulator had time to say so in its log.
  assert.match(readFileSync(join(dir, 'sigint.trial-1.log'), 'utf8'), /Simulator stopped\./);
  assert.deepEqual(liveSimulators(dir), []);
});

test("the issue's example config works verbatim with llmbench tune", async () => {
  const dir = tempDir();
  const example = {
    server: {
      command: ['llmbench', 'sim', '--preset', 'tiny', '--port', '{port}', '--max-num-seqs', '{max_num_seqs}', '--max-num-batched-tokens', '{max_num_batched_tokens}', '--max-model-len', '4096', '{enable_chunked_prefill}'],
      readyPath: '/v1/models',
      startTimeoutSec: 60,
    },
    space: {
      max_num_seqs: { type: 'int', min: 4, max: 256, log: true },
      max_num_batched_tokens: { type: 'choice', values: [512, 1024, 2048, 4096, 8192] },
      enable_chunked_prefill: { type: 'bool', true: '--enable-chunked-prefill', false: '--no-enable-chunked-prefill' },
    },
    constraints: ['vllm'],
    benchmark: { profile: { kind: 'concurrency', levels: [32] }, limits: { requests: 64 } },
    objective: { maximize: 'outputTokensPerSecond', slo: { 'ttftMs.p99': 2000 } },
    budget: { trials: 12 },
  };
  writeFileSync(join(dir, 'tune.json'), JSON.stringify(example));
  const child = startCli(['tune', '--config', 'tune.json', '--out', 'example.llmtune.json'], dir, { LLMBENCH_TUNE_TEST: dir });
  assert.equal(await exited(child), 0, child.output());
  const file = readTune(join(dir, 'example.llmtune.json'));
  assert.equal(file.trials.filter((t) => t.status !== 'refused').length, 12);
  assert.ok(file.trials.every((t) => t.status === 'complete' || t.status === 'refused'), JSON.stringify(file.trials.map((t) => [t.status, t.reason])));
  assert.ok(file.best && file.best.objective > 0);
  assert.equal(file.best.command[0], process.execPath);
  assert.match(child.output(), /Best: trial \d+, objective/);
  assert.deepEqual(liveSimulators(dir), []);
});

test('llmbench tune: bad input exits 2 with the field and what to do; an existing file is not overwritten without --resume', async () => {
  const dir = tempDir();
  writeFileSync(join(dir, 'bad.json'), JSON.stringify({ ...vllmLikeConfig(), budget: { trials: 0 } }));
  const bad = startCli(['tune', '--config', 'bad.json', '--out', 'x.llmtune.json'], dir, {});
  assert.equal(await exited(bad), 2);
  assert.match(bad.output(), /llmbench: --config bad.json: budget.trials: .*>0|budget\.trials/);
  const missing = startCli(['tune', '--config', 'tune.json'], dir, {});
  assert.equal(await exited(missing), 2);
  assert.match(missing.output(), /--out NAME.llmtune.json is required/);
  writeFileSync(join(dir, 'tune.json'), JSON.stringify(vllmLikeConfig()));
  writeFileSync(join(dir, 'x.llmtune.json'), '{}');
  const exists = startCli(['tune', '--config', 'tune.json', '--out', 'x.llmtune.json'], dir, {});
  assert.equal(await exited(exists), 2);
  assert.match(exists.output(), /x\.llmtune\.json exists: continue it with --resume, or choose another --out/);
  assert.equal(readFileSync(join(dir, 'x.llmtune.json'), 'utf8'), '{}');
});
