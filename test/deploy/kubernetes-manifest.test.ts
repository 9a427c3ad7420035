// Covers deploy/kubernetes/pier.yaml without a cluster, by reading it as Kubernetes would: every document a
// known kind with a name; every reference resolved in the file (Secret keys, the ConfigMap, the volume claim,
// volume mounts, the Service's and the Deployment's selectors, named ports); the container as the image runs
// (its user, its data volume and HTTP port read from deploy/container/Containerfile) with a read-only root and
// a writable /tmp; probes on /ready; a grace period longer than the drain; only variables pier reads; and the
// ConfigMap's configuration file one that `pier config apply` accepts.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { parseAllDocuments } from 'yaml';
import { parseConfigText } from '../../api/config-files/parse.js';
import { environment } from '../../cli/env-help.js';
import { checkoutRoot } from '../helpers/checkout.js';

/* eslint-disable @typescript-eslint/no-explicit-any -- Kubernetes objects, read as the plain data they are */
const manifest = path.join(checkoutRoot, 'deploy/kubernetes/pier.yaml');
const documents = parseAllDocuments(readFileSync(manifest, 'utf8')).map((d) => {
  if (d.errors.length > 0) throw new Error(`${manifest}: ${d.errors.map((e) => e.message).join('; ')}`);
  return d.toJS() as any;
});
const containerfile = readFileSync(path.join(checkoutRoot, 'deploy/container/Containerfile'), 'utf8');
const ofKind = (kind: string) => documents.filter((d) => d.kind === kind);
const one = (kind: string) => {
  const found = ofKind(kind);
  if (found.length !== 1) throw new Error(`${manifest} has ${found.length} ${kind} documents, not one`);
  return found[0];
};

t.test('every document is a kind Kubernetes knows, with its API version and a name', async (t) => {
  const known: Record<string, string> = {
    Secret: 'v1',
    ConfigMap: 'v1',
    PersistentVolumeClaim: 'v1',
    Service: 'v1',
    Deployment: 'apps/v1',
  };
  t.same(
    documents.map((d) => d.kind),
    ['Secret', 'ConfigMap', 'PersistentVolumeClaim', 'Deployment', 'Service'],
  );
  for (const d of documents) {
    t.equal(d.apiVersion, known[d.kind], `${d.kind} is ${known[d.kind]}`);
    t.match(d.metadata?.name, /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/, `${d.kind} has a DNS-label name`);
  }
});

const deployment = one('Deployment');
const pod = deployment.spec.template.spec;
const [container] = pod.containers;

t.test('every reference resolves within the file', async (t) => {
  const secret = one('Secret');
  for (const variable of container.env.filter((e: any) => e.valueFrom)) {
    const ref = variable.valueFrom.secretKeyRef;
    t.equal(ref.name, secret.metadata.name, `${variable.name} names the Secret`);
    t.type(secret.stringData[ref.key], 'string', `${variable.name}: the Secret has ${ref.key}`);
  }
  const volumes = new Map<string, any>(pod.volumes.map((v: any) => [v.name, v]));
  for (const mount of container.volumeMounts)
    t.ok(volumes.has(mount.name), `mount ${mount.name} names a volume`);
  t.equal(volumes.get('config').configMap.name, one('ConfigMap').metadata.name);
  t.equal(volumes.get('data').persistentVolumeClaim.claimName, one('PersistentVolumeClaim').metadata.name);
  t.same(
    deployment.spec.selector.matchLabels,
    deployment.spec.template.metadata.labels,
    'the Deployment selects its pods',
  );
  t.same(
    one('Service').spec.selector,
    deployment.spec.template.metadata.labels,
    'the Service selects the pods',
  );
  const ports = new Set(container.ports.map((p: any) => p.name));
  for (const port of one('Service').spec.ports) t.ok(ports.has(port.targetPort), `Service port ${port.name}`);
  for (const probe of ['readinessProbe', 'startupProbe', 'livenessProbe']) {
    const action = container[probe].httpGet ?? container[probe].tcpSocket;
    t.ok(ports.has(action.port), `${probe} names a port of the container`);
  }
});

t.test('the container runs as the image does: its user, volume and port, a read-only root', async (t) => {
  const user = /^USER (\d+):(\d+)$/m.exec(containerfile);
  t.equal(pod.securityContext.runAsUser, Number(user?.[1]), 'the Containerfile USER');
  t.equal(pod.securityContext.runAsGroup, Number(user?.[2]));
  t.equal(pod.securityContext.runAsNonRoot, true);
  t.equal(container.securityContext.readOnlyRootFilesystem, true);
  t.equal(container.securityContext.allowPrivilegeEscalation, false);
  const volume = /^VOLUME \["([^"]+)"\]$/m.exec(containerfile)?.[1];
  const mounts = new Map<string, string>(container.volumeMounts.map((m: any) => [m.mountPath, m.name]));
  t.equal(mounts.get(volume!), 'data', `the data directory ${volume} is on the volume claim`);
  t.equal(mounts.get('/tmp'), 'tmp', '/tmp is writable (an emptyDir), as podman run --read-only gives');
  const httpPort = Number(/HTTP_PORT=(\d+)/.exec(containerfile)?.[1]);
  t.equal(container.ports.find((p: any) => p.name === 'http').containerPort, httpPort, 'the image HTTP_PORT');
  t.equal(container.readinessProbe.httpGet.path, '/ready', 'ready means pier takes work');
  t.equal(container.startupProbe.httpGet.path, '/ready');
});

t.test('a stop drains: the grace period is longer than PIER_SHUTDOWN_TIMEOUT', async (t) => {
  const drain = Number(container.env.find((e: any) => e.name === 'PIER_SHUTDOWN_TIMEOUT').value);
  t.ok(pod.terminationGracePeriodSeconds > drain, `${pod.terminationGracePeriodSeconds} s > ${drain} s`);
});

t.test('only variables pier reads, and a configuration file pier config apply accepts', async (t) => {
  const read = new Set<string>([...environment.serve.map(([name]) => name), 'PIER_CONFIG_FILE']);
  for (const variable of container.env) t.ok(read.has(variable.name), `pier reads ${variable.name}`);
  const file = container.env.find((e: any) => e.name === 'PIER_CONFIG_FILE').value as string;
  const mount = container.volumeMounts.find((m: any) => m.name === 'config');
  t.equal(path.dirname(file), mount.mountPath, 'PIER_CONFIG_FILE is in the mounted ConfigMap');
  const text = one('ConfigMap').data[path.basename(file)];
  t.type(text, 'string', 'the ConfigMap holds the file');
  t.doesNotThrow(() => parseConfigText(text), 'the file reads as a configuration file');
  const as2 = parseConfigText(text).instances.find((i) => i.type === 'as2-receiver');
  t.equal(
    (as2?.settings as { port?: number } | undefined)?.port,
    container.ports.find((p: any) => p.name === 'as2').containerPort,
    "the AS2 receiver listens on the container's as2 port",
  );
});
