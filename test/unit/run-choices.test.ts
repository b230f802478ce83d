// The choices behind "Run LLM Benchmark", in the host's vscode-free modules: profile presets
// (presets.ts), endpoint settings and typed URLs (endpoint-settings.ts), the model list as the
// extension reads it through fetch from a real loopback server (fetch-probe.ts), command arguments
// (run-arguments.ts) and labels (labels.ts).
import assert from 'node:assert/strict';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import { test } from 'node:test';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ApiKindSchema, canonicalLabels, RunConfigSchema } from '../../src/format/config';
import { ReasoningFieldSchema } from '../../src/sim/protocol';
import { repoRoot } from '../helpers/limited-child';
import { forReading } from '../../src/results/read-result';
import { buildReportModel } from '../../src/views/report';
import { makeDocument } from '../helpers/result-documents';
import { apiKeySecretName, baseUrlProblem, parseEndpointSettings } from '../../src/host/endpoint-settings';
import { cleanLabels, LABEL_KEYS } from '../../src/host/labels';
import { PresetSettingsSchema, presets } from '../../src/run/presets';
import { translator } from '../../src/views/l10n';
import { parseRunArgument } from '../../src/host/run-arguments';
import { probeEndpointByFetch } from '../../src/host/fetch-probe';
import { closedPort } from '../helpers/cli-server';
import { listenOnLoopback } from '../helpers/loopback';

const endpoint = { baseUrl: 'http://127.0.0.1:8000/v1', model: 'm' };

test('every preset with the default settings is a valid run configuration of its kind', () => {
  const all = presets(PresetSettingsSchema.parse({}));
  assert.deepEqual(all.map((p) => p.id), ['quick', 'concurrency', 'rate', 'ramp', 'throughput', 'sweep']);
  for (const preset of all) {
    const parsed = RunConfigSchema.safeParse({ ...preset.config, endpoint });
    assert.ok(parsed.success, `${preset.id}: ${JSON.stringify(parsed.error?.issues)}`);
    assert.ok(parsed.data.limits.requests, `${preset.id} has a request limit`);
  }
  const concurrency = RunConfigSchema.parse({ ...all[1]!.config, endpoint });
  assert.deepEqual(concurrency.profile, { kind: 'concurrency', levels: [1, 2, 4, 8, 16, 32, 64] });
  assert.equal(concurrency.limits.requests, 100);
  const ramp = RunConfigSchema.parse({ ...all[3]!.config, endpoint });
  assert.deepEqual(ramp.profile, { kind: 'rate', ramp: { strategy: 'linear', startRate: 1, endRate: 16 }, arrival: 'poisson', burstiness: 1 });
  const sweep = RunConfigSchema.parse({ ...all[5]!.config, endpoint });
  assert.equal(sweep.profile.kind === 'sweep' && sweep.profile.rateCount, 8);
});

test('preset settings shape the presets', () => {
  const [, concurrency, rate] = presets(PresetSettingsSchema.parse({ requestsPerStep: 7, concurrencyLevels: [3, 9], requestRates: [0.5] }));
  assert.deepEqual(concurrency?.config.profile, { kind: 'concurrency', levels: [3, 9] });
  assert.deepEqual(concurrency?.config.limits, { requests: 7, warmup: 2, requestsPerConcurrency: 4 });
  assert.match(concurrency?.detail ?? '', /7 requests each or 4 per concurrent slot if more \(12 to 36 requests a step\)/);
  assert.match(rate?.detail ?? '', /0\.5 req\/s/);
  assert.equal(PresetSettingsSchema.safeParse({ concurrencyLevels: [0] }).success, false);
  const [quick] = presets(PresetSettingsSchema.parse({ inputTokens: 1024, inputTokensRange: 0.8, sharedPrefixTokens: 256, prefixCount: 4 }));
  assert.deepEqual(quick?.config.workload, { kind: 'synthetic', inputTokens: { mean: 1024, rangeRatio: 0.8 }, outputTokens: 128, sharedPrefixTokens: 256, prefixCount: 4 });
  assert.equal(PresetSettingsSchema.safeParse({ outputTokensRange: 1 }).success, false);
});

