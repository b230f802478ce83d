/**
 * `node dist/bench/sim.js [--requests N] [--scenario 1,2,3] [--deployment worker,process]`: the
 * simulator's timing accuracy under load, at 256 concurrent streams driven by the engine's client
 * (closed loop, streaming chat, `ignore_eos`). Two deployments share this machine's cores with the
 * client differently:
 *  - worker: the simulator in a worker thread of this process (`startSimServer({ inWorker: true })`,
 *    as the extension and `llmbench run --sim` start it);
 *  - process: `llmbench sim` in a process of its own (dist/cli.js), as a user serves it.
 * Prints, per scenario and deployment, how late tokens were written against their model time (the
 * goal: p99 <= 1 ms at 256 streams), how late the client received them, the throughput and the
 * CPU used. Figures go to docs/performance.md ("## Simulator").
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { createInterface } from 'node:readline';
import { createDispatcher, sendRequest } from '../../src/load/client';
import { RunConfigSchema } from '../../src/format/config';
import type { RequestRecord } from '../../src/format/result';
import { parseSimArgs } from '../../src/cli/commands/sim';
import { computeStats } from '../../src/results/stats';
import { startSimServer, tokenLateness, type RequestTrace } from '../../src/sim';
import { TraceResponseSchema } from '../../src/sim/trace';
import { CHARS_PER_TOKEN } from '../../src/workload/tokens';
import { ESTIMATE_COUNTER } from '../../src/workload/tokenizer';

const CONCURRENCY = 256;
const DEPLOYMENTS = ['worker', 'process'] as const;
type Deployment = (typeof DEPLOYMENTS)[number];

const scenarios: { name: string; args: string[]; inputTokens: number; outputTokens: number }[] = [
  {
    name: 'qwen2-7b-a100-vllm, real time (~2,000 tok/s; ~45 ms steps at 256 sequences, tokens 0.04 ms apart)',
    args: ['--preset', 'qwen2-7b-a100-vllm'],
    inputTokens: 512,
    outputTokens: 128,
  },
  {
    name: 'the same with every token of a step due at the step end (--output-per-seq-ms 0)',
    args: ['--preset', 'qwen2-7b-a100-vllm', '--output-per-seq-ms', '0'],
    inputTokens: 512,
    outputTokens: 128,
  },
  {
    name: 'stress: tiny with max-num-seqs 256 (~6 ms steps, ~40,000 tok/s asked)',
    args: ['--preset', 'tiny', '--max-num-seqs', '256', '--max-num-batched-tokens', '8192', '--kv-cache-tokens', '262144'],
    inputTokens: 256,
    outputTokens: 128,
  },
];

function option(name: string): string | undefined {
  const index = process.argv.indexOf(name);
  return index === -1 ? undefined : process.argv[index + 1];
}

const requests = Number(option('--requests') ?? 384);
const chosenScenarios = (option('--scenario') ?? '1,2,3').split(',').map(Number);
const chosenDeployments = (option('--deployment') ?? DEPLOYMENTS.join(',')).split(',');
if (!Number.isInteger(requests) || requests < 1 || requests > 500) {
  throw new Error('--requests must be a whole number from 1 to 500 (prompt lengths tell requests apart, see promptTokensOf)');
}
if (chosenScenarios.some((n) => !scenarios[n - 1])) throw new Error(`--scenario takes numbers from 1 to ${scenarios.length}, comma-separated`);
if (chosenDeployments.some((d) => !(DEPLOYMENTS as readonly string[]).includes(d))) throw new Error(`--deployment takes ${DEPLOYMENTS.join(', ')}`);

/**
 * Each request gets a prompt length of its own around the scenario's (the mean stays the same),
 * so that its trace is found by `promptTokens`; the leading index keeps prompts from sharing a
 * cached prefix.
 */
function promptTokensOf(index: number, meanTokens: number): number {
  return meanTokens - Math.floor(requests / 2) + index;
}

interface Simulator {
  baseUrl: string;
  model: string;
  trace(): Promise<RequestTrace[]>;
  /** CPU seconds the simulator's process used so far, when it is a process of its own (Linux only). */
  cpuSec(): number | null;
  close(): Promise<void>;
}

async function startInWorker(args: string[]): Promise<Simulator> {
  const options = parseSimArgs(args);
  if (options === 'help') throw new Error('unreachable: no --help in scenario arguments');
  const sim = await startSimServer({ ...options, inWorker: true, workerScript: join(__dirname, '..', 'sim-worker.js') });
  return { baseUrl: sim.baseUrl, model: sim.model, trace: () => sim.trace(), cpuSec: () => null, close: () => sim.close() };
}

async function startProcess(args: string[]): Promise<Simulator> {
  // A session of its own, as when a user starts it in another terminal (where Linux schedules
  // with autogroups, a session's threads share the cores fairly with other sessions').
  const child: ChildProcess = spawn(process.execPath, [join(__dirname, '..', 'cli.js'), 'sim', ...args], {
    stdio: ['ignore', 'pipe', 'inherit'],
    detached: true,
  });
  const stopChild = (): void => void child.kill('SIGTERM');
  process.once('exit', stopChild);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const baseUrl = await new Promise<string>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`llmbench sim exited (code ${code}) before it served`)));
    createInterface({ input: child.stdout! }).on('line', (line) => {
      const served = /serving (http:\/\/127\.0\.0\.1:\d+\/v1)/.exec(line);
      if (served) resolve(served[1] as string);
    });
  });
  const origin = baseUrl.replace(/\/v1$/, '');
  const models = (await (await fetch(`${baseUrl}/models`)).json()) as { data: { id: string }[] };
  return {
    baseUrl,
    model: models.data[0]?.id ?? '',
    trace: async () => TraceResponseSchema.parse(await (await fetch(`${origin}/sim/trace`)).json()).requests,
    cpuSec: () => processCpuSec(child.pid as number),
    close: async () => {
      process.off('exit', stopChild);
      stopChild();
      await exited;
    },
  };
}

