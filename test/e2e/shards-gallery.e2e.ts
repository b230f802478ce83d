// A shard run as a user opens it (issue 24): `llmbench run --shards 4` as 4 processes of dist/cli.js
// against the simulator writes the coordinator's file into the workspace, which opens in the result
// editor like any other, with its Shards section (each shard's host, clock offset ± uncertainty,
// state and send lateness). At 1000x700 and 1280x800 in dark, light and high-contrast themes,
// nothing cut off; screenshots in .test-artifacts/gallery-shards-result-<theme>[-charts]-<width>.png
// (the -charts picture has the Shards section in view).
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { startSimServer } from '../../src/sim';
import { closedPort } from '../helpers/cli-server';
import { runBounded } from '../helpers/processes';
import { repoRoot } from '../vscode/harness/tools';
import { findWebview, openFile, scenario, waitForText } from './harness';
import { shootAtEachSize, THEMES } from './harness/layout';

/** 4 shard processes of one run into `folder`/sharded.llmbench.json; throws with their output unless all succeed. */
async function writeShardRun(folder: string): Promise<void> {
  mkdirSync(folder, { recursive: true });
  const sim = await startSimServer({ preset: 'tiny', inWorker: true, workerScript: join(repoRoot, 'dist', 'sim-worker.js') });
  try {
    const port = await closedPort();
    const flags = ['run', '--url', sim.baseUrl, '--model', sim.model, '--input-tokens', '64', '--output-tokens', '16', '--profile', 'concurrency', '--concurrency', '4,8', '--requests', '32', '--warmup', '0'];
    const outcomes = await Promise.all(
      [0, 1, 2, 3].map((shard) =>
        runBounded(process.execPath, [join(repoRoot, 'dist', 'cli.js'), ...flags, '--out', join(folder, 'sharded.llmbench.json'), '--shards', '4', '--shard', String(shard), '--coordinator', `127.0.0.1:${port}`], { ...process.env, LLMBENCH_RUN_TOKEN: 'shards-gallery-token-0123456789' }, 90_000),
      ),
    );
    const failed = outcomes.find((o) => o.code !== 0);
    if (failed) throw new Error(`a shard failed:\n${failed.output}`);
  } finally {
    await sim.close();
  }
}

for (const [theme, themeName] of Object.entries(THEMES)) {
  scenario(
    `shards gallery in the ${theme} theme: a 4-shard run's file in the result editor, with its Shards section`,
    async ({ page, workspace }) => {
      await writeShardRun(join(workspace, 'shards'));
      await openFile(page, 'shards/sharded.llmbench.json');
      const result = () => findWebview(page, { title: 'sharded.llmbench.json', text: '0 (coordinator)', timeoutMs: 60_000 });
      await waitForText(await result(), /4 shards, coordinated by shard 0 at 127\.0\.0\.1:\d+/);
      await waitForText(await result(), 'Send lateness: over the whole run.');
      await shootAtEachSize(page, result, `shards-result-${theme}`, undefined, '#shards-section');
    },
    {
      timeoutMs: 180_000,
      workspace: { settings: { 'workbench.colorTheme': themeName } },
    },
  );
}
