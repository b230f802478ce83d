/**
 * Kubernetes' own schemas for manifests the launchers write: the models of the npm package
 * kubernetes-models (5.x, the API server's OpenAPI schemas compiled to validators), loaded with a
 * dynamic import since the package is ES modules only. Two checks:
 *  - `validate()`: types, enums, required fields, formats, as the package gives them;
 *  - unknown fields: the schemas allow fields they do not name, while `kubectl apply` refuses them
 *    (its default --validate=strict). A field is known when the schema checks it: set to a value no
 *    schema accepts (a Symbol), a known field gets an error at its own path, an unknown one none.
 */

// js-yaml (a dev dependency) ships no types: the two functions used here.
const yaml = require('js-yaml') as { load(text: string): unknown; loadAll(text: string): unknown[] };

export type KubernetesKind = 'Job' | 'Service' | 'Secret';

interface Model {
  validate(): void;
}
type ModelClass = new (data: unknown) => Model;

async function modelClass(kind: KubernetesKind): Promise<ModelClass> {
  if (kind === 'Job') return (await import('kubernetes-models/batch/v1/Job')).Job as unknown as ModelClass;
  if (kind === 'Service') return (await import('kubernetes-models/v1/Service')).Service as unknown as ModelClass;
  return (await import('kubernetes-models/v1/Secret')).Secret as unknown as ModelClass;
}

interface SchemaError {
  instancePath: string;
  message?: string;
}

function errorsOf(Model: ModelClass, object: unknown): SchemaError[] {
  try {
    new Model(object).validate();
    return [];
  } catch (error) {
    const errors = (error as { errors?: SchemaError[] }).errors;
    if (!Array.isArray(errors)) throw error;
    return errors;
  }
}

/** Every path to a field of an object (into arrays too), as keys. */
function fieldPaths(value: unknown, prefix: (string | number)[] = []): (string | number)[][] {
  if (Array.isArray(value)) return value.flatMap((item, i) => fieldPaths(item, [...prefix, i]));
  if (typeof value !== 'object' || value === null) return [];
  return Object.entries(value).flatMap(([key, item]) => [[...prefix, key], ...fieldPaths(item, [...prefix, key])]);
}

function withProbe(object: unknown, path: (string | number)[]): unknown {
  const clone = structuredClone(object) as Record<string | number, unknown>;
  let node = clone;
  for (const key of path.slice(0, -1)) node = node[key] as Record<string | number, unknown>;
  node[path.at(-1)!] = Symbol('unknown-field-probe');
  return clone;
}

/** A JSON pointer, as the validators' instancePath writes it (`/` in a key is `~1`). */
function pointer(path: (string | number)[]): string {
  return path.map((key) => `/${String(key).replace(/~/g, '~0').replace(/\//g, '~1')}`).join('');
}

/** What Kubernetes' schemas say is wrong with `object` as a `kind`: `path: message` lines, empty when valid. */
export async function kubernetesSchemaErrors(kind: KubernetesKind, object: unknown): Promise<string[]> {
  const Model = await modelClass(kind);
  const errors = errorsOf(Model, object).map((e) => `${e.instancePath || '/'}: ${e.message ?? 'invalid'}`);
  const unknown = fieldPaths(object)
    .filter((path) => {
      const at = pointer(path);
      return !errorsOf(Model, withProbe(object, path)).some((e) => e.instancePath === at);
    })
    .map((path) => `${pointer(path)}: a field ${kind} does not have (kubectl apply refuses it)`);
  return [...errors, ...unknown];
}

/** The documents of a YAML stream, read by a YAML library (js-yaml), not by our writer. */
export function readYamlDocuments(text: string): unknown[] {
  return yaml.loadAll(text);
}

export function readYaml(text: string): unknown {
  return yaml.load(text);
}
