// Every setting of the platform, read from the environment and validated once at start.
import { readFileSync, statSync } from 'node:fs';
import { isIP } from 'node:net';
import { isAbsolute, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { RedisAddress, RedisTopology } from './redis-topology.ts';

export const environments = ['sandbox', 'staging', 'production'] as const;
export type Environment = (typeof environments)[number];
export const logLevels = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof logLevels)[number];
/** How the auth service writes codes and refresh tokens to Redis (CREDENTIALS_AT_REST); it reads both. */
export const credentialFormats = ['hashed', 'clear'] as const;
export type CredentialFormat = (typeof credentialFormats)[number];

/** The wire path prefix the contract fixes. */
export const wirePrefix = '/developer/v1';

export interface Config {
  environment: Environment;
  /** The contract's platform switch: off in production unless DEVELOPER_PLATFORM_ENABLED is set. */
  platformEnabled: boolean;
  /** {base_url}: the issuer and the public base, ending in /developer/v1. */
  baseUrl: URL;
  playerClientUrl: URL;
  consoleUrl: URL;
  mockBaseUrl: URL;
  /** The auth service's internal origin (JWKS at /jwks.json); never routed by the public gateway. */
  authInternalUrl: URL;
  /** Atlassian Statuspage v2 summary.json; null when not integrated. */
  statusUrl: URL | null;
  databaseUrl: string | null;
  redisUrl: string | null;
  /** Starts every Redis key, so several platforms (or tests) can share one Redis. */
  redisKeyPrefix: string;
  /** The bound on every PostgreSQL call: a connection, a statement, a transaction's wait for its start. */
  databaseTimeoutMs: number;
  /** The bound on every Redis command and connection attempt. */
  redisTimeoutMs: number;
  /** REDIS_SENTINELS + REDIS_SENTINEL_MASTER, or REDIS_CLUSTER_NODES; else REDIS_URL's one server. */
  redisTopology: RedisTopology;
  /**
   * REDIS_WAIT_REPLICAS: the replicas that must hold a used code's or refresh token's mark before the
   * token endpoint answers (1 by default with Sentinel or Cluster, 0 with one server).
   */
  redisWaitReplicas: number;
  dataDir: string;
  /**
   * TRUSTED_PROXIES: the gateway's addresses (IPs or CIDR ranges). When set, X-Forwarded-* is
   * believed from these peers only, on every listener; null believes it on the https listeners
   * from any peer (their ports must then be reachable only through the gateway).
   */
  trustedProxies: string[] | null;
  /** HOST: the address every listener binds; null binds each to its URL's loopback (listenHost). */
  host: string | null;
  /** The listen port of {base_url}'s listener (PORT); null means the port of BASE_URL. */
  port: number | null;
  /** Every other listener's port, each apart from its URL (by default the URL's own port). */
  ports: ListenerPorts;
  /** Graceful drain on SIGTERM. */
  shutdown: ShutdownSettings;
  logLevel: LogLevel;
  /** Raw secret settings, validated for shape; see secrets.ts for their use. */
  secretSettings: SecretSettings;
  webhooks: WebhookSettings;
  signIn: SignInSettings;
  admin: AdminSettings;
  usage: UsageSettings;
  requestLog: RequestLogSettings;
  /**
   * CREDENTIALS_AT_REST: how the auth service writes authorization codes and refresh tokens to
   * Redis. `hashed` (the default) keeps only their SHA-256; `clear` writes them as the release
   * before hashing did, so that its processes can read them during a rolling release from it
   * (docs/releasing.md). Both formats are read either way.
   */
  credentialsAtRest: CredentialFormat;
}

/**
 * Each app's request log (its calls to the token, revocation, /cities and /me endpoints) in Redis:
 * what it keeps and how often auth and api write what they noted in memory.
 */
export interface RequestLogSettings {
  /** REQUEST_LOG_MAX_ENTRIES: the newest calls kept per app (default 1000). */
  maxEntries: number;
  /**
   * REQUEST_LOG_MAX_FAILED_AUTH: the newest failed client authentications kept per client id, apart
   * from the app's own calls so that a stranger's cannot push them out (default 100).
   */
  maxFailedAuthentications: number;
  /** REQUEST_LOG_RETENTION_HOURS: how long a call is kept at most (default 72). */
  retentionHours: number;
  /** REQUEST_LOG_FLUSH_MS: how often a process writes the calls it noted (default 200). */
  flushMs: number;
}

