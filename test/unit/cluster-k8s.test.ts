/**
 * `llmbench cluster k8s`: the manifest it writes, read back by a YAML library and checked against
 * Kubernetes' own schemas (kubernetes-models: batch/v1 Job, v1 Service, v1 Secret), fields unknown
 * to them included, then for what makes the shards work: an Indexed Job of N pods whose template's
 * subdomain is a headless Service selecting them, the coordinator at pod 0's DNS name, the run token
 * from a Secret through the environment only, and the result volume. Negative tests show that the
 * schema check catches a wrong type, a wrong enum value and a misspelt field.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { kubernetesManifest, KubernetesOptionsSchema } from '../../src/cluster/kubernetes';
import { parseLauncherOptions } from '../../src/cluster/options';
import { yamlDocuments, yamlString } from '../../src/cluster/yaml';
import { kubernetesSchemaErrors, readYaml, readYamlDocuments, type KubernetesKind } from '../helpers/kubernetes-schema';
import { cliPath } from '../helpers/limited-child';

type Doc = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const RUN_FLAGS = ['--url', 'http://router.bench.svc:8000/v1', '--model', 'Qwen/Qwen2-7B-Instruct', '--concurrency', '256', '--requests', '20000'];

function cluster(args: string[]): { code: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [cliPath, 'cluster', 'k8s', ...args], { encoding: 'utf8', timeout: 30_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** Writes the manifest through the command line into a file and reads it back with js-yaml. */
function manifestFromCli(args: string[]): { docs: Doc[]; text: string; path: string } {
  const path = join(mkdtempSync(join(tmpdir(), 'llmbench-k8s-')), 'shards.yaml');
  const r = cluster(['--manifest', path, ...args]);
  assert.equal(r.code, 0, r.stderr);
  const text = readFileSync(path, 'utf8');
  return { docs: readYamlDocuments(text) as Doc[], text, path };
}

async function assertValid(docs: Doc[]): Promise<void> {
  for (const doc of docs) {
    assert.deepEqual(await kubernetesSchemaErrors(doc.kind as KubernetesKind, doc), [], `${doc.kind} ${doc.metadata?.name}`);
  }
}

const byKind = (docs: Doc[], kind: string): Doc => {
  const found = docs.find((d) => d.kind === kind);
  assert.ok(found, `no ${kind} in ${docs.map((d) => d.kind).join(', ')}`);
  return found;
};

test('4 shards on a PVC: Secret, headless Service and Indexed Job, valid against Kubernetes\' schemas, wired together', async () => {
  const { docs, text, path } = manifestFromCli([
    '--image', 'registry.example/llm-bench:0.1.0', '--shards', '4', '--pvc', 'bench-results', '--out', '/results/qwen/run.llmbench.json',
    '--name', 'qwen-sweep', '--namespace', 'bench', '--cpu', '8', '--memory', '16Gi', '--node-selector', 'node.kubernetes.io/instance-type=c7i.8xlarge',
    '--deadline', '7200', '--port', '31000', '--', ...RUN_FLAGS,
  ]);
  assert.deepEqual(docs.map((d) => d.kind), ['Secret', 'Service', 'Job'], 'apply order: the Secret and the Service before the pods that use them');
  await assertValid(docs);
  assert.equal(statSync(path).mode & 0o777, 0o600, 'the manifest holds the token: readable by its owner only');

  const [secret, service, job] = [byKind(docs, 'Secret'), byKind(docs, 'Service'), byKind(docs, 'Job')];
  for (const doc of docs) assert.equal(doc.metadata.namespace, 'bench');
  assert.equal(job.spec.completionMode, 'Indexed');
  assert.equal(job.spec.completions, 4);
  assert.equal(job.spec.parallelism, 4);
  assert.equal(job.spec.backoffLimit, 0, 'a failed shard is not started again');
  assert.equal(job.spec.activeDeadlineSeconds, 7200);
  const pod = job.spec.template;
  assert.equal(pod.spec.restartPolicy, 'Never');
  assert.equal(pod.spec.subdomain, service.metadata.name, "pod DNS names come from the Service named in the template's subdomain");
  assert.equal(service.spec.clusterIP, 'None');
  assert.equal(service.spec.publishNotReadyAddresses, true);
  for (const [key, value] of Object.entries(service.spec.selector as Record<string, string>)) {
    assert.equal(pod.metadata.labels[key], value, `the Service selects the Job's pods (${key})`);
  }
  assert.deepEqual(service.spec.ports, [{ name: 'coordinator', port: 31000, targetPort: 31000, protocol: 'TCP' }]);
  assert.deepEqual(pod.spec.nodeSelector, { 'node.kubernetes.io/instance-type': 'c7i.8xlarge' });

  const [container] = pod.spec.containers;
  assert.equal(pod.spec.containers.length, 1);
  assert.equal(container.image, 'registry.example/llm-bench:0.1.0');
  assert.deepEqual(container.command, [
    'llmbench', 'run', ...RUN_FLAGS,
    '--out', '/results/qwen/run.llmbench.json', '--shards', '4', '--coordinator', 'qwen-sweep-0.qwen-sweep:31000',
  ]);
  assert.deepEqual(container.resources, { requests: { cpu: '8', memory: '16Gi' }, limits: { cpu: '8', memory: '16Gi' } });
  assert.deepEqual(container.env, [{ name: 'LLMBENCH_RUN_TOKEN', valueFrom: { secretKeyRef: { name: secret.metadata.name, key: 'token' } } }]);
  assert.match(secret.stringData.token, /^[0-9a-f]{64}$/);
  assert.ok(!JSON.stringify(job).includes(secret.stringData.token), 'the token is only in the Secret');
  assert.deepEqual(container.volumeMounts, [{ name: 'results', mountPath: '/results' }]);
  assert.deepEqual(pod.spec.volumes, [{ name: 'results', persistentVolumeClaim: { claimName: 'bench-results' } }]);

  // A fresh token each time the manifest is written.
  const again = manifestFromCli(['--image', 'i', '--shards', '2', '--pvc', 'p', '--out', '/results/r.json', '--', ...RUN_FLAGS]);
  assert.notEqual(byKind(again.docs, 'Secret').stringData.token, secret.stringData.token);
  assert.match(text, /^---$/m, 'documents separated by ---');
});

