/**
 * `llmbench report FILES... --out report.html`: one report over many runs (result files,
 * folders of them, or other tools' files), grouped by a label, as a self-contained HTML page,
 * Markdown tables or a CSV of steps.
 */
import { writeFile } from 'node:fs/promises';
import { formatStepsCsv } from '../../report/csv';
import { renderHtmlReport } from '../../report/html';
import { loadRuns } from '../../report/load';
import { buildReportModel, type ReportSlo, type StatChoice } from '../../views/report';
import { formatMarkdownReport } from '../../report/tables';
import { REPORT_LANGUAGES, reportLocale } from '../../report/languages';
import { parseChoice, parseFlags, parseKeyValue, parseNumber, UsageError } from '../args';

const REPORT_HELP = `Usage: llmbench report FILE|FOLDER... --out FILE [options]

One report over many runs: LLM Bench result files, folders of them, and other tools' files
(imported on the fly, see llmbench import --help).

Options:
  --out FILE            where to write it
  --format F            html (default: charts and tables in one file that opens offline), md, csv
  --group-by LABEL      colour and group runs by this label (engine, gpu, model, quant, ...)
  --slo ttft=MS,ttfo=MS,tpot=MS,e2e=MS
                        the objective for the ranking table (any of them; ttfo: the first
                        answer token, reasoning left out)
  --stat S              the statistic compared with the SLO and drawn for latencies: mean, p50, p90 (default), p99
  --axis A              concurrency or rate (default: what most steps are defined by)
  --title TEXT          the report's title
  --lang L              the report's language: en (default) or zh-cn (Simplified Chinese); the
                        figures are the same, and this command's own output stays English
  --per-repeat          Markdown: a row per repeat of a repeated run, instead of one per step with
                        each figure's mean ± half-width of its 95% interval across repeats
  --help                this text
`;

function parseSlo(text: string): ReportSlo {
  const slo: ReportSlo = {};
  for (const part of text.split(',')) {
    const [key, value] = parseKeyValue('--slo', part, 'an objective', 'ttft=200,tpot=50');
    const ms = parseNumber('--slo', value, { min: 0, exclusive: true, hint: 'milliseconds like --slo ttft=200,tpot=50' });
    if (key === 'ttft') slo.ttftMs = ms;
    else if (key === 'ttfo') slo.ttfoMs = ms;
    else if (key === 'tpot') slo.tpotMs = ms;
    else if (key === 'e2e') slo.e2eMs = ms;
    else throw new UsageError(`--slo: '${key}' is not an objective; use ttft, ttfo, tpot and/or e2e, like --slo ttft=200,tpot=50`);
  }
  return slo;
}

export async function run(argv: string[]): Promise<number> {
  const specs = {
    '--out': { kind: 'string' },
    '--format': { kind: 'string' },
    '--group-by': { kind: 'string' },
    '--slo': { kind: 'string' },
    '--stat': { kind: 'string' },
    '--axis': { kind: 'string' },
    '--title': { kind: 'string' },
    '--lang': { kind: 'string' },
    '--per-repeat': { kind: 'boolean' },
    '--help': { kind: 'boolean' },
  } as const;
  const flags = parseFlags(argv, specs, 'llmbench report');
  if (flags.has('--help')) {
    process.stdout.write(REPORT_HELP);
    return 0;
  }
  if (flags.positionals.length === 0) throw new UsageError('give result files or folders, like llmbench report benchmarks/ --out report.html');
  const out = flags.get('--out');
  if (!out) throw new UsageError('--out is required: the file to write, like --out report.html');
  const format = parseChoice('--format', flags.get('--format') ?? 'html', ['html', 'md', 'csv'] as const);
  const stat = parseChoice('--stat', flags.get('--stat') ?? 'p90', ['mean', 'p50', 'p90', 'p99'] as const) satisfies StatChoice;
  const axisText = flags.get('--axis');
  const axis = axisText === undefined ? undefined : parseChoice('--axis', axisText, ['concurrency', 'rate'] as const);
  const sloText = flags.get('--slo');
  const slo = sloText === undefined ? {} : parseSlo(sloText);
  const groupBy = flags.get('--group-by');
  const { t, locale } = reportLocale(parseChoice('--lang', flags.get('--lang') ?? 'en', REPORT_LANGUAGES));
  const tableOptions = { perRepeat: flags.has('--per-repeat'), t };

  const { runs, problems } = await loadRuns(flags.positionals);
  for (const problem of problems) process.stderr.write(`llmbench report: skipped ${problem}\n`);
  if (runs.length === 0) {
    process.stderr.write('llmbench report: no run could be read; nothing to report.\n');
    return 2;
  }
  if (groupBy && !runs.some((r) => groupBy in r.doc.labels)) {
    const keys = [...new Set(runs.flatMap((r) => Object.keys(r.doc.labels)))];
    throw new UsageError(`--group-by: no run has the label '${groupBy}'; labels present: ${keys.join(', ') || 'none'}`);
  }
  const model = buildReportModel(runs, { ...(groupBy ? { groupBy } : {}), ...(axis ? { axis } : {}), stat, slo }, t);
  const title = flags.get('--title') ?? (runs.length === 1 ? `LLM Bench: ${runs[0]?.name}` : t('LLM Bench: {0} runs compared', runs.length));
  const text =
    format === 'html'
      ? renderHtmlReport(model, runs, title, new Date(), { t, locale })
      : format === 'csv'
        ? formatStepsCsv(runs)
        : formatMarkdownReport(model, runs, title, tableOptions);
  await writeFile(out, text);
  process.stdout.write(`Wrote ${format} report of ${runs.length} run(s) to ${out}\n`);
  return problems.length > 0 ? 1 : 0;
}
