/**
 * A trial's server from launch to stop, against what goes wrong on real machines: a stranger's
 * process with the recorded pid (--resume must not kill it), a tune still writing the file, a
 * foreign server answering on the trial's port, a port still taken after the stop, a server that
 * ignores SIGTERM, ELECTRON_RUN_AS_NODE leaking into other programs, a `docker run` server that
 * escapes the process group, and GPU memory read per process. Stand-in `docker` and `nvidia-smi`
 * executables on the PATH record their calls and answer as the real ones do (no Docker engine or
 * GPU on this machine).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { TuneConfigSchema, type TuneConfigInput, type TuneEvent } from '../../src/format/tune';
import { startSimServer } from '../../src/sim/index';
import { runTune, TuneConfigError } from '../../src/tune/index';
import { isPortFree } from '../../src/tune/server';
import { cliPath } from '../helpers/limited-child';
import { processesWhere } from '../helpers/processes';
import { repoRoot } from '../vscode/harness/tools';
import { translator } from '../../src/views/l10n';
import { sayWarning } from '../../src/views/step-warnings';

const chinese = () => translator(JSON.parse(readFileSync(join(repoRoot, 'l10n', 'bundle.l10n.zh-cn.json'), 'utf8')) as Record<string, string>);
import { bystander, cancelledTuneFile, engineWorkerScript, groupAlive, liveSimulators, llmbenchCommand, readTune, tempDir, vllmLikeConfig } from '../helpers/tune-runs';

/** A process's start time as /proc/PID/stat field 22 gives it (clock ticks since boot). */
function startTimeOf(pid: number): string {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19] as string;
}

/** A tune of one combination of `command` (it must take `{port}` and `{n}`), its benchmark short. */
function oneCombination(command: string[], overrides: Partial<TuneConfigInput> = {}): TuneConfigInput {
  return vllmLikeConfig({
    server: { command, readyPath: '/v1/models', startTimeoutSec: 20, stopGraceSec: 2 },
    space: { n: { type: 'choice', values: [1] } },
    constraints: [],
    benchmark: { profile: { kind: 'concurrency', levels: [2] }, limits: { requests: 4, warmup: 0 }, workload: { kind: 'synthetic', inputTokens: 16, outputTokens: 8 }, request: { totalTimeoutMs: 3000 } },
    budget: { trials: 1 },
    remeasure: false,
    ...overrides,
  });
}

/** A script file in `dir`, run with this Node. */
function script(dir: string, name: string, source: string): string {
  const path = join(dir, name);
  writeFileSync(path, source);
  return path;
}

/** A minimal HTTP server script: /v1/models answers 200 (ready), everything else 404. Extra source runs after it listens. */
const modelsServer = (extra = ''): string => `
const port = Number(process.argv[2]);
const server = require('node:http').createServer((req, res) => {
  if (req.url === '/v1/models') { res.writeHead(200, { 'content-type': 'application/json' }); res.end('{"data":[{"id":"m"}]}'); }
  else { res.writeHead(404); res.end('{"error":"no"}'); }
});
server.listen(port, '127.0.0.1', () => { console.log('listening on ' + port); ${extra} });
`;

test('--resume does not kill a process of this host that now has the recorded server\'s pid: another start time or command line', async () => {
  const dir = tempDir();
  const { options, outPath, file } = await cancelledTuneFile(dir, 'stranger.llmtune.json');
  // The tuner that wrote the file is gone (a child that has exited), on this host; its server's
  // pid now belongs to a bystander started later, running something else.
  const gone = spawn(process.execPath, ['-e', '0']);
  await new Promise((resolve) => gone.once('exit', resolve));
  const stranger = bystander();
  const { pid } = stranger;
  try {
    writeFileSync(outPath, JSON.stringify({
      ...file, status: 'running', statusReason: null, finishedAt: null,
      writer: { pid: gone.pid, host: hostname() },
      runningServer: { trial: 1, pid, port: 8000, host: hostname(), startTime: String(Number(startTimeOf(pid)) - 500), command: ['vllm', 'serve', 'm', '--port', '8000'] },
    }));
    const events: TuneEvent[] = [];
    const resumed = await runTune({ ...options, onEvent: (e) => events.push(e) });
    assert.equal(resumed.status, 'cancelled');
    await sleep(300);
    assert.ok(stranger.child.signalCode === null && groupAlive(pid), `process group ${pid} was killed (${stranger.child.signalCode}) though it is not the server the file names`);
    const said = events.flatMap((e) => (e.type === 'log' ? [e.message] : [])).join('\n');
    assert.match(said, new RegExp(`process ${pid} is not the server of trial 1: it started at another time`));
  } finally {
    stranger.end();
  }
});

