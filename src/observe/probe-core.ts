/**
 * What an endpoint tells about itself: the models it serves (GET {baseUrl}/models, the OpenAI
 * list) and which inference engine answers, from what that engine reveals on routes of its own, in
 * its headers and in its metric names. The one check of an endpoint for both front ends: the
 * engine probes with undici (probe.ts), the extension's model pick with VS Code's fetch, which
 * honours the user's proxy settings; both through a `ProbeTransport`, so that this module pulls
 * no HTTP client into a bundle. Every request shares one short deadline; routes an engine does not
 * have simply fail and are ignored.
 */
import * as z from 'zod';
import { describeZodError } from '../format/result';
import { errorCode, quote, messageOf } from '../format/errors';

export interface EngineIdentity {
  /** Spelled as users write it in labels: vLLM, SGLang, llama.cpp, lmdeploy, TGI, Ollama, MindIE. */
  name: string;
  version: string | null;
  /** What the server said that gave it away, for the run's log. */
  evidence: string;
}

export interface EndpointProbe {
  /** Ids from GET {baseUrl}/models; empty when the list could not be read. */
  models: string[];
  engine: EngineIdentity | null;
  /** Whether the server answered HTTP at all, whatever the status. */
  reachable: boolean;
  /** Why the model list could not be read, saying what to do about it. */
  error: string | null;
}

export interface ProbeOptions {
  /** Sent as `Authorization: Bearer ...`; never part of a message. */
  apiKey?: string;
  headers?: Record<string, string>;
  signal?: AbortSignal;
  /** Bound on the whole probe: all its requests run at once under this one deadline. */
  timeoutMs?: number;
}

/** A request's headers with the API key as a Bearer token, the way every request to the server carries it. */
export function withApiKey(headers: Record<string, string>, apiKey: string | undefined): Record<string, string> {
  return apiKey ? { ...headers, authorization: `Bearer ${apiKey}` } : headers;
}

/** A route at the server root of an API base URL: `/metrics` of `http://host:8000/v1?x=1` is `http://host:8000/metrics?x=1`. */
export function serverRoute(baseUrl: string, route: string): string {
  const base = new URL(baseUrl);
  const root = base.pathname.replace(/\/+$/, '').replace(/\/v1$/, '');
  return `${base.origin}${root}${route}${base.search}`;
}

export const DEFAULT_PROBE_TIMEOUT_MS = 1500;
/** Enough for any model list, server info or metrics page; a longer body is cut there. */
export const PROBE_BODY_LIMIT = 1024 * 1024;

/** Routes at the server root (the base URL without its /v1) that one engine answers its own way. */
const ROOT_ROUTES = ['/version', '/props', '/info', '/server_info', '/get_server_info', '/api/version', '/metrics'] as const;
type RootRoute = (typeof ROOT_ROUTES)[number];

const ModelListSchema = z.object({
  // `owned_by` is optional in practice: several servers leave it out.
  data: z.array(z.object({ id: z.string().min(1), owned_by: z.unknown().optional() })),
});

const versionText = z.string().min(1).max(100);
const VersionSchema = z.object({ version: versionText });
/** llama-server's /props: `build_info` since late 2024, its slot settings before that. */
const LlamaPropsSchema = z
  .object({
    build_info: versionText.optional(),
    total_slots: z.number().int().optional(),
    default_generation_settings: z.record(z.string(), z.unknown()).optional(),
  })
  .refine((p) => p.build_info !== undefined || (p.total_slots !== undefined && p.default_generation_settings !== undefined));
/** SGLang's server info: its server arguments (model_path among them) plus `version`. */
const SglangInfoSchema = z.object({ version: versionText, model_path: z.string() });
const TgiInfoSchema = z.object({ model_id: z.string(), version: versionText });

/** What the answers revealed, gathered before any engine is named. */
interface Clues {
  modelsPath: string;
  /** `owned_by` values of the model list: several servers put their own name there. */
  owners: Set<string>;
  /** `server` response headers. */
  servers: string[];
  /** Bodies of the root routes that answered 200. */
  bodies: Map<RootRoute, string>;
}

interface Finding {
  evidence: string;
  version?: string;
}
type Signal = (clues: Clues) => Finding | null;

const ownedBy =
  (owner: string): Signal =>
  (c) =>
    c.owners.has(owner) ? { evidence: `${c.modelsPath} lists models owned_by "${owner}"` } : null;

const serverHeader =
  (name: string): Signal =>
  (c) =>
    c.servers.some((s) => s.toLowerCase().startsWith(name)) ? { evidence: `response header server: ${name}` } : null;

const metricNames =
  (prefix: string): Signal =>
  (c) => {
    const text = c.bodies.get('/metrics') ?? '';
    return text.startsWith(prefix) || text.includes(`\n${prefix}`) ? { evidence: `GET /metrics has ${prefix}* metric names` } : null;
  };

