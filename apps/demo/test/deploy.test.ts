// The demo's deployment artifacts held to what fw documents: the Dockerfile (multi-stage, a
// non-root user, fw start as PID 1) and the Kubernetes manifests (fw's probe paths, a grace period
// that covers the shutdown order, a Service, an HPA on CPU, the Redis URL from a ConfigMap).
// Docker and a cluster are not available where the tests run, so the files are parsed, not run.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { createApp, type App } from '@fw/app';

const DEPLOY = join(__dirname, '..', 'deploy');
const APP_README = readFileSync(require.resolve('@fw/app/package.json').replace(/package\.json$/, 'README.md'), 'utf8');
const CORE_README = readFileSync(require.resolve('@fw/core/package.json').replace(/package\.json$/, 'README.md'), 'utf8');

interface Probe {
  httpGet?: { path: string; port: string | number };
  periodSeconds?: number;
  timeoutSeconds?: number;
  failureThreshold?: number;
}
interface Container {
  name: string;
  command?: string[];
  ports: Array<{ name: string; containerPort: number }>;
  env?: Array<{ name: string; value?: string }>;
  envFrom?: Array<{ configMapRef?: { name: string } }>;
  resources?: { requests?: { cpu?: string } };
  securityContext?: { allowPrivilegeEscalation?: boolean };
  livenessProbe?: Probe;
  readinessProbe?: Probe;
}
interface Manifest {
  apiVersion: string;
  kind: string;
  metadata: { name: string };
  spec?: Record<string, unknown>;
  data?: Record<string, string>;
}

const manifests: Manifest[] = ['deployment.yaml', 'service.yaml', 'hpa.yaml', 'configmap.yaml'].flatMap((file) =>
  parseAllDocuments(readFileSync(join(DEPLOY, 'kubernetes', file), 'utf8')).map((doc) => {
    expect(doc.errors).toEqual([]);
    return doc.toJS() as Manifest;
  }),
);
const byKind = (kind: string): Manifest => {
  const found = manifests.filter((m) => m.kind === kind);
  expect(found).toHaveLength(1);
  return found[0]!;
};
const deployment = byKind('Deployment');
const podSpec = (deployment.spec as { template: { spec: { terminationGracePeriodSeconds: number; securityContext: { runAsNonRoot?: boolean; runAsUser?: number }; containers: Container[] } } }).template.spec;
const container = podSpec.containers[0]!;
const port = (name: string | number): number => (typeof name === 'number' ? name : container.ports.find((p) => p.name === name)!.containerPort);

/** A documented default, read from the README table row `| name | default |`. */
function documentedMs(readme: string, option: string): number {
  const row = new RegExp(`^\\| \`${option}\` \\|(?: [^|]* \\|)? \`(\\d+)\` \\|`, 'm').exec(readme);
  if (row === null) throw new Error(`no documented default for ${option}`);
  return Number(row[1]);
}

