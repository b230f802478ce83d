/**
 * A real llama.cpp `llama-server` for test/real/: the one scripts/setup.d/llama.sh installs (Debian's
 * build in a chroot under $LLMBENCH_TOOLS, serving /models/test.gguf), started on a free
 * 127.0.0.1 port with 4 slots and warmed up.
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { closedPort } from './cli-server';

const llamaDir = join(process.env.LLMBENCH_TOOLS ?? join(homedir(), '.cache', 'llm-bench'), 'llama');
const chrootDir = join(llamaDir, 'root');
export const LLAMA_STARTUP_LIMIT_MS = 90_000;
/** The name the server is started under (`-a`): what requests and GET /v1/models use. */
export const LLAMA_MODEL_ID = 'llmbench-test';

export interface LlamaServer {
  /** `http://127.0.0.1:PORT/v1` */
  baseUrl: string;
  port: number;
  /** Which model file it serves (model.txt written by llama.sh). */
  model: string;
  stop(): void;
}

/** The installed llama-server and its model, as the start of an argv (the tuner's tests add the rest). */
export const LLAMA_SERVER_ARGV: readonly string[] = ['chroot', chrootDir, 'llama-server', '-m', '/models/test.gguf'];

/** The model file every llama-server of the tests serves, as this machine sees it (outside the chroot). */
export const LLAMA_MODEL_FILE = join(chrootDir, 'models', 'test.gguf');

export const llamaServerInstalled = (): boolean => existsSync(LLAMA_MODEL_FILE);

export interface LlamaOptions {
  /** More server flags (a chat template, a reasoning format). */
  extraArgs?: readonly string[];
  /** Serve /v1/embeddings only (`--embeddings --pooling mean`): warmed up there. */
  embeddings?: boolean;
}

export async function startLlamaServer(options: LlamaOptions = {}): Promise<LlamaServer> {
  if (!llamaServerInstalled()) {
    throw new Error(`No llama-server at ${chrootDir}: run \`bash scripts/setup.d/llama.sh\` (npm test runs it through scripts/setup-test-env.sh)`);
  }
  const model = readFileSync(join(llamaDir, 'model.txt'), 'utf8').trim();
  const port = await closedPort();
  // chroot execs llama-server in place, so this child's pid is the server's.
  const server = spawn(
    LLAMA_SERVER_ARGV[0] as string,
    [
      ...LLAMA_SERVER_ARGV.slice(1),
      ...['--host', '127.0.0.1', '--port', String(port), '-np', '4', '-c', '4096', '-t', '2', '--no-webui', '--metrics', '-a', LLAMA_MODEL_ID],
      ...(options.embeddings ? ['--embeddings', '--pooling', 'mean'] : []),
      ...(options.extraArgs ?? []),
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let log = '';
  const keepLog = (d: Buffer) => (log = (log + d.toString()).slice(-4000));
  server.stdout?.on('data', keepLog);
  server.stderr?.on('data', keepLog);
  const stop = (): void => {
    if (server.exitCode !== null) return;
    server.kill('SIGTERM');
    setTimeout(() => server.exitCode === null && server.kill('SIGKILL'), 5000).unref();
  };
  const baseUrl = `http://127.0.0.1:${port}/v1`;
  try {
    const deadline = Date.now() + LLAMA_STARTUP_LIMIT_MS;
    for (;;) {
      if (server.exitCode !== null) throw new Error(`llama-server exited with ${server.exitCode}:\n${log}`);
      const health = await fetch(`http://127.0.0.1:${port}/health`).then((r) => r.status, () => 0);
      if (health === 200) break;
      if (Date.now() > deadline) throw new Error(`llama-server not healthy within ${LLAMA_STARTUP_LIMIT_MS} ms:\n${log}`);
      await sleep(250);
    }
    // The first requests after start are several times slower: warm up before measuring.
    for (let i = 0; i < 2; i++) {
      const warm = await fetch(`${baseUrl}/${options.embeddings ? 'embeddings' : 'completions'}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(options.embeddings ? { model: LLAMA_MODEL_ID, input: 'Once upon a time' } : { model: LLAMA_MODEL_ID, prompt: 'Once upon a time', max_tokens: 8 }),
      });
      if (warm.status !== 200) throw new Error(`llama-server warm-up answered ${warm.status}: ${await warm.text()}`);
    }
  } catch (error) {
    stop();
    throw error;
  }
  return { baseUrl, port, model, stop };
}