test('the presets in the display language: the Run command\'s profile question in Chinese, the same figures as in English', () => {
  const settings = PresetSettingsSchema.parse({ requestsPerStep: 7, concurrencyLevels: [3, 9], rampStrategy: 'exponential' });
  const zh = presets(settings, translator(JSON.parse(readFileSync(join(repoRoot, 'l10n', 'bundle.l10n.zh-cn.json'), 'utf8')) as Record<string, string>));
  const en = presets(settings);
  assert.deepEqual(zh.map((p) => p.label), ['快速检查', '并发数扫描', '请求速率扫描', '速率爬升', '吞吐量', '完整扫描']);
  assert.deepEqual(en.map((p) => p.label), ['Quick check', 'Concurrency sweep', 'Rate sweep', 'Rate ramp', 'Throughput', 'Full sweep']);
  assert.match(zh[1]!.detail, /每步 7 个请求.*每步 12 到 36 个请求/);
  assert.match(zh[3]!.detail, /指数升至 16 req\/s/);
  zh.forEach((preset, i) => {
    // Every figure of the English detail is in the Chinese one, and no English sentence is left.
    assert.deepEqual((preset.detail.match(/\d+(\.\d+)?/g) ?? []).sort(), (en[i]!.detail.match(/\d+(\.\d+)?/g) ?? []).sort(), preset.id);
    assert.doesNotMatch(preset.detail, /\b(requests?|step|each|tokens|sent|between|rises)\b/, preset.id);
    assert.deepEqual(preset.config, en[i]!.config);
  });
});

test('endpoint settings: valid entries are kept, each invalid one is named by position and field', () => {
  const { endpoints, problems } = parseEndpointSettings([
    { name: 'vLLM', baseUrl: 'http://gpu:8000/v1' },
    { name: 'bad', baseUrl: 'ftp://x' },
    { name: 'keyed', baseUrl: 'https://api.example.com/v1', apiKey: 'sk-should-not-be-here' },
  ]);
  assert.deepEqual(endpoints, [{ name: 'vLLM', baseUrl: 'http://gpu:8000/v1', api: 'chat', headers: {} }]);
  assert.equal(problems.length, 2);
  assert.match(problems[0] ?? '', /^llmBench\.endpoints\[1\]: baseUrl: /);
  assert.match(problems[1] ?? '', /^llmBench\.endpoints\[2\]: .*apiKey/);
  assert.deepEqual(parseEndpointSettings({}).problems, ['llmBench.endpoints must be a list of endpoints.']);
  assert.deepEqual(parseEndpointSettings(undefined), { endpoints: [], problems: [] });
});

