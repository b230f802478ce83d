/**
 * The endpoint probe against loopback servers that answer each engine's identifying routes the
 * way that engine does (shapes taken from the engines' own sources and documentation), the real
 * simulator, and the ways a model list cannot be read. Then its use at the start of a run.
 */
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import { performance } from 'node:perf_hooks';
import { RunConfigSchema, type RunConfigInput } from '../../src/format/config';
import type { RunEvent } from '../../src/format/events';
import { probeEndpoint } from '../../src/observe/probe';
import { runBenchmark } from '../../src/load/runner';
import { startSimServer } from '../../src/sim/index';
import { closedPort } from '../helpers/cli-server';
import { listenOnLoopback } from '../helpers/loopback';
import { chatCompletionBody } from '../helpers/sse-server';

interface Route {
  status?: number;
  headers?: Record<string, string>;
  /** An object is sent as JSON, a string as it is. */
  body: unknown;
}

interface FakeEngine {
  baseUrl: string;
  root: string;
  /** Every request as `METHOD /path`, in arrival order, with its headers. */
  readonly seen: { line: string; headers: IncomingHttpHeaders }[];
}

/**
 * A server answering the given routes and 404 (FastAPI's body) elsewhere, every response with
 * `headers` (a `server` header, say). POST /v1/chat/completions answers one non-streamed completion.
 */
async function fakeEngine(t: TestContext, routes: Record<string, Route>, headers: Record<string, string> = {}): Promise<FakeEngine> {
  const seen: FakeEngine['seen'] = [];
  const server = createServer((req, res) => {
    const path = (req.url ?? '').split('?')[0] ?? '';
    seen.push({ line: `${req.method} ${path}`, headers: req.headers });
    req.resume();
    req.on('end', () => {
      if (req.method === 'POST' && path === '/v1/chat/completions') {
        res.writeHead(200, { ...headers, 'content-type': 'application/json' }).end(chatCompletionBody('four words of text', { prompt_tokens: 8, completion_tokens: 4 }));
        return;
      }
      const route = req.method === 'GET' ? routes[path] : undefined;
      if (route === undefined) {
        res.writeHead(404, { ...headers, 'content-type': 'application/json' }).end('{"detail":"Not Found"}');
        return;
      }
      const text = typeof route.body === 'string' ? route.body : JSON.stringify(route.body);
      const type = typeof route.body === 'string' ? 'text/plain; charset=utf-8' : 'application/json';
      res.writeHead(route.status ?? 200, { 'content-type': type, ...headers, ...route.headers }).end(text);
    });
  });
  const { port, baseUrl, close } = await listenOnLoopback(server);
  t.after(close);
  return { baseUrl, root: `http://127.0.0.1:${port}`, seen };
}

const modelList = (ownedBy: string, ids = ['served-model']) => ({
  object: 'list',
  data: ids.map((id) => ({ id, object: 'model', created: 1730000000, owned_by: ownedBy })),
});

const VLLM_METRICS = [
  '# HELP vllm:num_requests_running Number of requests currently running on GPU.',
  '# TYPE vllm:num_requests_running gauge',
  'vllm:num_requests_running{model_name="served-model"} 0.0',
  '',
].join('\n');

test('vLLM: owned_by "vllm" and vllm: metric names name it, GET /version gives the version', async (t) => {
  const engine = await fakeEngine(
    t,
    {
      '/v1/models': { body: { object: 'list', data: [{ id: 'Qwen/Qwen2-7B', object: 'model', owned_by: 'vllm', root: 'Qwen/Qwen2-7B', max_model_len: 32768 }] } },
      '/version': { body: { version: '0.6.3.post1' } },
      '/metrics': { body: VLLM_METRICS },
    },
    { server: 'uvicorn' },
  );
  const probe = await probeEndpoint(engine.baseUrl);
  assert.deepEqual(probe.models, ['Qwen/Qwen2-7B']);
  assert.equal(probe.reachable, true);
  assert.equal(probe.error, null);
  assert.equal(probe.engine?.name, 'vLLM');
  assert.equal(probe.engine?.version, '0.6.3.post1');
  assert.match(probe.engine?.evidence ?? '', /owned_by "vllm"/);
  assert.match(probe.engine?.evidence ?? '', /vllm:\* metric names/);
  assert.match(probe.engine?.evidence ?? '', /GET \/version gives version "0\.6\.3\.post1"/);
});

test('vLLM with an API key it does not get: the list is refused with advice, the engine is still known from its open routes', async (t) => {
  const engine = await fakeEngine(t, {
    '/v1/models': { status: 401, body: { error: 'Unauthorized' } },
    '/version': { body: { version: '0.8.5' } },
    '/metrics': { body: VLLM_METRICS },
  });
  const probe = await probeEndpoint(engine.baseUrl);
  assert.deepEqual(probe.models, []);
  assert.equal(probe.reachable, true);
  assert.match(probe.error ?? '', /HTTP 401/);
  assert.match(probe.error ?? '', /API key/);
  assert.deepEqual([probe.engine?.name, probe.engine?.version], ['vLLM', '0.8.5']);
});

