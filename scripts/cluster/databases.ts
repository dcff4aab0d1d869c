// The cluster's PostgreSQL databases: Temporal's main and visibility stores and canopy's own,
// created and brought to their schemas by docker/databases.sh (which docker-compose.yml runs too).
import path from 'node:path';
import { PROJECT_ROOT } from '../../src/project';
import { runScript } from './processes';

const DATABASES_SCRIPT = path.join(PROJECT_ROOT, 'docker', 'databases.sh');
const DEFAULT_POSTGRES_URL = 'postgres://postgres@127.0.0.1:5432';

export interface PostgresServer {
  host: string;
  port: number;
  user: string;
  password: string;
}

export interface ClusterDatabases {
  temporal: string;
  visibility: string;
  store: string;
}

/** A server from a `postgres://user[:password]@host[:port]` URL; any database in it is ignored. */
function postgresServer(url: string): PostgresServer {
  const parsed = new URL(url);
  return {
    host: parsed.hostname,
    port: Number(parsed.port || 5432),
    user: decodeURIComponent(parsed.username) || 'postgres',
    password: decodeURIComponent(parsed.password),
  };
}

/** The PostgreSQL server the cluster keeps its databases on: CANOPY_CLUSTER_POSTGRES_URL, or the local one. */
export function clusterPostgres(env: NodeJS.ProcessEnv = process.env): PostgresServer {
  return postgresServer(env.CANOPY_CLUSTER_POSTGRES_URL || DEFAULT_POSTGRES_URL);
}

export function clusterDatabases(prefix: string): ClusterDatabases {
  return { temporal: `${prefix}_temporal`, visibility: `${prefix}_visibility`, store: `${prefix}_store` };
}

export function databaseUrl(server: PostgresServer, database: string): string {
  const password = server.password ? `:${encodeURIComponent(server.password)}` : '';
  return `postgres://${encodeURIComponent(server.user)}${password}@${server.host}:${server.port}/${database}`;
}

/** The settings docker/databases.sh and docker/temporal-server.yaml both read. */
export function databaseEnv(server: PostgresServer, databases: ClusterDatabases): Record<string, string> {
  return {
    POSTGRES_HOST: server.host,
    POSTGRES_PORT: String(server.port),
    POSTGRES_USER: server.user,
    POSTGRES_PASSWORD: server.password,
    TEMPORAL_DB: databases.temporal,
    TEMPORAL_VISIBILITY_DB: databases.visibility,
  };
}

export function prepareDatabases(sqlTool: string, server: PostgresServer, databases: ClusterDatabases): Promise<void> {
  return runScript(DATABASES_SCRIPT, {
    ...process.env,
    ...databaseEnv(server, databases),
    TEMPORAL_SQL_TOOL: sqlTool,
    CANOPY_DB: databases.store,
  });
}