test('--resume refuses a tune file whose writer is still running; a writer whose pid now names another process does not hold it', async () => {
  const { options, outPath, file } = await cancelledTuneFile(tempDir(), 'busy.llmtune.json');
  // This test process stands for a tuner still writing the file.
  writeFileSync(outPath, JSON.stringify({ ...file, status: 'running', finishedAt: null, writer: { pid: process.pid, host: hostname(), startTime: startTimeOf(process.pid) } }));
  await assert.rejects(runTune(options), (error: Error) => error instanceof TuneConfigError && new RegExp(`is being written by a tune still running \\(pid ${process.pid} on ${hostname()}\\)`).test(error.message));
  assert.equal(readTune(outPath).status, 'running', 'the live tune\'s file was not touched');
  // The same pid with another start time is some later process: the writer is gone.
  writeFileSync(outPath, JSON.stringify({ ...file, status: 'running', finishedAt: null, writer: { pid: process.pid, host: hostname(), startTime: '1' } }));
  assert.equal((await runTune(options)).status, 'cancelled');
});

test('a foreign server already answering on the trial\'s port: the trial fails, naming it, and nothing is benchmarked there', async () => {
  const dir = tempDir();
  // The launched server never listens; a simulator of this test takes its port as soon as it is chosen.
  const config = TuneConfigSchema.parse(oneCombination([process.execPath, '-e', 'setTimeout(() => {}, 60_000)', '{port}', '{n}']));
  const foreign: Promise<{ close: () => Promise<void> }>[] = [];
  const file = await runTune({
    config, configDir: dir, outPath: join(dir, 'foreign.llmtune.json'), resume: false, llmbenchCommand, engineWorkerScript, env: { ...process.env, LLMBENCH_TUNE_TEST: dir },
    onEvent: (event) => {
      if (event.type === 'trial-start' && event.port !== null) foreign.push(startSimServer({ preset: 'tiny', port: event.port }));
    },
  });
  try {
    const [trial] = file.trials;
    assert.equal(trial?.status, 'failed-to-start', `${trial?.status}: ${trial?.reason}`);
    assert.match(trial.reason ?? '', new RegExp(`port ${trial.port} answers, but not from the launched server: its listening socket belongs to process ${process.pid} `));
    // In Chinese (the tune editor's trials table): the process named as written.
    assert.match(sayWarning(trial.reason ?? '', chinese()), new RegExp(`^端口 ${trial.port} 有应答，但不是来自启动的服务：它的监听套接字属于进程 ${process.pid} .*本试验未对其进行基准测试$`));
    assert.equal(trial.resultFile, null, 'nothing was benchmarked');
  } finally {
    for (const server of await Promise.all(foreign)) await server.close();
  }
});