test('the API key and headers go with every probe request; a key echoed back never reaches the message', async (t) => {
  const key = 'sk-probe-secret-123';
  const engine = await fakeEngine(t, {
    '/v1/models': { status: 403, body: `forbidden: Bearer ${key} is not a key here` },
  });
  const probe = await probeEndpoint(engine.baseUrl, { apiKey: key, headers: { 'x-team': 'bench' } });
  assert.match(probe.error ?? '', /HTTP 403/);
  assert.ok(!(probe.error ?? '').includes(key), probe.error ?? '');
  assert.ok(engine.seen.length >= 8, `${engine.seen.length} requests`);
  for (const { line, headers } of engine.seen) {
    assert.equal(headers.authorization, `Bearer ${key}`, line);
    assert.equal(headers['x-team'], 'bench', line);
  }
  assert.ok(engine.seen.every(({ line }) => line.startsWith('GET ')), 'the probe only reads');
});

for (const route of ['/get_server_info', '/server_info']) {
  test(`SGLang: ${route} gives its server arguments and version`, async (t) => {
    const engine = await fakeEngine(t, {
      '/v1/models': { body: { object: 'list', data: [{ id: 'qwen/qwen2.5-0.5b-instruct', object: 'model', owned_by: 'sglang', root: 'qwen/qwen2.5-0.5b-instruct', max_model_len: 32768 }] } },
      [route]: { body: { model_path: 'qwen/qwen2.5-0.5b-instruct', tokenizer_path: 'qwen/qwen2.5-0.5b-instruct', tp_size: 1, max_total_num_tokens: 200000, internal_states: [{}], version: '0.4.6.post5' } },
    });
    const probe = await probeEndpoint(engine.baseUrl);
    assert.deepEqual([probe.engine?.name, probe.engine?.version], ['SGLang', '0.4.6.post5']);
    assert.match(probe.engine?.evidence ?? '', new RegExp(`GET ${route}`));
    assert.match(probe.engine?.evidence ?? '', /owned_by "sglang"/);
  });
}

test('SGLang by its metric names alone, version unknown', async (t) => {
  const engine = await fakeEngine(t, {
    '/v1/models': { body: modelList('someone') },
    '/metrics': { body: '# HELP sglang:num_running_reqs The number of running requests.\nsglang:num_running_reqs{model_name="m"} 0.0\n' },
  });
  const probe = await probeEndpoint(engine.baseUrl);
  assert.deepEqual([probe.engine?.name, probe.engine?.version], ['SGLang', null]);
});

test('llama.cpp: /props build_info is the version; its Server header and owned_by "llamacpp" agree', async (t) => {
  const engine = await fakeEngine(
    t,
    {
      // Recent llama-server lists the model twice: Ollama-style `models` and OpenAI `data`.
      '/v1/models': { body: { models: [{ name: 'stories', model: 'stories' }], object: 'list', data: [{ id: 'stories', object: 'model', created: 1, owned_by: 'llamacpp', meta: { n_ctx_train: 128 } }] } },
      '/props': { body: { default_generation_settings: { n_ctx: 4096 }, total_slots: 4, model_path: '/models/test.gguf', chat_template: '', build_info: 'b4589-1a2b3c4' } },
    },
    { server: 'llama.cpp' },
  );
  const probe = await probeEndpoint(engine.baseUrl);
  assert.deepEqual(probe.models, ['stories']);
  assert.deepEqual([probe.engine?.name, probe.engine?.version], ['llama.cpp', 'b4589-1a2b3c4']);
  assert.match(probe.engine?.evidence ?? '', /build_info "b4589-1a2b3c4"; response header server: llama\.cpp; .*owned_by "llamacpp"/);
});

test('an older llama.cpp: /props without build_info, still named, version unknown', async (t) => {
  const engine = await fakeEngine(t, {
    '/v1/models': { body: modelList('llamacpp') },
    '/props': { body: { system_prompt: '', default_generation_settings: { n_ctx: 2048 }, total_slots: 1 } },
  });
  const probe = await probeEndpoint(engine.baseUrl);
  assert.deepEqual([probe.engine?.name, probe.engine?.version], ['llama.cpp', null]);
});