function processCpuSec(pid: number): number | null {
  try {
    // /proc/PID/stat: fields 14 and 15 (after the parenthesised name) are user and system ticks.
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return null;
  }
}

/** The engine's client at CONCURRENCY streams in a closed loop; records in request order. */
async function drive(sim: Simulator, inputTokens: number, outputTokens: number): Promise<{ records: RequestRecord[]; stepStartMs: number }> {
  const config = RunConfigSchema.parse({
    endpoint: { baseUrl: sim.baseUrl, model: sim.model, api: 'chat' },
    request: { stream: true, extraBody: { ignore_eos: true } },
    limits: { requests },
  });
  const dispatcher = createDispatcher(CONCURRENCY, config.request);
  const context = {
    config,
    apiKey: undefined,
    dispatcher,
    signal: new AbortController().signal,
    stepStartMs: performance.now(),
    tokenCounter: ESTIMATE_COUNTER,
  };
  const records: RequestRecord[] = [];
  let next = 0;
  const loop = async (): Promise<void> => {
    while (next < requests) {
      const index = next++;
      const tokens = promptTokensOf(index, inputTokens);
      const prompt = `${index} `.padEnd(tokens * CHARS_PER_TOKEN, 'x');
      records[index] = await sendRequest(
        { prompt, maxTokens: outputTokens, inputTokens: { count: tokens, source: 'estimate' } },
        { index, warmup: false, scheduledMs: performance.now() - context.stepStartMs },
        context,
      );
    }
  };
  try {
    await Promise.all(Array.from({ length: CONCURRENCY }, loop));
  } finally {
    await dispatcher.destroy();
  }
  return { records, stepStartMs: context.stepStartMs };
}

/** When the client received each token minus its model time (both epoch milliseconds on this machine). */
function receiveLateness(records: RequestRecord[], stepStartMs: number, traces: RequestTrace[], inputTokens: number): number[] {
  const byPrompt = new Map(traces.map((t) => [t.promptTokens, t]));
  const values: number[] = [];
  records.forEach((record, index) => {
    const trace = byPrompt.get(promptTokensOf(index, inputTokens));
    if (!trace || trace.tokenMs.length !== record.chunkMs.length) {
      throw new Error(`request ${index}: no trace with as many tokens as the client received (${record.chunkMs.length})`);
    }
    record.chunkMs.forEach((ms, i) => values.push(performance.timeOrigin + stepStartMs + ms - (trace.tokenMs[i] as number)));
  });
  return values;
}

const fmt = (ms: number | null | undefined): string => (ms == null ? '-' : ms.toFixed(3));
const percentiles = (s: ReturnType<typeof computeStats>): string =>
  `p50 ${fmt(s?.p50)} ms, p90 ${fmt(s?.p90)} ms, p99 ${fmt(s?.p99)} ms, max ${fmt(s?.max)} ms (n=${s?.count ?? 0})`;
const load = (): string => loadavg().map((l) => l.toFixed(2)).join(' ');

async function main(): Promise<void> {
  console.log(`Simulator timing: ${CONCURRENCY} concurrent streams, ${requests} requests per scenario (node ${process.version})`);
  console.log(`load average before: ${load()}\n`);
  for (const number of chosenScenarios) {
    const scenario = scenarios[number - 1] as (typeof scenarios)[number];
    for (const deployment of chosenDeployments as Deployment[]) {
      const sim = deployment === 'worker' ? await startInWorker(scenario.args) : await startProcess(scenario.args);
      try {
        const cpuBefore = process.cpuUsage();
        const simCpuBefore = sim.cpuSec();
        const wallBefore = performance.now();
        const { records, stepStartMs } = await drive(sim, scenario.inputTokens, scenario.outputTokens);
        const wallSec = (performance.now() - wallBefore) / 1000;
        const cpu = process.cpuUsage(cpuBefore);
        const simCpuAfter = sim.cpuSec();
        const traces = await sim.trace();
        const failed = records.filter((r) => r.error !== null).length;
        const tokens = traces.reduce((sum, t) => sum + t.writeMs.length, 0);
        const firstToken = Math.min(...traces.map((t) => t.tokenMs[0] ?? Infinity));
        const lastToken = Math.max(...traces.map((t) => t.tokenMs.at(-1) ?? -Infinity));
        const share = (sec: number): string => `${((sec / wallSec) * 100).toFixed(0)}%`;
        console.log(`${number}. ${scenario.name} [${deployment}]`);
        console.log(
          `  ${requests - failed}/${requests} requests completed, ${tokens} tokens in ${wallSec.toFixed(1)} s: ` +
            `${((tokens / (lastToken - firstToken)) * 1000).toFixed(0)} output tok/s in model time`,
        );
        console.log(`  write lateness (write - model time):    ${percentiles(tokenLateness(traces))}`);
        console.log(`  receive lateness (client - model time): ${percentiles(computeStats(receiveLateness(records, stepStartMs, traces, scenario.inputTokens)))}`);
        const simCpu = simCpuBefore !== null && simCpuAfter !== null ? `, simulator process ${share(simCpuAfter - simCpuBefore)}` : '';
        console.log(`  CPU of one core: this process ${share((cpu.user + cpu.system) / 1e6)}${simCpu}; load average ${load()}\n`);
      } finally {
        await sim.close();
      }
    }
  }
}

void main();