test('one secret per base URL however it is spelled; typed URLs are checked', () => {
  assert.equal(apiKeySecretName('http://Host:8000/v1/'), apiKeySecretName('http://host:8000/v1'));
  assert.notEqual(apiKeySecretName('http://host:8000/v1'), apiKeySecretName('http://host:8001/v1'));
  assert.equal(baseUrlProblem('http://127.0.0.1:8000/v1'), undefined);
  assert.match(baseUrlProblem('localhost:8000') ?? '', /http:\/\/ or https:\/\//);
  assert.match(baseUrlProblem('not a url') ?? '', /full URL/);
});

test('the model pick lists models through fetch with the key and headers, and says what is wrong otherwise', async () => {
  let seen: IncomingHttpHeaders = {};
  let body = JSON.stringify({ object: 'list', data: [{ id: 'Qwen/Qwen2-7B-Instruct', object: 'model' }, { id: 'other' }] });
  const server = createServer((req, res) => {
    if (req.url === '/v1/models') seen = req.headers;
    res.writeHead(req.url === '/v1/models' ? 200 : 404, { 'content-type': 'application/json', server: 'uvicorn' });
    res.end(body);
  });
  const { baseUrl, close } = await listenOnLoopback(server);
  try {
    const listed = await probeEndpointByFetch(baseUrl, { headers: { 'x-team': 'bench' }, apiKey: 'sk-test' });
    assert.deepEqual(listed.models, ['Qwen/Qwen2-7B-Instruct', 'other']);
    assert.equal(listed.error, null);
    assert.equal(seen['authorization'], 'Bearer sk-test');
    assert.equal(seen['x-team'], 'bench');
    body = JSON.stringify({ models: ['a'] });
    assert.match((await probeEndpointByFetch(`${baseUrl}/`)).error ?? '', /not an OpenAI model list/);
    assert.match((await probeEndpointByFetch(`${baseUrl}/x`)).error ?? '', /HTTP 404.*no model list there/);
    const refused = await probeEndpointByFetch(`http://127.0.0.1:${await closedPort()}/v1`);
    assert.match(refused.error ?? '', /connection refused/);
  } finally {
    await close();
  }
});

test('run command arguments: a bare config, { config, simulator }, a config file, and what is wrong otherwise', () => {
  const bare = parseRunArgument({ endpoint, limits: { requests: 1 } });
  assert.ok(bare.ok);
  assert.deepEqual(bare.args, { config: { endpoint, limits: { requests: 1 } }, openResult: true, dryRun: false });
  const wrapped = parseRunArgument({ config: { limits: { requests: 1 } }, simulator: { preset: 'tiny' }, openResult: false });
  assert.ok(wrapped.ok);
  assert.deepEqual(wrapped.args.simulator, { preset: 'tiny' });
  assert.equal(wrapped.args.openResult, false);
  const file = parseRunArgument({ configFile: 'bench/c.json', dryRun: true });
  assert.ok(file.ok);
  assert.deepEqual(file.args, { config: {}, configFile: 'bench/c.json', openResult: true, dryRun: true });
  const typo = parseRunArgument({ config: {}, simulatr: {} });
  assert.ok(!typo.ok && /simulatr/.test(typo.error), JSON.stringify(typo));
  assert.equal(parseRunArgument('run').ok, false);
  assert.equal(parseRunArgument([1]).ok, false);
});

test('labels are trimmed and empty ones dropped', () => {
  assert.deepEqual(cleanLabels({ engine: ' vLLM 0.11 ', gpus: '', ' ': 'x', hardware: 'A100' }), { engine: 'vLLM 0.11', hardware: 'A100' });
});

test('one label key per meaning: the palette offers gpu, as the command line and the importers write it; files and remembered labels with hardware read as gpu', () => {
  // The palette called it `hardware`, the CLI and import `gpu`: runs made both ways grouped apart in the report.
  assert.ok(LABEL_KEYS.includes('gpu'));
  assert.ok(!(LABEL_KEYS as readonly string[]).includes('hardware'));
  assert.deepEqual(canonicalLabels({ hardware: '1x A100', engine: 'vLLM' }), { gpu: '1x A100', engine: 'vLLM' });
  // Both keys set: nothing is lost, the one key keeps its value.
  assert.deepEqual(canonicalLabels({ hardware: 'box', gpu: 'A100' }), { hardware: 'box', gpu: 'A100' });
  const old = makeDocument([{ name: 'concurrency@1', profile: { kind: 'concurrency', concurrency: 1 }, requests: 4, ttftMs: 10, gapMs: 2, chunks: 3 }], { labels: { hardware: '1x A100' } });
  const cli = makeDocument([{ name: 'concurrency@1', profile: { kind: 'concurrency', concurrency: 1 }, requests: 4, ttftMs: 12, gapMs: 2, chunks: 3 }], { labels: { gpu: '1x A100' } });
  assert.deepEqual(forReading(old).document.labels, { gpu: '1x A100' });
  const model = buildReportModel([{ name: 'palette', doc: forReading(old).document }, { name: 'cli', doc: forReading(cli).document }], { groupBy: 'gpu' });
  assert.deepEqual(model.runs.map((r) => r.group), ['1x A100', '1x A100'], 'both runs in one group');
  assert.deepEqual(model.labelKeys, ['gpu']);
});

test('settings for the new APIs: cancellation in every preset, an endpoint of the Responses API that reasons in tags, the package.json entries', () => {
  const cancelling = presets(PresetSettingsSchema.parse({ cancelRate: 0.1, cancelAfterMs: '200-800' }));
  for (const preset of cancelling) assert.deepEqual(RunConfigSchema.parse({ ...preset.config, endpoint }).cancel, { rate: 0.1, afterMs: { min: 200, max: 800 } }, preset.id);
  assert.ok(presets(PresetSettingsSchema.parse({})).every((preset) => !('cancel' in preset.config)), 'no cancellation by default');
  assert.equal(PresetSettingsSchema.safeParse({ cancelAfterMs: 'soon' }).success, false);
  const { endpoints, problems } = parseEndpointSettings([
    { name: 'qwen3', baseUrl: 'http://gpu:8000/v1', api: 'responses', reasoningTags: 'think' },
    { name: 'tei', baseUrl: 'http://gpu:8080/v1', api: 'embeddings' },
    { name: 'bad tag', baseUrl: 'http://gpu:8000/v1', reasoningTags: '<think>' },
  ]);
  assert.deepEqual(endpoints.map((e) => [e.api, e.reasoningTags]), [['responses', 'think'], ['embeddings', undefined]]);
  assert.match(problems[0] ?? '', /^llmBench\.endpoints\[2\]: reasoningTags: must be a tag name like think/);
  // The settings the extension contributes say the same as the schemas.
  const contributed = (JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as { contributes: { configuration: { properties: Record<string, { enum?: string[]; items?: { properties: Record<string, { enum?: string[] }> } }> } } }).contributes.configuration.properties;
  assert.deepEqual(contributed['llmBench.endpoints']?.items?.properties['api']?.enum, ApiKindSchema.options);
  assert.deepEqual(contributed['llmBench.simulator.reasoningField']?.enum, ReasoningFieldSchema.options);
  for (const key of ['cancelRate', 'cancelAfterMs', 'embeddingBatch']) assert.ok(`llmBench.${key}` in contributed, key);
});