test('TGI: /info gives model_id and version', async (t) => {
  const engine = await fakeEngine(t, {
    '/v1/models': { body: modelList('mistralai/Ministral-8B-Instruct-2410', ['tgi']) },
    '/info': {
      body: {
        model_id: 'mistralai/Ministral-8B-Instruct-2410',
        model_sha: '4847e87e',
        max_concurrent_requests: 128,
        max_input_tokens: 32767,
        router: 'text-generation-router',
        version: '3.2.1',
        sha: '4d28897b',
        docker_label: 'sha-4d28897',
      },
    },
  });
  const probe = await probeEndpoint(engine.baseUrl);
  assert.deepEqual([probe.engine?.name, probe.engine?.version], ['TGI', '3.2.1']);
});

test('Ollama: /api/version', async (t) => {
  const engine = await fakeEngine(t, {
    '/v1/models': { body: modelList('library', ['llama3.2:latest']) },
    '/api/version': { body: { version: '0.5.7' } },
  });
  const probe = await probeEndpoint(engine.baseUrl);
  assert.deepEqual(probe.models, ['llama3.2:latest']);
  assert.deepEqual([probe.engine?.name, probe.engine?.version], ['Ollama', '0.5.7']);
});

for (const [owner, name] of [
  ['lmdeploy', 'lmdeploy'],
  ['MindIE Server', 'MindIE'],
] as const) {
  test(`${name}: named by the owned_by it gives its models`, async (t) => {
    const engine = await fakeEngine(t, { '/v1/models': { body: modelList(owner) } });
    const probe = await probeEndpoint(engine.baseUrl);
    assert.deepEqual(probe.engine, { name, version: null, evidence: `/v1/models lists models owned_by "${owner}"` });
  });
}

test('GET /version alone names no engine: too many servers have one', async (t) => {
  const engine = await fakeEngine(t, { '/v1/models': { body: modelList('openai') }, '/version': { body: { version: '1.0.0' } } });
  const probe = await probeEndpoint(engine.baseUrl);
  assert.deepEqual(probe.models, ['served-model']);
  assert.equal(probe.engine, null);
  assert.equal(probe.error, null);
});

test('a base URL under a path prefix: the model list under it, the engine routes at the prefix', async (t) => {
  const engine = await fakeEngine(t, {
    '/proxy/v1/models': { body: modelList('vllm') },
    '/proxy/version': { body: { version: '0.7.0' } },
  });
  const probe = await probeEndpoint(`${engine.root}/proxy/v1/`);
  assert.deepEqual(probe.models, ['served-model']);
  assert.deepEqual([probe.engine?.name, probe.engine?.version], ['vLLM', '0.7.0']);
});

test('the simulator names itself, although it speaks vLLM metric names', async (t) => {
  const sim = await startSimServer({ preset: 'tiny' });
  t.after(() => sim.close());
  const probe = await probeEndpoint(sim.baseUrl);
  assert.deepEqual(probe.models, [sim.model]);
  assert.equal(probe.error, null);
  assert.equal(probe.engine?.name, 'llmbench-sim');
  assert.match(probe.engine?.evidence ?? '', /owned_by "llmbench-sim"/);
});

test('nothing listening: not reachable, says to start the server, and answers at once', async () => {
  const port = await closedPort();
  const started = performance.now();
  const probe = await probeEndpoint(`http://127.0.0.1:${port}/v1`);
  const elapsed = performance.now() - started;
  assert.deepEqual(probe.models, []);
  assert.equal(probe.reachable, false);
  assert.equal(probe.engine, null);
  assert.match(probe.error ?? '', /connection refused.*start the server/);
  assert.ok(elapsed < 1000, `${elapsed} ms`);
});

test('a base URL without /v1: the 404 says what the base URL should be', async (t) => {
  const engine = await fakeEngine(t, { '/v1/models': { body: modelList('vllm') } });
  const probe = await probeEndpoint(engine.root);
  assert.equal(probe.reachable, true);
  assert.match(probe.error ?? '', /HTTP 404.*ending in \/v1/);
});