/**
 * How often auth writes its usage bookkeeping (tokens per app per hour, each secret's last use),
 * which the token endpoint only adds up in memory. Shorter shows operators fresher numbers and
 * costs more writes; what is not yet written when a process dies is lost.
 */
export interface UsageSettings {
  /** USAGE_COUNT_FLUSH_MS: the token counts to Redis (default 5 s). */
  countFlushMs: number;
  /** USAGE_LAST_USED_FLUSH_MS: the secrets' last use to PostgreSQL (default 60 s). */
  lastUsedFlushMs: number;
}

/** The operators' admin API: a listener of its own, never behind the gateway. */
export interface AdminSettings {
  /**
   * ADMIN_HOST: the admin listener's address, loopback unless set. Apart from HOST on purpose: the
   * image sets HOST=0.0.0.0, and the admin API must not follow it onto every interface unasked.
   */
  host: string;
  /** ADMIN_PORT; 0 picks a free port (printed at start). */
  port: number;
  /** ADMIN_TOKENS_FILE, as an absolute path: the operator tokens; null serves no admin API. */
  tokensFile: string | null;
}

export interface ListenerPorts {
  playerClient: number;
  console: number;
  mock: number;
  authInternal: number;
  /** MANAGEMENT_PORT: /livez, /readyz and /metrics; null means the service's own default, 0 any free port. */
  management: number | null;
}

export interface ShutdownSettings {
  /** After SIGTERM, how long readiness says draining before the listeners stop accepting. */
  delayMs: number;
  /** After SIGTERM, how long the whole drain may take before the process exits anyway. */
  timeoutMs: number;
}

/** The management port of each process when MANAGEMENT_PORT is unset. */
export const defaultManagementPorts = {
  platform: 9080,
  api: 9081,
  auth: 9082,
  console: 9083,
  worker: 9084,
  mock: 9085,
  admin: 9086,
} as const;
export type ServiceName = keyof typeof defaultManagementPorts;

/** ADMIN_PORT when unset: beside the platform's 8080–8084, apart from every other default. */
export const defaultAdminPort = 8086;

/** Password-guessing throttle of player and console sign-in (per account; per address four times as many). */
export interface SignInSettings {
  /** Attempts an account gets before it is locked. */
  attempts: number;
  /** The first lock; each further one within a day doubles. */
  lockSeconds: number;
}

/** How the worker delivers consent webhooks. */
export interface WebhookSettings {
  /** Plain http to a loopback address (a developer's local receiver); sandbox only, off by default. */
  allowLoopbackHttp: boolean;
  /** One attempt's time limit, connection to last byte. */
  timeoutMs: number;
  /** Attempts before a delivery is marked failed. */
  maxAttempts: number;
  /** The first retry waits about this long; each later one twice as long, with jitter. */
  backoffBaseMs: number;
  /** How often the worker looks for new events and due deliveries. */
  pollMs: number;
  /**
   * The ports the platform's own services listen on (those of its configured URLs and PORT): a
   * webhook may not target them on a loopback host. Set by loadConfig.
   */
  ownPorts?: number[];
}

export interface SecretSettings {
  signingKeys: string | null;
  pairwiseSecret: string | null;
  cookieKeys: string | null;
}

/** A setting that cannot be used; `message` names the variable and never echoes a secret. */
export class ConfigError extends Error {
  readonly variable: string;
  constructor(variable: string, problem: string) {
    super(`${variable} ${problem}`);
    this.name = 'ConfigError';
    this.variable = variable;
  }
}

type Env = Record<string, string | undefined>;

/**
 * The defaults of DATABASE_TIMEOUT_MS and REDIS_TIMEOUT_MS. A healthy call takes milliseconds, so a
 * call this slow means the store is in trouble; a request that fails at its first call still
 * answers in a tenth of the 30 s request timeout, and a client's retry finds a healed connection.
 */
export const defaultTimeouts = { databaseMs: 3_000, redisMs: 2_000 } as const;

const repoRoot = fileURLToPath(new URL('../../../../', import.meta.url));

function present(value: string | undefined): string | null {
  return value === undefined || value.trim() === '' ? null : value.trim();
}

