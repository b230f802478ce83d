/**
 * What scraping a server's /metrics costs the thread that times the requests. Prints figures;
 * asserts nothing. Run: node esbuild.mjs && node dist/bench/server-metrics.js
 *   parse:  parsePrometheusText on a ~100 kB exposition (SGLang's published one, repeated with
 *           other label values: the size of a busy vLLM page), whole and with the scraper's filter;
 *   scrape: event-loop delay (perf_hooks.monitorEventLoopDelay) over 5 s without scraping, then
 *           with ServerMetricsScraper reading that page every 100 ms from a loopback server in a
 *           child process (so that serving it costs this thread nothing).
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { ServerMetricsConfigSchema } from '../../src/format/config';
import { viewFamilies } from '../../src/format/server-metrics';
import { parsePrometheusText } from '../../src/observe/prometheus';
import { ServerMetricsScraper } from '../../src/observe/metrics-scraper';

const root = process.env['LLMBENCH_ROOT'] ?? process.cwd();
const SECONDS = 5;

const sglang = readFileSync(join(root, 'test', 'fixtures', 'server-metrics', 'sglang-production-metrics-doc.prom'), 'utf8');
const samples = sglang.split('\n').filter((line) => line !== '' && !line.startsWith('#'));
const comments = sglang.split('\n').filter((line) => line.startsWith('#'));
let page = comments.join('\n');
for (let rank = 0; page.length < 100_000; rank++) page += `\n${samples.map((line) => line.replace('model_name=', `tp_rank="${rank}",model_name=`)).join('\n')}`;
page += '\n';

const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? NaN;
function timeParse(selectSample?: (name: string, family: string) => boolean): number {
  const runs: number[] = [];
  for (let i = 0; i < 60; i++) {
    const start = performance.now();
    parsePrometheusText(page, selectSample ? { selectSample } : {});
    runs.push(performance.now() - start);
  }
  return median(runs.slice(10));
}
const families = new Set(viewFamilies('sglang'));
console.log(`exposition: ${(page.length / 1024).toFixed(0)} kB, ${page.split('\n').length} lines`);
console.log(`parse, whole:            ${timeParse().toFixed(2)} ms (median of 50)`);
console.log(`parse, the views' names: ${timeParse((name, family) => families.has(family) || families.has(name)).toFixed(2)} ms (median of 50)`);

async function loopDelay(during: () => Promise<void>): Promise<{ p50: number; p99: number; max: number }> {
  const histogram = monitorEventLoopDelay({ resolution: 1 });
  histogram.enable();
  await during();
  histogram.disable();
  return { p50: histogram.percentile(50) / 1e6, p99: histogram.percentile(99) / 1e6, max: histogram.max / 1e6 };
}

async function main(): Promise<void> {
  const serve = `const page = require('fs').readFileSync(0, 'utf8'); const s = require('http').createServer((_, res) => res.writeHead(200, { 'content-type': 'text/plain; version=0.0.4' }).end(page)); s.listen(0, '127.0.0.1', () => console.log(s.address().port));`;
  const server = spawn(process.execPath, ['-e', serve], { stdio: ['pipe', 'pipe', 'inherit'] });
  server.stdin.end(page);
  const [portLine] = (await once(server.stdout, 'data')) as [Buffer];
  const url = `http://127.0.0.1:${portLine.toString().trim()}/metrics`;
  const show = (label: string, d: { p50: number; p99: number; max: number }): void =>
    console.log(`${label} event-loop delay p50 ${d.p50.toFixed(2)} ms, p99 ${d.p99.toFixed(2)} ms, max ${d.max.toFixed(2)} ms`);
  show('idle, 5 s:                 ', await loopDelay(() => sleep(SECONDS * 1000)));
  const origin = performance.now();
  const scraper = new ServerMetricsScraper({
    url,
    config: ServerMetricsConfigSchema.parse({ intervalMs: 100, maxSeries: 10_000 }),
    headers: {},
    now: () => performance.now() - origin,
    warn: (message) => console.log(`warning: ${message}`),
  });
  await scraper.scrapeOnce();
  scraper.start();
  show('scraping every 100 ms, 5 s:', await loopDelay(() => sleep(SECONDS * 1000)));
  await scraper.stop(false);
  console.log(`scrapes: ${scraper.scrapes}; series kept: ${scraper.take().length}`);
  server.kill();
}

void main();
