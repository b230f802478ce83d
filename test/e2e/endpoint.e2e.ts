// Running against a configured endpoint in the browser: a loopback server stands in for vLLM and
// the like, serving two models and recording every request. The model question offers what the
// server lists at /v1/models; an API key typed into "Set API Key"'s password box is sent as a
// Bearer token, and shows in no result file, log or webview.
import type { Page } from 'playwright-core';
import { startChatEndpoint, type ScriptedServer } from '../helpers/sse-server';
import {
  answerInputBox,
  answerQuickPick,
  extensionLogText,
  findWebview,
  quickPickLabels,
  runCommand,
  scenario,
  waitForFinishedResult,
  waitForNotification,
  waitForText,
  type Fixture,
  type ScenarioOptions,
} from './harness';

const SERVED_MODELS = ['org/model-alpha', 'model-beta'];
const ENDPOINT_NAME = 'Loopback test server';
const API_KEY = 'sk-e2e-5d1f0b9c3a7e42d6';

const servingTwoModels: Fixture<ScriptedServer> = {
  start: () => startChatEndpoint(SERVED_MODELS, { pieces: ['one ', 'two ', 'three'], usage: { prompt_tokens: 16, completion_tokens: 3 } }),
  stop: (server) => server.close(),
};

/** A workspace whose `llmBench.endpoints` names the loopback server, without a model. */
const options: ScenarioOptions<ScriptedServer> = {
  fixture: servingTwoModels,
  workspace: (server) => ({ settings: { 'llmBench.endpoints': [{ name: ENDPOINT_NAME, baseUrl: server.baseUrl }] } }),
};

/** Starts a quick check of `model` on the configured endpoint through the palette's questions. */
async function runQuickCheck(page: Page, model: string): Promise<string[]> {
  await runCommand(page, 'LLM Bench: Run LLM Benchmark');
  await answerQuickPick(page, ENDPOINT_NAME);
  const offered = await quickPickLabels(page, '(1/3): model');
  await answerQuickPick(page, model);
  await answerQuickPick(page, 'Quick check');
  await answerQuickPick(page, 'Start the benchmark');
  return offered;
}

function expectEqual<T>(what: string, actual: T, expected: T): void {
  if (JSON.stringify(actual) !== JSON.stringify(expected)) throw new Error(`${what}: expected ${JSON.stringify(expected)}, saw ${JSON.stringify(actual)}`);
}

scenario(
  'the model question offers the models the endpoint serves; the chosen one is run and recorded',
  async ({ page, workspace, fixture: server }) => {
    const offered = await runQuickCheck(page, SERVED_MODELS[1]!);
    expectEqual('models offered', offered, [...SERVED_MODELS, 'Type a model name…']);
    const { document } = await waitForFinishedResult(workspace);
    expectEqual('status', document.status, 'complete');
    expectEqual('endpoint.model in the result', document.endpoint.model, SERVED_MODELS[1]);
    const requested = server.requests.filter((r) => r.method === 'POST').map((r) => (r.body as { model?: unknown }).model);
    if (requested.length === 0 || requested.some((model) => model !== SERVED_MODELS[1])) throw new Error(`the server was asked for ${JSON.stringify([...new Set(requested)])}`);
  },
  options,
);

scenario(
  'Set API Key through its password box: the key is sent as a Bearer token, and is in no result, log or webview',
  async ({ page, workspace, server: codeServer, fixture: server }) => {
    await runCommand(page, 'LLM Bench: Set API Key');
    await answerQuickPick(page, ENDPOINT_NAME);
    await answerInputBox(page, API_KEY, { prompt: `API key for ${server.baseUrl}`, password: true });
    await waitForNotification(page, `API key stored for ${server.baseUrl}`);

    await runQuickCheck(page, SERVED_MODELS[0]!);
    const { text } = await waitForFinishedResult(workspace);
    const authorizations = new Set(server.requests.map((r) => `${r.method} ${r.headers.authorization}`));
    expectEqual('Authorization headers received', [...authorizations].sort(), [`GET Bearer ${API_KEY}`, `POST Bearer ${API_KEY}`]);
    if (text.includes(API_KEY)) throw new Error('the result file holds the API key');

    // The live panel, on screen, shows the finished run; no frame of the page holds the key.
    await page.locator('.tabs-container .tab', { hasText: 'LLM Bench: Live' }).click();
    const live = await findWebview(page, { title: 'LLM Bench: Live', text: 'Finished (complete)' });
    await waitForText(live, SERVED_MODELS[0]!);
    for (const frame of page.frames()) {
      const html = await frame.evaluate(() => document.documentElement.outerHTML).catch(() => '');
      if (html.includes(API_KEY)) throw new Error(`the frame ${frame.url()} holds the API key`);
    }

    // The log tells what was sent where, and never the key: the whole file, then the Output panel's view of it.
    const log = extensionLogText(codeServer);
    if (log.includes(API_KEY)) throw new Error('the log holds the API key');
    for (const line of [`Stored an API key for ${server.baseUrl}`, `requests to ${server.baseUrl}, model ${SERVED_MODELS[0]}`, 'API key set']) {
      if (!log.includes(line)) throw new Error(`the log does not say "${line}"`);
    }
    await runCommand(page, 'LLM Bench: Show Log');
    const output = page.locator('.part.panel .monaco-editor .view-lines');
    await output.filter({ hasText: 'ended complete' }).waitFor({ state: 'visible', timeout: 30_000 });
    if ((await output.innerText()).includes(API_KEY)) throw new Error('the Output panel shows the API key');
  },
  options,
);
