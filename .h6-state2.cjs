// A realistic state: a real concurrency sweep against the simulator, reduced by the host reducer.
const { startSimServer } = require('./out/src/sim/index.js');
const { runBenchmark } = require('./out/src/engine/index.js');
const { RunConfigSchema } = require('./out/src/format/config.js');
const { applyRunEvent, newLiveState, expectedStepCount } = require('./out/src/host/live-state.js');
(async () => {
  const sim = await startSimServer({ preset: 'tiny' });
  const config = RunConfigSchema.parse({ endpoint: { baseUrl: sim.baseUrl, model: sim.model }, profile: { kind: 'rate', rates: [5, 10, 20], arrival: 'poisson' }, limits: { requests: 60, warmup: 2 }, workload: { kind: 'synthetic', inputTokens: 128, outputTokens: 64 }, labels: { engine: 'simulator <tiny>', hardware: 'none' } });
  const state = newLiveState({ id: 'r', model: sim.model, baseUrl: sim.baseUrl, profile: 'concurrency 1,4,16,32', startedAt: new Date().toISOString(), labels: Object.entries(config.labels), expectedSteps: expectedStepCount(config.profile), resultPath: '/tmp/h6/x.llmbench.json' });
  const t0 = performance.now();
  let stop = false;
  await runBenchmark(config, { onEvent: (e) => { if (stop) return; applyRunEvent(state, e, (performance.now() - t0) / 1000); if (e.type === 'progress' && e.snapshot.stepIndex === 1 && e.snapshot.completed > 5) { stop = true; require('fs').writeFileSync('/tmp/h6/state.json', JSON.stringify(state)); } } });
  if (!stop) require('fs').writeFileSync('/tmp/h6/state.json', JSON.stringify(state));
  await sim.close();
})();
