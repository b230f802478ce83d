/**
 * How far vLLM's chat-client definitions are from ours against a real llama.cpp server
 * (docs/metrics.md, "vLLM's first token and end"): vLLM takes the first chunk that has `choices`
 * (the role-only chunk included) as the first token and ends a request at the last chunk with
 * `choices` (the empty finish chunk included); we take the first and last chunk with content.
 * Each SSE event is timed at the socket read that carried it, as both clients do.
 *   npm run build && LLMBENCH_TOOLS=... node dist/bench/vllm-role-chunk.js [requests] [prompt words (150; a slot holds 1024 tokens)]
 */
import { startLlamaServer, LLAMA_MODEL_ID } from '../helpers/llama-server';

interface Times {
  sent: number;
  firstChoices: number;
  firstContent: number;
  lastContent: number;
  lastChoices: number;
}

async function measure(baseUrl: string, prompt: string): Promise<Times> {
  const sent = performance.now();
  const response = await fetch(`${baseUrl}/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model: LLAMA_MODEL_ID, stream: true, max_tokens: 32, messages: [{ role: 'user', content: prompt }] }),
  });
  if (!response.ok || !response.body) throw new Error(`llama-server answered ${response.status}: ${await response.text()}`);
  const times: Partial<Times> = { sent };
  const decoder = new TextDecoder();
  let pending = '';
  const reader = response.body.getReader();
  for (;;) {
    const { done, value: bytes } = await reader.read();
    if (done) break;
    const now = performance.now();
    pending += decoder.decode(bytes, { stream: true });
    const events = pending.split('\n\n');
    pending = events.pop() ?? '';
    for (const event of events) {
      const data = event.replace(/^data: ?/, '').trim();
      if (!data || data === '[DONE]') continue;
      const chunk = JSON.parse(data) as { choices?: { delta?: { content?: string | null; reasoning_content?: string | null } }[] };
      const choice = chunk.choices?.[0];
      if (!choice) continue;
      times.firstChoices ??= now;
      times.lastChoices = now;
      if (choice.delta?.content || choice.delta?.reasoning_content) {
        times.firstContent ??= now;
        times.lastContent = now;
      }
    }
  }
  if (times.firstChoices === undefined || times.firstContent === undefined || times.lastContent === undefined || times.lastChoices === undefined) {
    throw new Error('a response without content');
  }
  return times as Times;
}

function describe(label: string, values: number[]): string {
  const sorted = [...values].sort((a, b) => a - b);
  const mean = sorted.reduce((a, b) => a + b, 0) / sorted.length;
  const at = (p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
  return `${label.padEnd(44)} mean ${mean.toFixed(3)}  p50 ${at(50).toFixed(3)}  p99 ${at(99).toFixed(3)}  max ${(sorted.at(-1) ?? NaN).toFixed(3)} ms`;
}

async function main(): Promise<void> {
  const requests = Number(process.argv[2] ?? 60);
  const words = Number(process.argv[3] ?? 150);
  const server = await startLlamaServer();
  try {
    const rows: Times[] = [];
    for (let i = 0; i < requests; i++) {
      // A different prompt each time, so llama.cpp's prompt cache does not skip the prefill.
      const prompt = `${i} ` + Array.from({ length: words }, (_, w) => `word${(w * 7 + i) % 97}`).join(' ');
      rows.push(await measure(server.baseUrl, prompt));
    }
    console.log(`llama-server (${server.model}), ${requests} sequential streamed chat requests, ${words}-word prompts, max_tokens 32`);
    console.log(describe('our TTFT (first content chunk)', rows.map((r) => r.firstContent - r.sent)));
    console.log(describe("vLLM's TTFT (first chunk with choices)", rows.map((r) => r.firstChoices - r.sent)));
    console.log(describe('TTFT difference (ours - vLLM)', rows.map((r) => r.firstContent - r.firstChoices)));
    console.log(describe('end difference (vLLM - ours)', rows.map((r) => r.lastChoices - r.lastContent)));
    const together = rows.filter((r) => r.firstChoices === r.firstContent).length;
    console.log(`role chunk in the same socket read as the first token: ${together} of ${requests}`);
  } finally {
    server.stop();
  }
}

void main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