test('a port still taken after the server stopped: the next trial does not start, and the tune says which process holds it', async () => {
  const dir = tempDir();
  // On SIGTERM the server hands its port to a detached process of its own (a daemon it starts), and
  // exits once the daemon listens.
  const server = script(dir, 'handoff.js', modelsServer(`
    process.on('SIGTERM', () => {
      server.closeAllConnections();
      server.close(() => {
        const daemon = require('node:child_process').spawn(process.execPath, ['-e', \`require('node:http').createServer((q, s) => s.end()).listen(\${port}, '127.0.0.1', () => console.log('listening')); setTimeout(() => process.exit(0), 30000)\`, 'llmbench-handoff-daemon', String(port)], { detached: true, stdio: ['ignore', 'pipe', 'ignore'] });
        daemon.stdout.once('data', () => process.exit(0));
      });
    });`));
  // A grace long enough for the daemon to start on a loaded machine, so that it holds the port when the tuner looks.
  const config = TuneConfigSchema.parse(
    oneCombination([process.execPath, server, '{port}', '{n}'], {
      server: { command: [process.execPath, server, '{port}', '{n}'], readyPath: '/v1/models', startTimeoutSec: 20, stopGraceSec: 15 },
      space: { n: { type: 'choice', values: [1, 2] } },
      budget: { trials: 2 },
    }),
  );
  try {
    const file = await runTune({ config, configDir: dir, outPath: join(dir, 'taken.llmtune.json'), resume: false, llmbenchCommand, engineWorkerScript, env: { ...process.env, LLMBENCH_TUNE_TEST: dir } });
    assert.equal(file.trials.length, 1, `a trial started after port ${file.trials[0]?.port} stayed taken: ${JSON.stringify(file.trials.map((t) => [t.number, t.status, t.reason]))}`);
    assert.equal(file.status, 'failed');
    const daemon = processesWhere((argv) => argv.includes('llmbench-handoff-daemon') && argv.includes(String(file.trials[0]!.port)))[0]?.split(':')[0];
    assert.match(file.statusReason ?? '', new RegExp(`Port ${file.trials[0]!.port} was still taken 5 s after trial 1's server stopped, by process ${daemon} \\(`));
    assert.match(file.statusReason ?? '', /continue with --resume/);
    assert.match(sayWarning(file.statusReason ?? '', chinese()), new RegExp(`^试验 1 的服务停止 5 秒后，端口 ${file.trials[0]!.port} 仍被进程 ${daemon} \\(.*占用：.*用 --resume 继续。$`));
  } finally {
    for (const line of processesWhere((argv) => argv.includes('llmbench-handoff-daemon'))) process.kill(Number(line.split(':')[0]), 'SIGKILL');
  }
});

test('a server that ignores SIGTERM: with a 1 s grace the trial ends within 3 s of the stop, its process group is gone and its port is free', { timeout: 60_000 }, async () => {
  const dir = tempDir();
  // It and a child of its own (same process group) both ignore SIGTERM.
  const server = script(dir, 'stubborn.js', modelsServer(`
    require('node:child_process').spawn(process.execPath, ['-e', "process.on('SIGTERM', () => {}); setInterval(() => {}, 1000)"], { stdio: 'ignore' });
    process.on('SIGTERM', () => console.log('ignoring SIGTERM'));`));
  const config = TuneConfigSchema.parse(oneCombination([process.execPath, server, '{port}', '{n}'], { server: { command: [process.execPath, server, '{port}', '{n}'], readyPath: '/v1/models', startTimeoutSec: 20, stopGraceSec: 1 } }));
  let stoppingAt = 0;
  let endedAt = 0;
  let pid: number | undefined;
  const outPath = join(dir, 'stubborn.llmtune.json');
  const file = await runTune({
    config, configDir: dir, outPath, resume: false, llmbenchCommand, engineWorkerScript, env: { ...process.env, LLMBENCH_TUNE_TEST: dir },
    onEvent: (event) => {
      if (event.type === 'trial-stage' && event.stage === 'benchmarking') pid = readTune(outPath).runningServer?.pid;
      if (event.type === 'trial-stage' && event.stage === 'stopping') stoppingAt = performance.now();
      if (event.type === 'trial-end') endedAt = performance.now();
    },
  });
  const [trial] = file.trials;
  assert.ok(trial && pid !== undefined && stoppingAt > 0 && endedAt > 0);
  assert.ok(endedAt - stoppingAt <= 3000, `the trial ended ${Math.round(endedAt - stoppingAt)} ms after its stop began (grace 1 s)`);
  assert.match(readFileSync(join(dir, trial.logFile!), 'utf8'), /ignoring SIGTERM/);
  assert.equal(groupAlive(pid), false, `process group ${pid} is still alive`);
  assert.equal(await isPortFree(trial.port!), true);
});

