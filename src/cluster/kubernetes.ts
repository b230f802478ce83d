/**
 * `llmbench cluster k8s`: a Kubernetes manifest for the shards of one run:
 *  - an Indexed Job (completionMode Indexed, parallelism = completions = N): pod I is shard I and
 *    reads I from JOB_COMPLETION_INDEX, which Kubernetes sets in every pod of an Indexed Job;
 *  - a headless Service whose selector matches those pods, named in the pod template's
 *    `subdomain`, so that pod 0, the coordinator, answers at NAME-0.NAME;
 *  - the run token as an environment variable from a Secret: a Secret written beside them with a
 *    fresh token, or one that exists already (`--token-secret`), under the key `token`;
 *  - a volume where the result lands (a PersistentVolumeClaim or a hostPath).
 * backoffLimit is 0: a shard started again would send its part of the plan a second time into a run
 * that has moved on; the coordinator ends the run partial instead and keeps what was measured.
 */
import * as z from 'zod';
import { anyText, crossCheck, isWritableText, llmbenchArgv, llmbenchOption, portOption, runFlagsOption, wholeNumber } from './options';
import { RUN_TOKEN_ENV, shardRunArgs } from './shard-command';
import type { YamlValue } from './yaml';

/** RFC 1123 labels: what Kubernetes accepts as the name of a Service, and of a Job whose pods get hostnames. */
const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
/** Kubernetes' quantity syntax (resource.Quantity), positive. */
const QUANTITY = /^(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))(([KMGTPE]i)|[numkMGTPE]|([eE][+-]?(([0-9]+(\.[0-9]*)?)|(\.[0-9]+))))?$/;
/** A label's key (optional DNS-subdomain prefix and `/`, then a name) and value. */
const LABEL_KEY = /^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\/)?[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$/;
const LABEL_VALUE = /^([A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?)?$/;

/** The key of the run token in its Secret. */
export const TOKEN_SECRET_KEY = 'token';
/** Where the result volume is mounted when --mount-path is not given. */
export const DEFAULT_MOUNT_PATH = '/results';

function dnsLabel(what: string) {
  return z.string().regex(DNS_LABEL, { error: `is not ${what}: lowercase letters, digits and '-', starting and ending with a letter or digit` }).max(63, { error: `is longer than 63 characters, too long for ${what}` });
}

const quantity = (example: string) => z.string().regex(QUANTITY, { error: `is not a Kubernetes quantity; give one like ${example}` });

const nodeSelectorEntry = z.string().refine(
  (text) => {
    const equals = text.indexOf('=');
    return equals > 0 && LABEL_KEY.test(text.slice(0, equals)) && LABEL_VALUE.test(text.slice(equals + 1));
  },
  { error: 'is not a node label as key=value; give one like --node-selector node.kubernetes.io/instance-type=c7i.8xlarge' },
);

const KubernetesShapeSchema = z.object({
  image: anyText('the container image that holds llmbench, like --image registry.example/llm-bench:0.1.0').refine((s) => !/\s/.test(s), { error: 'holds a space' }),
  shards: wholeNumber(1, 'the number of shards (pods) like --shards 4'),
  out: anyText(`the result file inside the result volume, like --out ${DEFAULT_MOUNT_PATH}/run.llmbench.json`),
  pvc: dnsLabel('a PersistentVolumeClaim name').optional(),
  hostPath: z.string().refine((s) => s.startsWith('/') && isWritableText(s) && !s.includes('\n'), { error: 'is not an absolute path on the nodes, like --host-path /mnt/shared/results' }).optional(),
  mountPath: z.string().refine((s) => /^\/[^:\n\0]*$/.test(s) && isWritableText(s), { error: `is not an absolute path in the container, like --mount-path ${DEFAULT_MOUNT_PATH}` }).default(DEFAULT_MOUNT_PATH),
  name: dnsLabel('a Job and Service name').default('llmbench'),
  namespace: dnsLabel('a namespace').optional(),
  cpu: quantity('--cpu 8 or --cpu 500m').optional(),
  memory: quantity('--memory 16Gi').optional(),
  cpuLimit: quantity('--cpu-limit 8').optional(),
  memoryLimit: quantity('--memory-limit 16Gi').optional(),
  nodeSelector: z.array(nodeSelectorEntry).default([]),
  tokenSecret: dnsLabel('a Secret name').optional(),
  backoffLimit: wholeNumber(0, 'retries of a failed shard like --backoff-limit 0').default(0),
  deadline: wholeNumber(1, 'seconds like --deadline 3600 (the Job\'s activeDeadlineSeconds)').optional(),
  port: portOption,
  llmbench: llmbenchOption,
  manifest: z.string().refine((s) => s.length > 0 && isWritableText(s), { error: 'is not a file name' }).optional(),
  runFlags: runFlagsOption,
});
type KubernetesShape = z.output<typeof KubernetesShapeSchema>;

export const KubernetesOptionsSchema = KubernetesShapeSchema.check(
  crossCheck<KubernetesShape>((o, fail) => {
    if (o.pvc === undefined && o.hostPath === undefined) fail('pvc', 'or --host-path DIR is required: where the result lands (a ReadWriteMany PersistentVolumeClaim every pod mounts, or a directory on the nodes)');
    if (o.pvc !== undefined && o.hostPath !== undefined) fail('hostPath', 'and --pvc both name the result volume; give one');
    const mount = o.mountPath.replace(/\/+$/, '');
    if (!o.out.startsWith(`${mount}/`) || o.out.length <= mount.length + 1) {
      fail('out', `is not inside the result volume, mounted at ${o.mountPath}; give a file under it like --out ${mount}/run.llmbench.json`);
    }
    const lastPod = `${o.name}-${o.shards - 1}`;
    if (lastPod.length > 63) fail('name', `is too long for ${o.shards} pods: their host names (${lastPod}) must stay within 63 characters`);
  }),
);

export type KubernetesOptions = z.output<typeof KubernetesOptionsSchema>;

/** The objects of the manifest, in the order kubectl should apply them. */
export interface KubernetesManifest {
  /** Absent when the token is read from an existing Secret (--token-secret). */
  secret?: Record<string, YamlValue>;
  service: Record<string, YamlValue>;
  job: Record<string, YamlValue>;
}

/** The coordinator's address inside the cluster: pod 0 of the Job under the headless Service. */
export function coordinatorHost(options: KubernetesOptions): string {
  return `${options.name}-0.${options.name}`;
}

/** The command of every shard's container (exec form, no shell): its index comes from JOB_COMPLETION_INDEX. */
export function shardContainerCommand(options: KubernetesOptions): string[] {
  return [...llmbenchArgv(options.llmbench), ...shardRunArgs({ runFlags: options.runFlags, out: options.out, shards: options.shards, coordinator: { host: coordinatorHost(options), port: options.port } })];
}

/** The name of the Secret that holds the run token. */
export function tokenSecretName(options: KubernetesOptions): string {
  return options.tokenSecret ?? `${options.name}-run-token`;
}

/**
 * The manifest's objects. `token` is the run token written into a new Secret; it is needed (and
 * used) only when the options name no existing Secret.
 */
export function kubernetesManifest(options: KubernetesOptions, token: string | undefined): KubernetesManifest {
  const labels = { 'app.kubernetes.io/name': 'llmbench', 'app.kubernetes.io/instance': options.name, 'app.kubernetes.io/component': 'shard' };
  const metadata = (name: string) => ({ name, ...(options.namespace ? { namespace: options.namespace } : {}), labels });
  const secretName = tokenSecretName(options);
  if (options.tokenSecret === undefined && !token) throw new Error('kubernetesManifest: a new Secret needs a run token');

  const requests = { ...(options.cpu ? { cpu: options.cpu } : {}), ...(options.memory ? { memory: options.memory } : {}) };
  // Limits default to the requests: a shard that may use more than it asked for is throttled or
  // evicted under pressure exactly when the measurement matters.
  const limits = { ...requests, ...(options.cpuLimit ? { cpu: options.cpuLimit } : {}), ...(options.memoryLimit ? { memory: options.memoryLimit } : {}) };
  const resources = { ...(Object.keys(requests).length ? { requests } : {}), ...(Object.keys(limits).length ? { limits } : {}) };
  const volume = options.pvc !== undefined ? { name: 'results', persistentVolumeClaim: { claimName: options.pvc } } : { name: 'results', hostPath: { path: options.hostPath!, type: 'DirectoryOrCreate' } };
  const nodeSelector = Object.fromEntries(options.nodeSelector.map((entry) => [entry.slice(0, entry.indexOf('=')), entry.slice(entry.indexOf('=') + 1)]));

  return {
    ...(options.tokenSecret === undefined
      ? { secret: { apiVersion: 'v1', kind: 'Secret', metadata: metadata(secretName), type: 'Opaque', stringData: { [TOKEN_SECRET_KEY]: token! } } }
      : {}),
    service: {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: metadata(options.name),
      spec: {
        clusterIP: 'None',
        selector: { 'app.kubernetes.io/name': 'llmbench', 'app.kubernetes.io/instance': options.name },
        // Shards look the coordinator up as soon as they start, before any pod reports ready.
        publishNotReadyAddresses: true,
        ports: [{ name: 'coordinator', port: options.port, targetPort: options.port, protocol: 'TCP' }],
      },
    },
    job: {
      apiVersion: 'batch/v1',
      kind: 'Job',
      metadata: metadata(options.name),
      spec: {
        completionMode: 'Indexed',
        completions: options.shards,
        parallelism: options.shards,
        backoffLimit: options.backoffLimit,
        ...(options.deadline !== undefined ? { activeDeadlineSeconds: options.deadline } : {}),
        template: {
          metadata: { labels },
          spec: {
            subdomain: options.name,
            restartPolicy: 'Never',
            ...(Object.keys(nodeSelector).length ? { nodeSelector } : {}),
            containers: [
              {
                name: 'shard',
                image: options.image,
                command: shardContainerCommand(options),
                env: [{ name: RUN_TOKEN_ENV, valueFrom: { secretKeyRef: { name: secretName, key: TOKEN_SECRET_KEY } } }],
                ports: [{ name: 'coordinator', containerPort: options.port, protocol: 'TCP' }],
                ...(Object.keys(resources).length ? { resources } : {}),
                volumeMounts: [{ name: 'results', mountPath: options.mountPath }],
              },
            ],
            volumes: [volume],
          },
        },
      },
    },
  };
}

/** The manifest's documents in apply order: the Secret (when written), the Service, the Job. */
export function manifestDocuments(manifest: KubernetesManifest): Record<string, YamlValue>[] {
  return [...(manifest.secret ? [manifest.secret] : []), manifest.service, manifest.job];
}
