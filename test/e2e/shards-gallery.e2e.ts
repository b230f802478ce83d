// A shard run as a user opens it (issue 24): `llmbench run --shards 4` as 4 processes of dist/cli.js
// against the simulator writes the coordinator's file into the workspace. Opened while the run goes,
// the result editor follows it: its Shards section shows each shard running and its send lateness
// in the step running now. Once the run is done, the same editor shows the finished file like any
// other, each shard's host, clock offset ± uncertainty, state and lateness over the run. At
// 1000x700 and 1280x800 in dark, light and high-contrast themes, nothing cut off; screenshots in
// .test-artifacts/gallery-shards-{live,result}-<theme>[-charts]-<width>.png (the -charts picture
// has the Shards section in view).
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { startSimServer } from '../../src/sim';
import { closedPort } from '../helpers/cli-server';
import { runBounded } from '../helpers/processes';
import { repoRoot } from '../vscode/harness/tools';
import { findWebview, openFile, scenario, waitForText } from './harness';
import { shootAtEachSize, THEMES } from './harness/layout';

/**
 * Starts 4 shard processes of one run into `folder`/sharded.llmbench.json: an open loop of 10
 * requests a second for 15 s, long enough to watch it go. Resolves when the run has begun; `done`
 * resolves when every shard succeeded, or throws with their output.
 */
async function startShardRun(folder: string): Promise<{ done: Promise<void> }> {
  mkdirSync(folder, { recursive: true });
  const sim = await startSimServer({ preset: 'tiny', inWorker: true, workerScript: join(repoRoot, 'dist', 'sim-worker.js') });
  const port = await closedPort();
  const flags = ['run', '--url', sim.baseUrl, '--model', sim.model, '--input-tokens', '64', '--output-tokens', '16', '--profile', 'rate', '--rate', '10', '--arrival', 'constant', '--requests', '150', '--warmup', '0'];
  const outcomes = Promise.all(
    [0, 1, 2, 3].map((shard) =>
      runBounded(process.execPath, [join(repoRoot, 'dist', 'cli.js'), ...flags, '--out', join(folder, 'sharded.llmbench.json'), '--shards', '4', '--shard', String(shard), '--coordinator', `127.0.0.1:${port}`], { ...process.env, LLMBENCH_RUN_TOKEN: 'shards-gallery-token-0123456789' }, 90_000),
    ),
  );
  const done = outcomes
    .then((all) => {
      const failed = all.find((o) => o.code !== 0);
      if (failed) throw new Error(`a shard failed:\n${failed.output}`);
    })
    .finally(() => sim.close());
  return { done };
}

for (const [theme, themeName] of Object.entries(THEMES)) {
  scenario(
    `shards gallery in the ${theme} theme: a 4-shard run's file in the result editor as it runs and once done, with its Shards section`,
    async ({ page, workspace }) => {
      const run = await startShardRun(join(workspace, 'shards'));
      try {
        // The coordinator's file, opened while the run goes: the editor follows it.
        const file = join(workspace, 'shards', 'sharded.llmbench.json');
        for (let waited = 0; !existsSync(file) && waited < 30_000; waited += 100) await new Promise((resolve) => setTimeout(resolve, 100));
        await openFile(page, 'shards/sharded.llmbench.json');
        const result = () => findWebview(page, { title: 'sharded.llmbench.json', text: '0 (coordinator)', timeoutMs: 60_000 });
        await waitForText(await result(), 'Send lateness: in the step running now, ');
        await shootAtEachSize(page, result, `shards-live-${theme}`, undefined, '#shards-section');
      } finally {
        await run.done;
      }
      const result = () => findWebview(page, { title: 'sharded.llmbench.json', text: 'Send lateness: over the whole run.', timeoutMs: 60_000 });
      await waitForText(await result(), /4 shards, coordinated by shard 0 at 127\.0\.0\.1:\d+/);
      await shootAtEachSize(page, result, `shards-result-${theme}`, undefined, '#shards-section');
    },
    {
      timeoutMs: 180_000,
      workspace: { settings: { 'workbench.colorTheme': themeName } },
    },
  );
}