describe('the Kubernetes manifests', () => {
  let app: App;
  let base: string;

  beforeAll(async () => {
    // fw's defaults, as served: the probes must hit paths a default app answers.
    app = createApp({ shutdown: false });
    base = (await app.listen(0, '127.0.0.1')).url;
  });
  afterAll(async () => {
    await app.close();
  });

  it('probe liveness and readiness on the paths fw serves by default, on the app port', async () => {
    expect(container.livenessProbe?.httpGet?.path).toBe('/livez');
    expect(container.readinessProbe?.httpGet?.path).toBe('/readyz');
    expect(port(container.livenessProbe!.httpGet!.port)).toBe(3000);
    expect(port(container.readinessProbe!.httpGet!.port)).toBe(3000);
    for (const path of ['/livez', '/readyz']) expect((await fetch(`${base}${path}`)).status).toBe(200);
  });

  it('take a pod out of the Service before the shutdown delay ends, with probe time-outs above the check time-out', () => {
    const readiness = container.readinessProbe!;
    const delay = documentedMs(APP_README, 'delay');
    expect(readiness.periodSeconds! * readiness.failureThreshold! * 1000).toBeLessThan(delay);
    expect(readiness.timeoutSeconds! * 1000).toBeGreaterThan(documentedMs(APP_README, 'checkTimeout'));
  });

  it('give the pod a grace period of at least the shutdown delay plus the drain timeout', () => {
    const delay = documentedMs(APP_README, 'delay');
    const closeTimeout = documentedMs(CORE_README, 'closeTimeout');
    expect(delay).toBe(5000);
    expect(closeTimeout).toBe(10_000);
    expect(podSpec.terminationGracePeriodSeconds * 1000).toBeGreaterThanOrEqual(delay + closeTimeout + 5000);
  });

  it('run as a non-root user, without privilege escalation', () => {
    expect(podSpec.securityContext.runAsNonRoot).toBe(true);
    expect(podSpec.securityContext.runAsUser).toBeGreaterThan(0);
    expect(container.securityContext?.allowPrivilegeEscalation).toBe(false);
  });

  it('run fw start on the built app module, as the image does', () => {
    expect(container.command).toEqual(dockerCmd());
    expect(container.command!.slice(1, 4)).toEqual(['node_modules/@fw/app/bin/fw.mjs', 'start', 'dist/app.js']);
  });

  it('read the Redis URL from the ConfigMap', () => {
    const configMap = byKind('ConfigMap');
    expect(configMap.data?.REDIS_URL).toMatch(/^redis:\/\//);
    expect(container.envFrom).toContainEqual({ configMapRef: { name: configMap.metadata.name } });
  });

  it('expose HTTP and gRPC through a Service that selects the pods', () => {
    const service = byKind('Service').spec as { selector: Record<string, string>; ports: Array<{ targetPort: string }> };
    const labels = (deployment.spec as { template: { metadata: { labels: Record<string, string> } } }).template.metadata.labels;
    expect(labels).toMatchObject(service.selector);
    expect(service.ports.map((p) => p.targetPort).sort()).toEqual(['grpc', 'http']);
  });

  it('scale the Deployment on CPU against the pods\' CPU requests', () => {
    const hpa = byKind('HorizontalPodAutoscaler');
    expect(hpa.apiVersion).toBe('autoscaling/v2');
    const spec = hpa.spec as { scaleTargetRef: { kind: string; name: string }; metrics: Array<{ type: string; resource: { name: string } }> };
    expect(spec.scaleTargetRef).toMatchObject({ kind: 'Deployment', name: deployment.metadata.name });
    expect(spec.metrics).toContainEqual(expect.objectContaining({ type: 'Resource', resource: expect.objectContaining({ name: 'cpu' }) }));
    expect(container.resources?.requests?.cpu).toBeDefined();
  });
});

describe('the Dockerfile', () => {
  const text = readFileSync(join(DEPLOY, 'Dockerfile'), 'utf8');
  const lines = text.split('\n').filter((line) => line.trim() !== '' && !line.trimStart().startsWith('#'));
  const instructions = lines.filter((line) => /^[A-Z]+\s/.test(line));

  it('builds in stages, copying only the build output into the last one', () => {
    const stages = instructions.filter((line) => line.startsWith('FROM '));
    expect(stages.length).toBeGreaterThanOrEqual(2);
    expect(instructions.filter((line) => line.startsWith('COPY ')).slice(-1)[0]).toMatch(/^COPY --from=build /);
  });

  it('runs as a non-root user in the last stage', () => {
    const last = instructions.slice(instructions.map((line) => line.startsWith('FROM ')).lastIndexOf(true));
    const user = last.filter((line) => line.startsWith('USER ')).map((line) => line.slice(5).trim());
    expect(user).toHaveLength(1);
    expect(user[0]).not.toMatch(/^(root|0)(:|$)/);
  });

  it('starts node directly (PID 1 gets SIGTERM) with fw start, in exec form', () => {
    expect(dockerCmd()[0]).toBe('node');
    expect(dockerCmd()).toContain('start');
    expect(dockerCmd()).toContain('--workers');
  });
});

function dockerCmd(): string[] {
  const cmd = readFileSync(join(DEPLOY, 'Dockerfile'), 'utf8').split('\n').find((line) => line.startsWith('CMD '));
  return JSON.parse(cmd!.slice(4)) as string[];
}
