// What keeps docker-compose.yml from starting canopy's services, found without Docker: each problem names the
// service and the field it is in.
import { existsSync } from 'node:fs';
import path from 'node:path';
import { parseDocument, visit } from 'yaml';

type Environment = Record<string, string | number | boolean | null> | string[];

interface Service {
  build?: string | { context?: string; dockerfile?: string };
  depends_on?: string[] | Record<string, unknown>;
  entrypoint?: string | string[];
  command?: string | string[];
  environment?: Environment;
  volumes?: (string | { source?: string; target?: string })[];
}

interface Compose {
  services?: Record<string, Service>;
  volumes?: Record<string, unknown>;
}

interface Mount {
  source: string;
  target: string;
}

/** What the canopy worker, the service built from this repository, cannot run without. */
export const WORKER_ENVIRONMENT = ['TEMPORAL_ADDRESS', 'CANOPY_DATABASE_URL'];

/** Every problem in the compose file `text`, whose relative paths are relative to `dir`. */
export function composeProblems(text: string, dir: string): string[] {
  const document = parseDocument(text, { merge: true });
  const syntax = [...document.errors, ...document.warnings].map((error) => `YAML: ${error.message}`);
  const unresolved: string[] = [];
  visit(document, {
    Alias(_, alias) {
      if (alias.resolve(document) === undefined) unresolved.push(`YAML: *${alias.source} names no anchor before it`);
    },
  });
  if (syntax.length || unresolved.length) return [...syntax, ...unresolved];
  let compose: Compose;
  try {
    compose = (document.toJS() ?? {}) as Compose;
  } catch (error) {
    // A merge (<<) of an anchor that is not a mapping.
    return [`YAML: ${(error as Error).message}`];
  }
  const services = compose.services ?? {};
  return Object.entries(services).flatMap(([name, service]) => {
    const mounts = (service.volumes ?? []).flatMap(mount);
    return [
      ...dependencyProblems(service, services),
      ...mountProblems(mounts, dir, compose.volumes ?? {}),
      ...namedFileProblems(service, mounts, dir),
      ...buildProblems(service, dir),
      ...workerEnvironmentProblems(service),
    ].map((problem) => `${name}.${problem}`);
  });
}

function dependencyProblems(service: Service, services: Record<string, Service>): string[] {
  const names = Array.isArray(service.depends_on) ? service.depends_on : Object.keys(service.depends_on ?? {});
  return names.filter((name) => !(name in services)).map((name) => `depends_on: '${name}' is not a service`);
}

/**
 * A volume entry as source and target. Entries with `${…}` are left out: they mount the user's own directories,
 * which Docker creates when missing.
 */
function mount(volume: string | { source?: string; target?: string }): Mount[] {
  if (typeof volume !== 'string') return volume.source && volume.target ? [{ source: volume.source, target: volume.target }] : [];
  if (volume.includes('${')) return [];
  const [source, target] = volume.split(':');
  return target ? [{ source, target }] : [];
}

function isHostPath(source: string): boolean {
  return source.startsWith('.') || source.startsWith('/');
}

function mountProblems(mounts: Mount[], dir: string, volumes: Record<string, unknown>): string[] {
  return mounts.flatMap(({ source }) => {
    if (!isHostPath(source)) return source in volumes ? [] : [`volumes: '${source}' is not a declared volume`];
    return existsSync(path.resolve(dir, source)) ? [] : [`volumes: ${source} does not exist`];
  });
}

function words(value: string | string[] | undefined): string[] {
  return typeof value === 'string' ? value.split(/\s+/) : (value ?? []);
}

function environmentValues(environment: Environment | undefined): Record<string, string> {
  const entries = Array.isArray(environment)
    ? environment.map((entry) => entry.split(/=(.*)/s))
    : Object.entries(environment ?? {}).map(([key, value]) => [key, value === null ? '' : String(value)]);
  return Object.fromEntries(entries.map(([key, value]) => [key, value ?? '']));
}

/** Each path a service's entrypoint, command or environment names inside a directory mounted from the repository exists there. */
function namedFileProblems(service: Service, mounts: Mount[], dir: string): string[] {
  const named = [
    ...words(service.entrypoint).map((word) => ({ field: 'entrypoint', word })),
    ...words(service.command).map((word) => ({ field: 'command', word })),
    ...Object.values(environmentValues(service.environment)).map((word) => ({ field: 'environment', word })),
  ];
  return named.flatMap(({ field, word }) => {
    const inside = mounts.find((m) => isHostPath(m.source) && word.startsWith(`${m.target}/`));
    if (!inside) return [];
    const file = path.join(inside.source, path.relative(inside.target, word));
    return existsSync(path.resolve(dir, file)) ? [] : [`${field}: ${word} is ${file}, which does not exist`];
  });
}

function buildProblems({ build }: Service, dir: string): string[] {
  if (build === undefined) return [];
  const { context = '.', dockerfile = 'Dockerfile' } = typeof build === 'string' ? { context: build } : build;
  const file = path.join(context, dockerfile);
  return existsSync(path.resolve(dir, file)) ? [] : [`build: ${file} does not exist`];
}

function workerEnvironmentProblems(service: Service): string[] {
  if (service.build === undefined) return [];
  const environment = environmentValues(service.environment);
  return WORKER_ENVIRONMENT.filter((key) => !environment[key]).map((key) => `environment: ${key} is not set`);
}