test('ELECTRON_RUN_AS_NODE reaches only the llmbench command, not another server', async () => {
  const dir = tempDir();
  // A wrapper that says what it got, then runs the simulator as any other program would be run.
  const say = 'echo "ELECTRON_RUN_AS_NODE=${ELECTRON_RUN_AS_NODE:-unset}"; exec "$@"';
  const other = TuneConfigSchema.parse(oneCombination(['sh', '-c', say, 'sh', process.execPath, cliPath, 'sim', '--preset', 'tiny', '--speedup', '50', '--port', '{port}', '--max-num-seqs', '{n}']));
  // As the extension host runs it: its own environment has the variable, and the llmbench command needs it.
  const env = { ...process.env, LLMBENCH_TUNE_TEST: dir, ELECTRON_RUN_AS_NODE: '1' };
  const first = await runTune({ config: other, configDir: dir, outPath: join(dir, 'other.llmtune.json'), resume: false, llmbenchCommand, engineWorkerScript, env, llmbenchEnv: { ELECTRON_RUN_AS_NODE: '1' } });
  assert.match(readFileSync(join(dir, first.trials[0]!.logFile!), 'utf8'), /^ELECTRON_RUN_AS_NODE=unset$/m);

  const own = TuneConfigSchema.parse(oneCombination(['llmbench', 'sim', '--preset', 'tiny', '--speedup', '50', '--port', '{port}', '--max-num-seqs', '{n}']));
  const outPath = join(dir, 'own.llmtune.json');
  let seen: string | undefined;
  await runTune({
    config: own, configDir: dir, outPath, resume: false, llmbenchCommand, engineWorkerScript, env, llmbenchEnv: { ELECTRON_RUN_AS_NODE: '1' },
    onEvent: (event: TuneEvent) => {
      const pid = event.type === 'trial-stage' && event.stage === 'benchmarking' ? readTune(outPath).runningServer?.pid : undefined;
      if (pid !== undefined) seen = readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0').find((v) => v.startsWith('ELECTRON_RUN_AS_NODE='));
    },
  });
  assert.equal(seen, 'ELECTRON_RUN_AS_NODE=1');
  assert.deepEqual(liveSimulators(dir), []);
});

/** Stand-in tools in `dir/bin`, put first on this process's PATH (the tuner runs them from here) for `body`. */
async function withTools(dir: string, tools: Record<string, string>, body: () => Promise<void>): Promise<void> {
  // Containers the stand-in docker left running are ended whatever the test found.
  const endContainers = (): void => {
    for (const name of readdirSync(dir).filter((f) => f.startsWith('container-'))) {
      try {
        process.kill(-(JSON.parse(readFileSync(join(dir, name), 'utf8')) as { pid: number }).pid, 'SIGKILL');
      } catch {
        // gone
      }
    }
  };
  const bin = join(dir, 'bin');
  mkdirSync(bin, { recursive: true });
  for (const [name, source] of Object.entries(tools)) {
    writeFileSync(join(bin, `${name}.js`), source);
    writeFileSync(join(bin, name), `#!/bin/sh\nexec '${process.execPath}' '${join(bin, `${name}.js`)}' "$@"\n`);
    chmodSync(join(bin, name), 0o755);
  }
  const path = process.env.PATH;
  process.env.PATH = `${bin}:${path}`;
  try {
    await body();
  } finally {
    process.env.PATH = path;
    endContainers();
  }
}

/**
 * A stand-in `docker`: each call is appended to calls.jsonl. `run` starts the simulator as a
 * container would, outside the caller's process group (its own session), on the host port of
 * `-p HOST:CONTAINER`, and stays attached without passing signals on (as a container whose main
 * process ignores SIGTERM does); `stop`, `kill` and `rm -f` end it; `top NAME -eo pid` and
 * `port NAME` answer as docker does.
 */