function read(env: Env, name: string): string | null {
  return present(env[name]);
}

/**
 * A setting that may also come from a file, as Kubernetes and Docker mount secrets: NAME, or the
 * contents of the file NAME_FILE names (surrounding whitespace trimmed), not both.
 */
function readSecret(env: Env, name: string): string | null {
  const value = read(env, name);
  const file = read(env, `${name}_FILE`);
  if (file === null) return value;
  if (value !== null) throw new ConfigError(name, `and ${name}_FILE are both set; set one of them`);
  let contents: string;
  try {
    contents = readFileSync(file, 'utf8');
  } catch (error) {
    throw new ConfigError(
      `${name}_FILE`,
      `names a file that cannot be read (${file}: ${(error as NodeJS.ErrnoException).code ?? 'error'})`,
    );
  }
  const secret = present(contents);
  if (secret === null) throw new ConfigError(`${name}_FILE`, `names an empty file (${file})`);
  return secret;
}

function oneOf<T extends string>(env: Env, name: string, allowed: readonly T[], fallback: T): T {
  const value = read(env, name);
  if (value === null) return fallback;
  if (!(allowed as readonly string[]).includes(value)) {
    throw new ConfigError(name, `must be one of ${allowed.join(', ')} (got "${value}")`);
  }
  return value as T;
}

const truthy = ['1', 'true', 'on', 'yes'];
const falsy = ['0', 'false', 'off', 'no'];

function flag(env: Env, name: string, fallback: boolean): boolean {
  const value = read(env, name)?.toLowerCase() ?? null;
  if (value === null) return fallback;
  if (truthy.includes(value)) return true;
  if (falsy.includes(value)) return false;
  throw new ConfigError(name, `must be one of ${[...truthy, ...falsy].join(', ')} (got "${value}")`);
}

function httpUrl(env: Env, name: string, fallback: string | null, requireHttps: boolean): URL | null {
  const value = read(env, name) ?? fallback;
  if (value === null) return null;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new ConfigError(name, `must be an absolute http(s) URL (got "${value}")`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new ConfigError(name, `must be an http(s) URL (got "${value}")`);
  }
  if (requireHttps && url.protocol !== 'https:') {
    throw new ConfigError(name, `must use https in production (got "${value}")`);
  }
  if (url.username || url.password || url.hash) {
    throw new ConfigError(name, 'must not carry credentials or a fragment');
  }
  return url;
}

function origin(env: Env, name: string, fallback: string, requireHttps: boolean): URL {
  const url = httpUrl(env, name, fallback, requireHttps) as URL;
  if (url.pathname !== '/' || url.search) {
    throw new ConfigError(name, `must be an origin without a path or query (got "${url.href}")`);
  }
  return url;
}

/**
 * The hosts an app's redirect URI may use over plain http (contract rule 8). A browser sends a
 * host's cookies to every port of it, so no origin that sets cookies may live on one of these.
 */
export const redirectLoopbackHosts = ['127.0.0.1', '[::1]', 'localhost'] as const;

/** An origin that sets cookies (the player client, the console): never on a redirect URI's host. */
function cookieOrigin(env: Env, name: string, fallback: string, requireHttps: boolean): URL {
  const url = origin(env, name, fallback, requireHttps);
  const host = url.hostname.replace(/\.$/, '');
  if ((redirectLoopbackHosts as readonly string[]).includes(host)) {
    throw new ConfigError(
      name,
      `must not be on ${redirectLoopbackHosts.join(', ')}: apps' redirect URIs may use those hosts on any port, and a browser would send them this origin's cookies (use 127.0.0.2 or a host name of its own)`,
    );
  }
  return url;
}

/** The hosts whose cookies the platform sets: no redirect URI may point at them. */
export function cookieHosts(config: Pick<Config, 'playerClientUrl' | 'consoleUrl'>): string[] {
  return [...new Set([config.playerClientUrl.hostname, config.consoleUrl.hostname])];
}

/**
 * Where a listener binds: HOST when set; otherwise its URL's host when that is an IPv4 loopback
 * address (the player client and console have loopback addresses of their own), else 127.0.0.1.
 */
export function listenHost(config: Pick<Config, 'host'>, url: URL): string {
  if (config.host !== null) return config.host;
  return /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(url.hostname) ? url.hostname : '127.0.0.1';
}