function jsonAt<T>(route: RootRoute, schema: z.ZodType<T>, read: (value: T) => Finding): Signal {
  return (c) => {
    const text = c.bodies.get(route);
    if (text === undefined) return null;
    const parsed = schema.safeParse(parseJson(text));
    return parsed.success ? read(parsed.data) : null;
  };
}

const versionAt = (route: RootRoute): Signal =>
  jsonAt(route, VersionSchema, (v) => ({ evidence: `GET ${route} gives version "${v.version}"`, version: v.version }));

const sglangInfoAt = (route: RootRoute): Signal =>
  jsonAt(route, SglangInfoSchema, (i) => ({ evidence: `GET ${route} gives SGLang's server arguments and version "${i.version}"`, version: i.version }));

interface EngineRule {
  name: string;
  /** Any one of these names the engine. */
  signals: Signal[];
  /** Read once the engine is named: a route too common to name it by. */
  version?: Signal;
}

/** In order: where two engines' signs could meet, the more specific one comes first. */
const ENGINES: EngineRule[] = [
  // The simulator uses vLLM's metric names, so it is told apart before vLLM.
  { name: 'llmbench-sim', signals: [ownedBy('llmbench-sim')] },
  { name: 'MindIE', signals: [ownedBy('MindIE Server')] },
  { name: 'lmdeploy', signals: [ownedBy('lmdeploy')] },
  {
    name: 'llama.cpp',
    signals: [
      jsonAt('/props', LlamaPropsSchema, (p) =>
        p.build_info === undefined
          ? { evidence: `GET /props gives llama-server's slot settings` }
          : { evidence: `GET /props gives build_info "${p.build_info}"`, version: p.build_info },
      ),
      serverHeader('llama.cpp'),
      ownedBy('llamacpp'),
      metricNames('llamacpp:'),
    ],
  },
  { name: 'SGLang', signals: [sglangInfoAt('/server_info'), sglangInfoAt('/get_server_info'), ownedBy('sglang'), metricNames('sglang:')] },
  {
    name: 'TGI',
    signals: [jsonAt('/info', TgiInfoSchema, (i) => ({ evidence: `GET /info gives model_id and version "${i.version}"`, version: i.version }))],
  },
  { name: 'Ollama', signals: [versionAt('/api/version')] },
  { name: 'vLLM', signals: [ownedBy('vllm'), metricNames('vllm:')], version: versionAt('/version') },
];