test('a web page instead of an API, and JSON of another shape, are told apart', async (t) => {
  const html = await fakeEngine(t, { '/v1/models': { body: '<!DOCTYPE html><html><body>Login</body></html>' } });
  assert.match((await probeEndpoint(html.baseUrl)).error ?? '', /did not answer JSON \(it began "<!DOCTYPE html>/);
  const other = await fakeEngine(t, { '/v1/models': { body: { models: ['a', 'b'] } } });
  const probe = await probeEndpoint(other.baseUrl);
  assert.match(probe.error ?? '', /not an OpenAI model list.*data/);
  assert.deepEqual(probe.models, []);
});

test('a model list without owned_by is still a model list', async (t) => {
  const engine = await fakeEngine(t, { '/v1/models': { body: { object: 'list', data: [{ id: 'a' }, { id: 'b', object: 'model' }] } } });
  const probe = await probeEndpoint(engine.baseUrl);
  assert.equal(probe.error ?? null, null);
  assert.deepEqual(probe.models, ['a', 'b']);
});

test('a base URL that is not http(s) is refused without a request', async () => {
  for (const url of ['ftp://127.0.0.1/v1', 'localhost:8000/v1', '']) {
    const probe = await probeEndpoint(url);
    assert.equal(probe.reachable, false);
    assert.match(probe.error ?? '', /not an http:\/\/ or https:\/\/ URL/);
  }
});

/** Accepts connections and never answers. */
async function silentServer(t: TestContext): Promise<string> {
  const server = createServer(() => undefined);
  const { baseUrl, close } = await listenOnLoopback(server);
  t.after(close);
  return baseUrl;
}

test('a server that never answers: the whole probe ends at its deadline', async (t) => {
  const baseUrl = await silentServer(t);
  const started = performance.now();
  const probe = await probeEndpoint(baseUrl, { timeoutMs: 300 });
  const elapsed = performance.now() - started;
  assert.equal(probe.reachable, false);
  assert.match(probe.error ?? '', /No answer from .* within 300 ms/);
  assert.ok(elapsed >= 250 && elapsed < 2000, `${elapsed} ms`);
});

test('cancelling ends the probe at once', async (t) => {
  const baseUrl = await silentServer(t);
  const controller = new AbortController();
  setTimeout(() => controller.abort(), 50);
  const started = performance.now();
  const probe = await probeEndpoint(baseUrl, { signal: controller.signal, timeoutMs: 5000 });
  assert.equal(probe.error, 'The probe was cancelled.');
  assert.ok(performance.now() - started < 2000);
});

function runConfig(baseUrl: string, labels: Record<string, string>): RunConfigInput {
  return {
    endpoint: { baseUrl, model: 'served-model' },
    request: { stream: false },
    workload: { kind: 'synthetic', inputTokens: 8, outputTokens: 4 },
    limits: { requests: 2 },
    labels,
    // These servers have no /metrics: the requests counted here are the probe's and the run's own.
    serverMetrics: { url: 'off' },
  };
}

test('a run fills the engine labels from the probe, logs how, and leaves the echoed config as given', async (t) => {
  const engine = await fakeEngine(t, {
    '/v1/models': { body: modelList('vllm') },
    '/version': { body: { version: '0.6.3' } },
  });
  const events: RunEvent[] = [];
  const doc = await runBenchmark(RunConfigSchema.parse(runConfig(engine.baseUrl, { gpu: 'none' })), { onEvent: (e) => events.push(e) });
  assert.equal(doc.status, 'complete', doc.statusReason ?? '');
  assert.deepEqual(doc.labels, { engine: 'vLLM', engineVersion: '0.6.3', gpu: 'none' });
  assert.deepEqual(doc.config.labels, { gpu: 'none' });
  assert.equal(events[0]?.type, 'run-start');
  const log = events[1];
  assert.ok(log?.type === 'log' && log.level === 'info', JSON.stringify(log));
  assert.match(log.message, /^Engine: vLLM 0\.6\.3, recognised from \/v1\/models lists models owned_by "vllm"; GET \/version/);
  const firstPost = engine.seen.findIndex((s) => s.line.startsWith('POST'));
  assert.ok(firstPost >= 8 && engine.seen.slice(0, firstPost).every((s) => s.line.startsWith('GET')), 'the probe is done before the load starts');
});

test('a run whose labels name the engine sends no probe; an unknown engine is logged and changes nothing', async (t) => {
  const engine = await fakeEngine(t, { '/v1/models': { body: modelList('vllm') } });
  const labelled = await runBenchmark(RunConfigSchema.parse(runConfig(engine.baseUrl, { engine: 'my-build' })), {});
  assert.deepEqual(labelled.labels, { engine: 'my-build' });
  assert.deepEqual(engine.seen.map((s) => s.line), ['POST /v1/chat/completions', 'POST /v1/chat/completions']);

  const unknown = await fakeEngine(t, { '/v1/models': { body: modelList('openai') } });
  const events: RunEvent[] = [];
  const doc = await runBenchmark(RunConfigSchema.parse(runConfig(unknown.baseUrl, {})), { onEvent: (e) => events.push(e) });
  assert.equal(doc.status, 'complete');
  assert.deepEqual(doc.labels, {});
  assert.ok(events.some((e) => e.type === 'log' && /was not recognised; label it yourself/.test(e.message)));
});

test('a run against nothing is not stopped by the probe: its own requests report the failure', async () => {
  const port = await closedPort();
  const events: RunEvent[] = [];
  const doc = await runBenchmark(RunConfigSchema.parse(runConfig(`http://127.0.0.1:${port}/v1`, {})), { onEvent: (e) => events.push(e) });
  assert.equal(doc.status, 'failed');
  assert.ok(doc.steps[0]?.requests.every((r) => r.error?.kind === 'connect'));
  assert.ok(events.some((e) => e.type === 'log' && /not recognised \(Nothing is listening/.test(e.message)));
});