function apiBase(env: Env, name: string, fallback: string, requireHttps: boolean): URL {
  const url = httpUrl(env, name, fallback, requireHttps) as URL;
  const path = url.pathname.replace(/\/+$/, '');
  if (!path.endsWith(wirePrefix) || url.search) {
    throw new ConfigError(name, `must end with the wire path ${wirePrefix} and carry no query (got "${url.href}")`);
  }
  return new URL(`${url.origin}${path}`);
}

function topologyOf(env: Env): RedisTopology {
  const sentinels = addresses(env, 'REDIS_SENTINELS');
  const master = read(env, 'REDIS_SENTINEL_MASTER');
  const nodes = addresses(env, 'REDIS_CLUSTER_NODES');
  if (sentinels && nodes) {
    throw new ConfigError('REDIS_SENTINELS', 'and REDIS_CLUSTER_NODES name two topologies: set one of them');
  }
  if (sentinels) {
    if (!master) throw new ConfigError('REDIS_SENTINEL_MASTER', 'is required with REDIS_SENTINELS (the master name)');
    return { mode: 'sentinel', sentinels, masterName: master };
  }
  if (master) throw new ConfigError('REDIS_SENTINELS', 'is required with REDIS_SENTINEL_MASTER');
  return nodes ? { mode: 'cluster', nodes } : { mode: 'single' };
}

/** A comma-separated list of host:port addresses ([v6]:port for IPv6). */
function addresses(env: Env, name: string): RedisAddress[] | null {
  const value = read(env, name);
  if (value === null) return null;
  return value.split(',').map((item) => {
    const match = /^(?:\[([0-9a-fA-F:.]+)\]|([\w.-]+)):(\d{1,5})$/.exec(item.trim());
    const port = Number(match?.[3]);
    if (!match || port < 1 || port > 65535) {
      throw new ConfigError(name, `must be host:port addresses separated by commas (got "${item.trim()}")`);
    }
    return { host: (match[1] ?? match[2]) as string, port };
  });
}

function connectionUrl(env: Env, name: string, protocols: string[]): string | null {
  const value = readSecret(env, name);
  if (value === null) return null;
  let protocol: string;
  try {
    protocol = new URL(value).protocol;
  } catch {
    throw new ConfigError(name, `must be a ${protocols.join(' or ')} URL`);
  }
  if (!protocols.includes(protocol)) throw new ConfigError(name, `must be a ${protocols.join(' or ')} URL`);
  return value;
}

/** A port number; `lowest` 0 allows 0, any free port (the process prints the one it got). */
function port(env: Env, name: string, lowest = 1): number | null {
  const value = read(env, name);
  if (value === null) return null;
  const number = Number(value);
  if (!/^\d+$/.test(value) || number < lowest || number > 65535) {
    throw new ConfigError(name, `must be a port number from ${lowest} to 65535 (got "${value}")`);
  }
  return number;
}

/** A comma-separated list of IP addresses and CIDR ranges (v4 or v6), each checked. */
function addressList(env: Env, name: string): string[] | null {
  const value = read(env, name);
  if (value === null) return null;
  const entries = value.split(',').map((entry) => entry.trim());
  for (const entry of entries) {
    const [address, bits, ...rest] = entry.split('/');
    const family = isIP(address ?? '');
    const maxBits = family === 6 ? 128 : 32;
    const badBits = bits !== undefined && (!/^\d{1,3}$/.test(bits) || Number(bits) > maxBits);
    if (family === 0 || badBits || rest.length > 0) {
      throw new ConfigError(name, `must be a comma-separated list of IP addresses or CIDR ranges (got "${entry}")`);
    }
  }
  return entries;
}

function integer(env: Env, name: string, fallback: number, min: number, max: number): number {
  const value = read(env, name);
  if (value === null) return fallback;
  const number = Number(value);
  if (!/^\d+$/.test(value) || number < min || number > max) {
    throw new ConfigError(name, `must be an integer from ${min} to ${max} (got "${value}")`);
  }
  return number;
}