function identify(clues: Clues): EngineIdentity | null {
  for (const engine of ENGINES) {
    const findings = engine.signals.map((signal) => signal(clues)).filter((f): f is Finding => f !== null);
    if (findings.length === 0) continue;
    const versionFinding = engine.version?.(clues);
    if (versionFinding) findings.push(versionFinding);
    return {
      name: engine.name,
      version: findings.find((f) => f.version !== undefined)?.version ?? null,
      evidence: findings.map((f) => f.evidence).join('; '),
    };
  }
  return null;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** What one GET answered: its status, its `server` header and its body, cut at PROBE_BODY_LIMIT bytes. */
export interface ProbeAnswer {
  status: number;
  server: string | null;
  text: string;
}
type Answer = ProbeAnswer;

/** How a probe sends its GETs: opened per probe with its deadline, closed when it is done. */
export interface ProbeTransport {
  get(url: string, headers: Record<string, string>, signal: AbortSignal): Promise<ProbeAnswer>;
  close(): Promise<void>;
}
export type OpenProbeTransport = (timeoutMs: number) => ProbeTransport;

const NOT_FOUND_CODES = new Set(['ENOTFOUND', 'EAI_AGAIN', 'EAI_NONAME']);
const TIMEOUT_CODES = new Set(['UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'ETIMEDOUT']);
const RESET_CODES = new Set(['ECONNRESET', 'UND_ERR_SOCKET', 'EPIPE']);

/** Why a request for the model list got no HTTP answer. */
function noAnswerMessage(error: unknown, url: URL, timedOut: boolean, timeoutMs: number): string {
  const code = errorCode(error);
  if (code === 'ECONNREFUSED') return `Nothing is listening at ${url.host} (connection refused): start the server, or correct the host and port of the URL.`;
  if (code !== undefined && NOT_FOUND_CODES.has(code)) return `The host ${url.hostname} was not found: correct the URL's host name.`;
  if (timedOut || (code !== undefined && TIMEOUT_CODES.has(code))) {
    return `No answer from ${url.href} within ${timeoutMs} ms: check that the server is up and reachable from here (a server still loading its model may not answer yet).`;
  }
  if (code !== undefined && RESET_CODES.has(code)) return `${url.host} closed the connection without answering: check that the URL's scheme (http or https) and port are the server's.`;
  if (code !== undefined && /CERT|TLS|SSL/.test(code)) return `The TLS connection to ${url.host} failed (${code}): check the server's certificate, or use http:// if it serves plain HTTP.`;
  const message = messageOf(error);
  return `Could not read ${url.href}: ${message}${code ? ` (${code})` : ''}.`;
}

function statusMessage(answer: Answer, url: URL): string {
  const said = quote(answer.text);
  const head = `${url.href} answered HTTP ${answer.status}${said ? ` "${said}"` : ''}`;
  if (answer.status === 401 || answer.status === 403) return `${head}: the server wants an API key, or another one: give the endpoint's key and try again.`;
  if (answer.status === 404) return `${head}: there is no model list there. The base URL should be the server's OpenAI API root, usually ending in /v1 (such as http://127.0.0.1:8000/v1).`;
  if (answer.status >= 500) return `${head}: the server failed; see its log.`;
  return `${head}: expected 200 with the OpenAI model list; check the base URL.`;
}

/** The ids in a model list answer, or what was wrong with it. */
function readModelList(answer: Answer, url: URL): { ids: string[]; owners: string[] } | string {
  if (answer.status !== 200) return statusMessage(answer, url);
  const json = parseJson(answer.text);
  if (json === undefined) {
    return `${url.href} did not answer JSON (it began "${quote(answer.text).slice(0, 60)}"): the URL seems to lead to something other than an OpenAI-compatible API; use the server's API root, usually ending in /v1.`;
  }
  const list = ModelListSchema.safeParse(json);
  if (!list.success) {
    return `${url.href} answered JSON that is not an OpenAI model list (expected {"data": [{"id": ...}]}): ${describeZodError(list.error)}.`;
  }
  return {
    ids: list.data.data.map((m) => m.id),
    owners: list.data.data.flatMap((m) => (typeof m.owned_by === 'string' ? [m.owned_by] : [])),
  };
}

/** The model list's URL and the server root, or null for a base URL that is not http(s). */
function endpointUrls(baseUrl: string): { models: URL; root: string } | null {
  let base: URL;
  try {
    base = new URL(baseUrl);
  } catch {
    return null;
  }
  if (base.protocol !== 'http:' && base.protocol !== 'https:') return null;
  const basePath = base.pathname.replace(/\/+$/, '');
  return { models: new URL(`${base.origin}${basePath}/models`), root: base.origin + basePath.replace(/\/v1$/, '') };
}

/**
 * Lists the endpoint's models and names its engine. Never throws: an unreadable model list is
 * described in `error`, and routes that fail only leave the engine unknown.
 */
export async function probeEndpointWith(openTransport: OpenProbeTransport, baseUrl: string, options: ProbeOptions = {}): Promise<EndpointProbe> {
  const urls = endpointUrls(baseUrl);
  if (urls === null) {
    return {
      models: [],
      engine: null,
      reachable: false,
      error: `"${baseUrl}" is not an http:// or https:// URL: give the server's OpenAI API root, such as http://127.0.0.1:8000/v1.`,
    };
  }
  const timeoutMs = options.timeoutMs ?? DEFAULT_PROBE_TIMEOUT_MS;
  const deadline = AbortSignal.timeout(timeoutMs);
  const signal = options.signal ? AbortSignal.any([options.signal, deadline]) : deadline;
  const transport = openTransport(timeoutMs);
  const headers = withApiKey(options.headers ?? {}, options.apiKey);
  try {
    const [modelsOutcome, ...rootOutcomes] = await Promise.allSettled([
      transport.get(urls.models.href, { ...headers, accept: 'application/json' }, signal),
      ...ROOT_ROUTES.map((route) => transport.get(urls.root + route, headers, signal)),
    ]);
    const clues: Clues = { modelsPath: urls.models.pathname, owners: new Set(), servers: [], bodies: new Map() };
    let reachable = false;
    for (const [i, outcome] of rootOutcomes.entries()) {
      const route = ROOT_ROUTES[i];
      if (outcome.status !== 'fulfilled' || route === undefined) continue;
      reachable = true;
      if (outcome.value.server !== null) clues.servers.push(outcome.value.server);
      if (outcome.value.status === 200) clues.bodies.set(route, outcome.value.text);
    }

    let models: string[] = [];
    let error: string | null;
    if (modelsOutcome?.status === 'fulfilled') {
      reachable = true;
      if (modelsOutcome.value.server !== null) clues.servers.push(modelsOutcome.value.server);
      const list = readModelList(modelsOutcome.value, urls.models);
      if (typeof list === 'string') {
        error = list;
      } else {
        models = list.ids;
        for (const owner of list.owners) clues.owners.add(owner);
        error = null;
      }
    } else if (options.signal?.aborted) {
      error = 'The probe was cancelled.';
    } else {
      error = noAnswerMessage(modelsOutcome?.reason, urls.models, deadline.aborted, timeoutMs);
    }
    // A server may echo the request's headers in its error body.
    if (error !== null && options.apiKey) error = error.split(options.apiKey).join('<api key>');
    return { models, engine: identify(clues), reachable, error };
  } finally {
    await transport.close();
  }
}