const FAKE_DOCKER = (dir: string): string => `
const fs = require('node:fs'), path = require('node:path'), { spawn } = require('node:child_process');
const dir = ${JSON.stringify(dir)};
const args = process.argv.slice(2);
fs.appendFileSync(path.join(dir, 'calls.jsonl'), JSON.stringify(args) + '\\n');
const pidFile = (name) => path.join(dir, 'container-' + name + '.json');
const end = (name, signal) => { try { const c = JSON.parse(fs.readFileSync(pidFile(name), 'utf8')); process.kill(-c.pid, signal); } catch {} };
const [command, ...rest] = args;
if (command === 'run') {
  const name = rest[rest.indexOf('--name') + 1];
  const published = rest[rest.indexOf('-p') + 1];
  const hostPort = published.split(':')[0];
  const child = spawn(${JSON.stringify(process.execPath)}, [${JSON.stringify(cliPath)}, 'sim', '--preset', 'tiny', '--speedup', '50', '--port', hostPort], { detached: true, stdio: 'inherit' });
  fs.writeFileSync(pidFile(name), JSON.stringify({ pid: child.pid, hostPort }));
  process.on('SIGTERM', () => {});
  child.on('exit', () => { try { fs.unlinkSync(pidFile(name)); } catch {} process.exit(0); });
} else if (command === 'stop') {
  const name = rest.at(-1);
  end(name, 'SIGTERM');
} else if (command === 'kill' || command === 'rm') {
  end(rest.at(-1), 'SIGKILL');
} else if (command === 'top') {
  try { const c = JSON.parse(fs.readFileSync(pidFile(rest[0]), 'utf8')); console.log('PID'); console.log(String(c.pid)); } catch { console.error('Error: No such container: ' + rest[0]); process.exit(1); }
} else if (command === 'port') {
  try { const c = JSON.parse(fs.readFileSync(pidFile(rest[0]), 'utf8')); console.log('8000/tcp -> 127.0.0.1:' + c.hostPort); } catch { console.error('Error: No such container: ' + rest[0]); process.exit(1); }
} else { console.error('unknown command ' + command); process.exit(1); }
`;

test('a docker run server: run gets --rm and a name of its own, the trial stops the container with docker stop, nothing is left and the port is free', { timeout: 90_000 }, async () => {
  const dir = tempDir();
  await withTools(dir, { docker: FAKE_DOCKER(dir) }, async () => {
    const config = TuneConfigSchema.parse(oneCombination(['docker', 'run', '--gpus', 'all', '-p', '{port}:8000', 'vllm/vllm-openai:v0.11.0', '--model', 'm', '--max-num-seqs', '{n}'], { benchmark: { profile: { kind: 'concurrency', levels: [2] }, limits: { requests: 4, warmup: 0 }, workload: { kind: 'synthetic', inputTokens: 16, outputTokens: 8 } } }));
    const file = await runTune({ config, configDir: dir, outPath: join(dir, 'docker.llmtune.json'), resume: false, llmbenchCommand, engineWorkerScript, env: { ...process.env, LLMBENCH_TUNE_TEST: dir } });
    const [trial] = file.trials;
    assert.equal(trial?.status, 'complete', trial?.reason ?? '');
    const calls = readFileSync(join(dir, 'calls.jsonl'), 'utf8').trim().split('\n').map((line) => JSON.parse(line) as string[]);
    const run = calls.find((c) => c[0] === 'run')!;
    const name = run[run.indexOf('--name') + 1];
    assert.equal(name, 'llmbench-docker-trial-1');
    assert.ok(run.includes('--rm'), run.join(' '));
    assert.ok(calls.some((c) => c[0] === 'stop' && c.includes(name!) && c.includes('-t')), JSON.stringify(calls));
    assert.ok(!existsSync(join(dir, `container-${name}.json`)), 'the container still runs');
    assert.equal(await isPortFree(trial.port!), true);
    assert.deepEqual(liveSimulators(dir), []);
  });
});