function webhookSettings(env: Env, environment: Environment): WebhookSettings {
  const allowLoopbackHttp = flag(env, 'WEBHOOK_ALLOW_LOOPBACK_HTTP', false);
  if (allowLoopbackHttp && environment !== 'sandbox') {
    throw new ConfigError('WEBHOOK_ALLOW_LOOPBACK_HTTP', 'may only be set in the sandbox environment');
  }
  return {
    allowLoopbackHttp,
    timeoutMs: integer(env, 'WEBHOOK_TIMEOUT_MS', 10_000, 100, 60_000),
    maxAttempts: integer(env, 'WEBHOOK_MAX_ATTEMPTS', 8, 1, 20),
    backoffBaseMs: integer(env, 'WEBHOOK_BACKOFF_BASE_MS', 30_000, 10, 3_600_000),
    pollMs: integer(env, 'WEBHOOK_POLL_MS', 1_000, 10, 60_000),
  };
}

/**
 * The secrets every process must share once several share state: without them each would
 * generate its own, and two auth replicas would sign with different keys and give one player two
 * different subs. Only the one-process embedded default (no REDIS_URL) generates them.
 */
function secretSettings(env: Env, production: boolean, shared: boolean, required: boolean): SecretSettings {
  const settings = {
    signingKeys: readSecret(env, 'SIGNING_KEYS'),
    pairwiseSecret: readSecret(env, 'PAIRWISE_SECRET'),
    cookieKeys: readSecret(env, 'COOKIE_KEYS'),
  };
  const names = { signingKeys: 'SIGNING_KEYS', pairwiseSecret: 'PAIRWISE_SECRET', cookieKeys: 'COOKIE_KEYS' };
  for (const key of Object.keys(names) as (keyof SecretSettings)[]) {
    if (settings[key] !== null || !required) continue;
    if (production) throw new ConfigError(names[key], 'is required in production');
    if (shared) {
      throw new ConfigError(
        names[key],
        'is required whenever REDIS_URL is set: processes that share state must share their secrets (docs/operating.md, "Replicas share their secrets", says how to make them)',
      );
    }
  }
  if (settings.pairwiseSecret !== null && settings.pairwiseSecret.length < 32) {
    throw new ConfigError('PAIRWISE_SECRET', 'must be at least 32 characters');
  }
  if (settings.cookieKeys?.split(',').some((key) => key.trim().length < 32)) {
    throw new ConfigError('COOKIE_KEYS', 'must be a comma-separated list of keys of at least 32 characters each');
  }
  if (settings.signingKeys !== null) validateSigningKeys(settings.signingKeys);
  return settings;
}

