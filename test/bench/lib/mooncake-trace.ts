/**
 * A Mooncake-style trace for the benchmarks, written in chunks (the generator holds no more than a
 * chunk either): each row opens with one of 1,000 shared conversation prefixes of 1 to 8 blocks,
 * then 1 to 4 blocks of its own, the last of them partial (513 to 6,144 tokens, about 3,300 on
 * average), with exponential gaps between rows (Poisson arrivals) of mean 1000 / rate ms.
 */
import { createWriteStream } from 'node:fs';
import { createRandom } from '../../../src/workload/random';

const SHARED_PREFIXES = 1000;

export interface MooncakeTraceOptions {
  /** Requests per second of recorded load (default 278: Mooncake's conversation trace's mean gap of 3.6 ms). */
  rate?: number;
  /** Output lengths are drawn from 1 to this (default 800). */
  maxOutputTokens?: number;
  seed?: number;
}

export async function writeMooncakeTrace(path: string, rows: number, options: MooncakeTraceOptions = {}): Promise<void> {
  const random = createRandom(options.seed ?? 20261126);
  const meanGapMs = 1000 / (options.rate ?? 1000 / 3.6);
  const maxOutput = options.maxOutputTokens ?? 800;
  // Conversation prefixes: ids 0..; each a chain of 1 to 8 blocks.
  let nextId = 0;
  const prefixes = Array.from({ length: SHARED_PREFIXES }, () => Array.from({ length: random.int(1, 8) }, () => nextId++));
  const out = createWriteStream(path);
  let chunk = '';
  let time = 0;
  for (let i = 0; i < rows; i++) {
    if (i > 0) time += random.exponential(meanGapMs);
    const prefix = prefixes[random.int(0, SHARED_PREFIXES - 1)] as number[];
    const own = random.int(1, 4);
    const ids = [...prefix];
    for (let b = 0; b < own; b++) ids.push(nextId++);
    // The last id covers a partial block, as in Mooncake's traces: (n - 1) x 512 + 1..512 tokens.
    const input = (ids.length - 1) * 512 + random.int(1, 512);
    chunk += `{"timestamp": ${Math.round(time * 1000) / 1000}, "input_length": ${input}, "output_length": ${random.int(1, maxOutput)}, "hash_ids": [${ids.join(', ')}]}\n`;
    if (chunk.length > 1 << 20) {
      if (!out.write(chunk)) await new Promise<void>((resolve) => out.once('drain', () => resolve()));
      chunk = '';
    }
  }
  out.end(chunk);
  await new Promise<void>((resolve, reject) => out.on('finish', () => resolve()).on('error', reject));
}