test('a hostPath volume, an existing Secret, limits of their own, a .js llmbench and hostile run flags: still valid, the words unchanged', async () => {
  const hostile = ["'; rm -rf / #", 'on', 'yes: no', '- x', '{a: [b]}', '"quoted" \\ back', 'line\nbreak', '\u2028sep\u2029', 'del\u007f c1\u0085', '💥', '*', '$(id)', '---', '#comment', ''];
  const runFlags = ['--url', 'http://10.0.0.5:8000/v1', '--model', 'm', ...hostile.flatMap((value, i) => ['--label', `k${i}=${value}`])];
  const { docs } = manifestFromCli([
    '--image', 'ghcr.io/org/llm-bench@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef', '--shards', '16', '--host-path', '/mnt/shared/bench',
    '--mount-path', '/data', '--out', '/data/run.llmbench.json', '--token-secret', 'bench-token', '--cpu', '500m', '--cpu-limit', '2', '--memory-limit', '4Gi',
    '--llmbench', '/opt/llm-bench/dist/cli.js', '--backoff-limit', '1', '--', ...runFlags,
  ]);
  assert.deepEqual(docs.map((d) => d.kind), ['Service', 'Job'], 'an existing Secret is referenced, none written');
  await assertValid(docs);
  const job = byKind(docs, 'Job');
  const container = job.spec.template.spec.containers[0];
  assert.deepEqual(container.command, ['node', '/opt/llm-bench/dist/cli.js', 'run', ...runFlags, '--out', '/data/run.llmbench.json', '--shards', '16', '--coordinator', 'llmbench-0.llmbench:29517']);
  assert.deepEqual(container.env[0].valueFrom.secretKeyRef, { name: 'bench-token', key: 'token' });
  assert.deepEqual(container.resources, { requests: { cpu: '500m' }, limits: { cpu: '2', memory: '4Gi' } });
  assert.deepEqual(job.spec.template.spec.volumes, [{ name: 'results', hostPath: { path: '/mnt/shared/bench', type: 'DirectoryOrCreate' } }]);
  assert.equal(job.spec.backoffLimit, 1);
  assert.equal(job.spec.completions, 16);
});

test('the schema check is real: a wrong type, a wrong enum value and a misspelt field are each caught', async () => {
  const options = parseLauncherOptions(KubernetesOptionsSchema, { image: 'i', shards: '4', pvc: 'p', out: '/results/r.json', runFlags: RUN_FLAGS });
  const { job, service } = kubernetesManifest(options, 'a'.repeat(64));
  assert.deepEqual(await kubernetesSchemaErrors('Job', job), []);
  assert.deepEqual(await kubernetesSchemaErrors('Service', service), []);
  const jobSpec = job.spec as Doc;

  const wrongType = { ...job, spec: { ...jobSpec, parallelism: '4' } };
  assert.match((await kubernetesSchemaErrors('Job', wrongType)).join('\n'), /\/spec\/parallelism: must be integer/);
  const wrongEnum = { ...job, spec: { ...jobSpec, completionMode: 'indexed' } };
  assert.match((await kubernetesSchemaErrors('Job', wrongEnum)).join('\n'), /\/spec\/completionMode: must be equal to one of the allowed values/);
  const misspelt = { ...job, spec: { ...jobSpec, completionsMode: 'Indexed' } };
  assert.deepEqual(await kubernetesSchemaErrors('Job', misspelt), ['/spec/completionsMode: a field Job does not have (kubectl apply refuses it)']);
  const deepMisspelt = structuredClone(service) as Doc;
  deepMisspelt.spec.ports[0].target_port = 1;
  assert.deepEqual(await kubernetesSchemaErrors('Service', deepMisspelt), ['/spec/ports/0/target_port: a field Service does not have (kubectl apply refuses it)']);
});