/**
 * A stand-in `nvidia-smi`: one H100 with 41,234 MiB in use; its compute processes are the
 * simulators of this test (1,234 MiB each, found by the marker in their environment) and pid 1
 * (another user's 40,000 MiB), unless `othersOnly`.
 */
const FAKE_NVIDIA_SMI = (dir: string, othersOnly = false): string => `
const fs = require('node:fs');
const args = process.argv.slice(2).join(' ');
if (args.startsWith('--query-gpu=')) { console.log('0, NVIDIA H100 80GB HBM3, 550.54.15, 81559, 41234, 5, 100'); process.exit(0); }
if (args === '--query-compute-apps=pid,used_memory --format=csv,noheader,nounits') {
  const ours = ${othersOnly ? 'false' : 'true'} ? fs.readdirSync('/proc').filter((p) => /^\\d+$/.test(p)).filter((p) => {
    try { return fs.readFileSync('/proc/' + p + '/environ', 'utf8').includes('LLMBENCH_TUNE_TEST=${dir}') && fs.readFileSync('/proc/' + p + '/cmdline', 'utf8').includes('sim'); } catch { return false; }
  }) : [];
  for (const pid of ours) console.log(pid + ', 1234');
  console.log('1, 40000');
  process.exit(0);
}
console.error('unexpected arguments: ' + args); process.exit(2);
`;

test('GPU memory per trial: the trial\'s own processes by nvidia-smi --query-compute-apps, not the whole machine; said when they cannot be told apart', { timeout: 120_000 }, async () => {
  const dir = tempDir();
  const config = TuneConfigSchema.parse(oneCombination(['llmbench', 'sim', '--preset', 'tiny', '--speedup', '50', '--port', '{port}', '--max-num-seqs', '{n}']));
  const env = { ...process.env, LLMBENCH_TUNE_TEST: dir };
  await withTools(dir, { 'nvidia-smi': FAKE_NVIDIA_SMI(dir) }, async () => {
    const file = await runTune({ config, configDir: dir, outPath: join(dir, 'gpu.llmtune.json'), resume: false, llmbenchCommand, engineWorkerScript, env });
    assert.equal(file.trials[0]?.gpuMemoryUsedMiB, 1234, 'the device total (41,234 MiB) counts another process\'s 40,000');
  });
  const elsewhere = tempDir();
  await withTools(elsewhere, { 'nvidia-smi': FAKE_NVIDIA_SMI(dir, true) }, async () => {
    const file = await runTune({ config, configDir: elsewhere, outPath: join(elsewhere, 'gpu.llmtune.json'), resume: false, llmbenchCommand, engineWorkerScript, env });
    const trial = file.trials[0] as (typeof file.trials)[number] & { gpuMemoryNote?: string | null };
    assert.equal(trial.gpuMemoryUsedMiB, null);
    assert.match(trial.gpuMemoryNote ?? '', /nvidia-smi lists 1 compute process, none of them the trial's server's.*cannot be told apart/);
  });
  // A container's processes are found by docker top.
  const boxed = tempDir();
  await withTools(boxed, { docker: FAKE_DOCKER(boxed), 'nvidia-smi': FAKE_NVIDIA_SMI(boxed) }, async () => {
    const container = TuneConfigSchema.parse(oneCombination(['docker', 'run', '-p', '{port}:8000', 'vllm/vllm-openai', '--max-num-seqs', '{n}']));
    const file = await runTune({ config: container, configDir: boxed, outPath: join(boxed, 'boxed.llmtune.json'), resume: false, llmbenchCommand, engineWorkerScript, env: { ...process.env, LLMBENCH_TUNE_TEST: boxed } });
    assert.equal(file.trials[0]?.gpuMemoryUsedMiB, 1234, JSON.stringify(file.trials[0]));
  });
});
