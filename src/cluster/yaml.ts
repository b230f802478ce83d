/**
 * Kubernetes manifests as YAML, from plain objects, without a YAML library: block mappings and
 * sequences, every string double-quoted with JSON's escapes (which YAML's double-quoted scalars
 * share), numbers, booleans and null as JSON writes them, documents separated by `---`. Keys are
 * left bare only when no YAML reader, 1.1 or 1.2, could take them for anything but a string
 * (kubectl reads YAML 1.1, where `on`, `yes` and `no` are booleans).
 */

export type YamlValue = string | number | boolean | null | readonly YamlValue[] | { readonly [key: string]: YamlValue | undefined };

const BARE_KEY = /^[A-Za-z][A-Za-z0-9]*$/;
const YAML11_WORDS = new Set(['y', 'n', 'yes', 'no', 'on', 'off', 'true', 'false', 'null']);

/**
 * A string as a YAML double-quoted scalar: JSON's escapes, plus `\uXXXX` for what JSON leaves bare
 * but YAML may not hold bare or reads as a line break (DEL, C1 controls, NEL, U+2028/2029, BOM,
 * the non-characters U+FFFE/U+FFFF).
 */
export function yamlString(text: string): string {
  return JSON.stringify(text).replace(/[\u007f-\u009f\u2028\u2029\ufeff\ufffe\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

function yamlKey(key: string): string {
  return BARE_KEY.test(key) && !YAML11_WORDS.has(key.toLowerCase()) ? key : yamlString(key);
}

function scalar(value: string | number | boolean | null): string {
  if (typeof value === 'string') return yamlString(value);
  if (typeof value === 'number' && !Number.isFinite(value)) throw new Error(`a manifest cannot hold the number ${value}`);
  return JSON.stringify(value);
}

const isContainer = (value: YamlValue | undefined): value is readonly YamlValue[] | { readonly [key: string]: YamlValue | undefined } => typeof value === 'object' && value !== null;

function entriesOf(value: { readonly [key: string]: YamlValue | undefined }): [string, YamlValue][] {
  return Object.entries(value).filter((entry): entry is [string, YamlValue] => entry[1] !== undefined);
}

/** The lines of `value` at `indent` spaces; a container's first line is what follows `key:` or `- `. */
function lines(value: YamlValue, indent: number): string[] {
  const pad = ' '.repeat(indent);
  if (Array.isArray(value)) {
    return value.flatMap((item: YamlValue) => {
      if (isContainer(item) && (Array.isArray(item) ? item.length > 0 : entriesOf(item as Record<string, YamlValue>).length > 0)) {
        const inner = lines(item, indent + 2);
        return [`${pad}- ${inner[0]!.trimStart()}`, ...inner.slice(1)];
      }
      return [`${pad}- ${inline(item)}`];
    });
  }
  return entriesOf(value as { readonly [key: string]: YamlValue | undefined }).flatMap(([key, item]) => {
    const nonEmpty = isContainer(item) && (Array.isArray(item) ? item.length > 0 : entriesOf(item as Record<string, YamlValue>).length > 0);
    return nonEmpty ? [`${pad}${yamlKey(key)}:`, ...lines(item, indent + 2)] : [`${pad}${yamlKey(key)}: ${inline(item)}`];
  });
}

/** A scalar, or an empty container as `[]` / `{}`. */
function inline(value: YamlValue): string {
  if (Array.isArray(value)) return '[]';
  if (isContainer(value)) return '{}';
  return scalar(value as string | number | boolean | null);
}

/** One YAML stream: each object a document, `---` between them, ending with a newline. */
export function yamlDocuments(documents: readonly { readonly [key: string]: YamlValue | undefined }[]): string {
  return documents.map((doc) => lines(doc, 0).join('\n')).join('\n---\n') + '\n';
}