test('YAML: every string, key and control character reads back exactly with a YAML library; words YAML 1.1 reads as booleans are quoted', () => {
  const strings = ['', 'plain', 'on', 'yes', 'No', 'y', 'null', '~', '0755', '1e3', '- item', 'key: value', '#x', '---', '...', '"', "'", '\\', '\n', '\r\n', '\t', '\u0000\u0001\u001f', '\u007f', '\u0085', '\u009f', '\u00a0', '\u2028', '\u2029', '\ufeff', '\ufffe', '\uffff', 'é', '𝄞', '💥', '{a: 1}', '[1, 2]', '&anchor', '*alias', '!tag', '%directive', '@', '`', '|', '>', ' leading', 'trailing ', '  '];
  const doc = {
    strings,
    map: Object.fromEntries(strings.filter((s) => s !== '').map((s, i) => [s, i])),
    nested: [[], {}, [{ a: [] }], { b: {} }, [[1, [2]]], true, false, null, 0, -1, 1.5],
    on: 'key that YAML 1.1 reads as true',
    y: 'and one it reads as a boolean too',
  };
  const text = yamlDocuments([doc, { second: 'document' }]);
  assert.deepEqual(readYamlDocuments(text), [doc, { second: 'document' }]);
  // js-yaml is lenient; kubectl's YAML 1.1 reader refuses characters outside YAML's printable set
  // and breaks lines at NEL, U+2028 and U+2029: none of them may stand bare in the text.
  const bare = [...text].filter((c) => !/^[\t\n\x20-\x7e\xa0-\u2027\u202a-\ud7ff\ue000-\ufefe\uff00-\ufffd\u{10000}-\u{10ffff}]$/u.test(c));
  assert.deepEqual(bare.map((c) => `U+${c.codePointAt(0)!.toString(16).padStart(4, '0')}`), []);
  assert.match(text, /^"on": /m);
  assert.match(text, /^"y": /m);
  for (const s of strings) assert.deepEqual(readYaml(`v: ${yamlString(s)}`), { v: s }, JSON.stringify(s));
});

test('wrong options are refused with the flag named and what to give (exit 2)', () => {
  const cases: [string[], RegExp][] = [
    [['--image', 'i', '--shards', '4', '--out', '/results/r.json', '--', ...RUN_FLAGS], /--pvc or --host-path DIR is required/],
    [['--image', 'i', '--shards', '4', '--pvc', 'p', '--host-path', '/x', '--out', '/results/r.json', '--', ...RUN_FLAGS], /--host-path: '\/x' and --pvc both name the result volume/],
    [['--image', 'i', '--shards', '4', '--pvc', 'p', '--out', '/elsewhere/r.json', '--', ...RUN_FLAGS], /--out: '\/elsewhere\/r.json' is not inside the result volume, mounted at \/results/],
    [['--image', 'i', '--shards', '100', '--pvc', 'p', '--out', '/results/r.json', '--name', 'a'.repeat(61), '--', ...RUN_FLAGS], /--name: 'a{61}' is too long for 100 pods/],
    [['--image', 'i', '--shards', '0', '--pvc', 'Bad_Claim', '--out', '/results/r.json', '--cpu', '1.5 cores', '--', ...RUN_FLAGS], /--shards: '0' must be at least 1[\s\S]*--pvc: 'Bad_Claim' is not a PersistentVolumeClaim name[\s\S]*--cpu: '1.5 cores' is not a Kubernetes quantity/],
    [['--image', 'i', '--shards', '4', '--pvc', 'p', '--out', '/results/r.json', '--', '--url', 'u', '--shard', '1'], /the run flags after --: --shard cannot be passed to the shards/],
    [['--image', 'i', '--shards', '4', '--pvc', 'p', '--out', '/results/r.json', '--', '--url', 'u', '--sim'], /--sim cannot be passed to the shards: each shard would start a simulator of its own/],
    [['--image', 'i', '--shards', '4', '--pvc', 'p', '--out', '/results/r.json', '--', '--url', 'u', '--concurency', '4'], /the run flags after --: --concurency is not an option of llmbench run/],
  ];
  for (const [args, message] of cases) {
    const r = cluster(args);
    assert.equal(r.code, 2, `${args.join(' ')}: ${r.stderr}`);
    assert.match(r.stderr, message);
    assert.equal(r.stdout, '', 'nothing written on bad input');
  }
});
