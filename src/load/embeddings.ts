/**
 * Embeddings (`POST /v1/embeddings`: vLLM, TEI, Infinity, llama.cpp's `--embeddings`): a batch of
 * texts in, one vector each out, in one JSON body. There is no stream, so no TTFT, ITL or TPOT;
 * a record has its latency, its input tokens (the server's `usage.prompt_tokens` when given) and
 * the vectors returned, which must be one per input.
 */
import { quote } from '../format/errors';
import { promptFor } from '../workload/prompt';
import type { ApiProtocol, ReadFailure } from './types';

export const embeddingsProtocol: ApiProtocol = {
  route: 'embeddings',
  streams: false,
  needsTerminalEvent: false,

  body(request, model) {
    const inputs = request.inputs ?? [promptFor(request.prompt, false) as string];
    // Floats, as every server returns by default; `--extra-body '{"encoding_format": "base64"}'` asks for less to parse.
    return { model, input: inputs, encoding_format: 'float' };
  },

  fixBody() {
    // No stream to ask for, and no usage option: the body carries both.
  },

  readEvent() {
    return { kind: 'protocol', message: 'an embeddings response is one JSON body, not a stream' };
  },

  readBody(body, output, request): ReadFailure | null {
    const data = typeof body === 'object' && body !== null ? (body as Record<string, unknown>).data : undefined;
    if (!Array.isArray(data)) return { kind: 'protocol', message: 'the response has no "data" list of embeddings', detail: quote(JSON.stringify(body)) };
    output.embeddings = data.length;
    output.readUsage((body as Record<string, unknown>).usage);
    const sent = request.inputs?.length ?? 1;
    return data.length === sent ? null : { kind: 'protocol', message: `the server returned ${data.length} embeddings for the ${sent} inputs sent` };
  },

  textOnly() {
    return null;
  },
};