/** SIGNING_KEYS: a JWKS of private Ed25519 keys, each with a kid; the first signs. */
export function validateSigningKeys(value: string): void {
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch {
    throw new ConfigError('SIGNING_KEYS', 'must be a JSON Web Key Set ({"keys":[...]})');
  }
  const keys = (parsed as { keys?: unknown })?.keys;
  if (!Array.isArray(keys) || keys.length === 0) {
    throw new ConfigError('SIGNING_KEYS', 'must be a JSON Web Key Set with at least one key');
  }
  const kids = new Set<string>();
  for (const key of keys as Record<string, unknown>[]) {
    const ok =
      key?.kty === 'OKP' &&
      key.crv === 'Ed25519' &&
      typeof key.d === 'string' &&
      typeof key.x === 'string' &&
      typeof key.kid === 'string' &&
      key.kid !== '';
    if (!ok)
      throw new ConfigError('SIGNING_KEYS', 'must hold only private Ed25519 keys (kty OKP, crv Ed25519, d, x, kid)');
    if (kids.has(key.kid as string)) throw new ConfigError('SIGNING_KEYS', 'must not repeat a kid');
    kids.add(key.kid as string);
  }
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

function adminSettings(env: Env): AdminSettings {
  const host = read(env, 'ADMIN_HOST') ?? '127.0.0.1';
  if (isIP(host) === 0) {
    throw new ConfigError('ADMIN_HOST', `must be an IP address to listen on, such as 127.0.0.1 (got "${host}")`);
  }
  const file = read(env, 'ADMIN_TOKENS_FILE');
  const tokensFile = file === null ? null : resolve(file);
  // A file that does not exist yet is fine (no token works until it does); a directory is a slip.
  if (tokensFile !== null && isDirectory(tokensFile)) {
    throw new ConfigError('ADMIN_TOKENS_FILE', `names a directory, not a file (${tokensFile})`);
  }
  return { host, port: port(env, 'ADMIN_PORT', 0) ?? defaultAdminPort, tokensFile };
}

/** The port an http(s) URL reaches: its own, or its scheme's default (null for other schemes). */
export function urlPort(url: URL): number | null {
  if (url.port !== '') return Number(url.port);
  return url.protocol === 'https:' ? 443 : url.protocol === 'http:' ? 80 : null;
}

/** The ports of the platform's own URLs and listeners, each once. */
function listenerPorts(config: Config): number[] {
  const urls = [config.baseUrl, config.playerClientUrl, config.consoleUrl, config.mockBaseUrl, config.authInternalUrl];
  const { management, ...listeners } = config.ports;
  const ports = [
    ...urls.map((url) => urlPort(url) as number),
    ...Object.values(listeners),
    ...(config.port === null ? [] : [config.port]),
    ...(management === null ? Object.values(defaultManagementPorts) : management === 0 ? [] : [management]),
    ...(config.admin.port === 0 ? [] : [config.admin.port]),
  ];
  return [...new Set(ports)];
}

/** Where the stores are: all that a job on them (db:migrate, the admin command) reads. */
export type StoreSettings = Pick<
  Config,
  | 'environment'
  | 'databaseUrl'
  | 'redisUrl'
  | 'redisKeyPrefix'
  | 'databaseTimeoutMs'
  | 'redisTimeoutMs'
  | 'redisTopology'
  | 'redisWaitReplicas'
  | 'dataDir'
>;

/**
 * The store settings alone, with the same names, *_FILE forms and messages as loadConfig; a job
 * that signs nothing and serves nothing needs none of the shared secrets loadConfig requires.
 */
export function loadStoreSettings(env: Env = process.env): StoreSettings {
  const environment = oneOf(env, 'DEVELOPER_PLATFORM_ENVIRONMENT', environments, 'sandbox');
  const redisTopology = topologyOf(env);
  const settings: StoreSettings = {
    environment,
    databaseUrl: connectionUrl(env, 'DATABASE_URL', ['postgres:', 'postgresql:']),
    // With Sentinel or Cluster the addresses come from their own settings: REDIS_URL then only
    // carries credentials and TLS (and Sentinel's database number), and may be left out.
    redisUrl:
      connectionUrl(env, 'REDIS_URL', ['redis:', 'rediss:']) ?? (redisTopology.mode === 'single' ? null : 'redis://'),
    redisKeyPrefix: read(env, 'REDIS_KEY_PREFIX') ?? 'devplat:',
    databaseTimeoutMs: integer(env, 'DATABASE_TIMEOUT_MS', defaultTimeouts.databaseMs, 50, 20_000),
    redisTimeoutMs: integer(env, 'REDIS_TIMEOUT_MS', defaultTimeouts.redisMs, 50, 20_000),
    redisTopology,
    redisWaitReplicas: integer(env, 'REDIS_WAIT_REPLICAS', redisTopology.mode === 'single' ? 0 : 1, 0, 10),
    dataDir: resolve(repoRoot, read(env, 'DATA_DIR') ?? '.data'),
  };
  if (!isAbsolute(settings.dataDir)) throw new ConfigError('DATA_DIR', 'must resolve to an absolute path');
  return settings;
}

export interface LoadOptions {
  /**
   * Whether this process needs the shared secrets and, in production, REDIS_URL (the auth service
   * and the one-process platform do). The others (api, console, worker, mock) sign and key
   * nothing: given, the secrets are checked for shape; missing, they are not asked for, so no such
   * pod holds the private key (the console asks for REDIS_URL itself: its sessions live there).
   */
  requireSharedSecrets?: boolean;
}

export function loadConfig(env: Env = process.env, { requireSharedSecrets = true }: LoadOptions = {}): Config {
  const stores = loadStoreSettings(env);
  const { environment, redisUrl } = stores;
  const production = environment === 'production';
  const playerClientUrl = cookieOrigin(env, 'PLAYER_CLIENT_URL', 'http://127.0.0.2:8081', production);
  const consoleUrl = cookieOrigin(env, 'CONSOLE_URL', 'http://127.0.0.3:8082', production);
  const mockBaseUrl = apiBase(env, 'MOCK_BASE_URL', 'http://127.0.0.1:8083/developer/v1', false);
  const authInternalUrl = origin(env, 'AUTH_INTERNAL_URL', 'http://127.0.0.1:8084', false);
  const shutdownTimeoutMs = integer(env, 'SHUTDOWN_TIMEOUT_MS', 25_000, 100, 600_000);
  const config: Config = {
    platformEnabled: flag(env, 'DEVELOPER_PLATFORM_ENABLED', !production),
    baseUrl: apiBase(env, 'BASE_URL', 'http://127.0.0.1:8080/developer/v1', production),
    playerClientUrl,
    consoleUrl,
    mockBaseUrl,
    authInternalUrl,
    statusUrl: httpUrl(env, 'STATUS_URL', null, false),
    ...stores,
    trustedProxies: addressList(env, 'TRUSTED_PROXIES'),
    host: read(env, 'HOST'),
    port: port(env, 'PORT'),
    ports: {
      playerClient: port(env, 'PLAYER_CLIENT_PORT') ?? (urlPort(playerClientUrl) as number),
      console: port(env, 'CONSOLE_PORT') ?? (urlPort(consoleUrl) as number),
      mock: port(env, 'MOCK_PORT') ?? (urlPort(mockBaseUrl) as number),
      authInternal: port(env, 'AUTH_INTERNAL_PORT') ?? (urlPort(authInternalUrl) as number),
      management: port(env, 'MANAGEMENT_PORT', 0),
    },
    shutdown: {
      delayMs: integer(env, 'SHUTDOWN_DELAY_MS', 5_000, 0, shutdownTimeoutMs),
      timeoutMs: shutdownTimeoutMs,
    },
    logLevel: oneOf(env, 'LOG_LEVEL', logLevels, 'info'),
    secretSettings: secretSettings(env, production, redisUrl !== null, requireSharedSecrets),
    webhooks: webhookSettings(env, environment),
    signIn: {
      attempts: integer(env, 'SIGN_IN_ATTEMPTS', 5, 1, 100),
      lockSeconds: integer(env, 'SIGN_IN_LOCK_SECONDS', 30, 1, 3600),
    },
    admin: adminSettings(env),
    usage: {
      countFlushMs: integer(env, 'USAGE_COUNT_FLUSH_MS', 5_000, 10, 300_000),
      lastUsedFlushMs: integer(env, 'USAGE_LAST_USED_FLUSH_MS', 60_000, 10, 3_600_000),
    },
    requestLog: {
      maxEntries: integer(env, 'REQUEST_LOG_MAX_ENTRIES', 1_000, 1, 100_000),
      maxFailedAuthentications: integer(env, 'REQUEST_LOG_MAX_FAILED_AUTH', 100, 1, 10_000),
      retentionHours: integer(env, 'REQUEST_LOG_RETENTION_HOURS', 72, 1, 24 * 90),
      flushMs: integer(env, 'REQUEST_LOG_FLUSH_MS', 200, 10, 60_000),
    },
    credentialsAtRest: oneOf(env, 'CREDENTIALS_AT_REST', credentialFormats, 'hashed'),
  };
  config.webhooks.ownPorts = listenerPorts(config);
  if (production && config.databaseUrl === null) throw new ConfigError('DATABASE_URL', 'is required in production');
  if (production && requireSharedSecrets && config.redisUrl === null) {
    throw new ConfigError('REDIS_URL', 'is required in production');
  }
  return config;
}

/** loadConfig for a service that uses none of the shared secrets (all but auth and the platform). */
export const loadConfigWithoutSecrets = (env: Env) => loadConfig(env, { requireSharedSecrets: false });

/**
 * The sandbox's developer tools (the console, consent webhooks): on while the platform is on,
 * never in production.
 */
export function sandboxToolsEnabled(config: Pick<Config, 'platformEnabled' | 'environment'>): boolean {
  return config.platformEnabled && config.environment !== 'production';
}

/** For entry points: a bad setting ends the process with one line naming the variable. */
export function loadConfigOrExit(env?: Env): Config;
export function loadConfigOrExit<Settings>(env: Env, load: (env: Env) => Settings): Settings;
export function loadConfigOrExit(env: Env = process.env, load: (env: Env) => unknown = loadConfig): unknown {
  try {
    return load(env);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    process.stderr.write(`configuration error: ${error.message}\n`);
    process.exit(78); // EX_CONFIG
  }
}
