/**
 * Live progress of a run on the terminal, drawn from the engine's events. On a TTY one line is
 * rewritten in place; in a log or a pipe a line is written only at step boundaries and every
 * few seconds, so CI logs stay short. Progress goes to stderr: stdout carries the result table.
 */
import type { ProgressSnapshot, RunEvent } from '../format/events';
import type { StepSummary } from '../format/result';
import { stepLabel } from '../format/step-name';
import { formatElapsed, formatMetric } from '../views/number-format';
import { localCountsText } from '../views/token-counts';

const PIPE_INTERVAL_MS = 10_000;

export interface ProgressPrinter {
  onEvent(event: RunEvent): void;
  /** Prints a message without tearing the live line. */
  note(message: string): void;
  /** Clears the live line (before the final table). */
  finish(): void;
}

export function createProgressPrinter(stream: NodeJS.WriteStream): ProgressPrinter {
  const tty = stream.isTTY === true;
  let stepCount = 0;
  let stepName = '';
  let liveLineShown = false;
  let lastPipeLineAt = 0;
  let workers = 1;

  const clearLiveLine = () => {
    if (liveLineShown) stream.write('\r\x1b[2K');
    liveLineShown = false;
  };
  const line = (text: string) => {
    clearLiveLine();
    stream.write(`${text}\n`);
  };

  const describeProgress = (s: ProgressSnapshot): string => {
    const done = s.plannedRequests ? `${s.completed + s.failed}/${s.plannedRequests}` : `${s.completed + s.failed}`;
    return (
      `  [${s.stepIndex + 1}/${stepCount}] ${stepName}: ${done} done (${s.failed} failed), ` +
      `${s.inFlight} in flight${workers > 1 ? ` over ${workers} workers` : ''}, ${formatMetric('requestsPerSecond', s.requestsPerSecond)} req/s, ` +
      `${formatMetric('outputTokensPerSecond', s.outputTokensPerSecond)} tok/s, ${formatElapsed(s.elapsedSec, s.plannedDurationSec)}`
    );
  };

  return {
    onEvent(event) {
      switch (event.type) {
        case 'run-start':
          stepCount = event.stepCount;
          workers = event.workers?.count ?? 1;
          break;
        case 'step-start':
          stepName = stepLabel(event);
          stepCount = Math.max(stepCount, event.stepIndex + 1);
          line(`Step ${event.stepIndex + 1}: ${stepName}`);
          lastPipeLineAt = Date.now();
          break;
        case 'progress': {
          const text = describeProgress(event.snapshot);
          if (tty) {
            stream.write(`\r\x1b[2K${text.slice(0, Math.max(20, (stream.columns || 120) - 1))}`);
            liveLineShown = true;
          } else if (Date.now() - lastPipeLineAt >= PIPE_INTERVAL_MS) {
            line(text);
            lastPipeLineAt = Date.now();
          }
          break;
        }
        case 'step-end':
          line(`  done: ${describeSummary(event.summary)}`);
          break;
        case 'log':
          line(`${event.level === 'info' ? '' : `${event.level}: `}${event.message}`);
          break;
        case 'run-end':
          clearLiveLine();
          break;
      }
    },
    note: line,
    finish: clearLiveLine,
  };
}

function describeSummary(summary: StepSummary): string {
  const { completed, failed } = summary.requests;
  const parts = [`${completed} ok, ${failed} failed`];
  if (summary.requestsPerSecond !== null) parts.push(`${formatMetric('requestsPerSecond', summary.requestsPerSecond)} req/s`);
  if (summary.ttftMs) parts.push(`TTFT mean ${formatMetric('ttftMs', summary.ttftMs.mean)} ms`);
  if (summary.ttfoMs) parts.push(`TTFO mean ${formatMetric('ttfoMs', summary.ttfoMs.mean)} ms`);
  if (summary.latencyMs) parts.push(`latency mean ${formatMetric('latencyMs', summary.latencyMs.mean)} ms`);
  const errors = Object.entries(summary.errors);
  if (errors.length) parts.push(`errors: ${errors.map(([kind, n]) => `${kind} ${n}`).join(', ')}`);
  const local = localCountsText(summary);
  // Said on the step's own line: the tokens/s just printed rest on these counts.
  return parts.join(', ') + (local === null ? '' : `; not the server's counts: ${local}`);
}
