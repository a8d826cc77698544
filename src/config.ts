import { randomBytes } from 'node:crypto'
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { type AllowedAddress, allowedEndpoint } from './outbound/index.js'

export const REGIONS = ['na', 'eu', 'au'] as const
export type Region = (typeof REGIONS)[number]

export interface Config {
  readonly host: string
  readonly port: number
  /** The address users reach this server at (used in links it prints and redirects it builds). */
  readonly publicUrl: string
  /** The data region this deployment serves, and the base address of each region. */
  readonly region: Region
  readonly regionUrls: Readonly<Record<Region, string | undefined>>
  /** PostgreSQL when set; otherwise the embedded SQLite file under dataDir. */
  readonly databaseUrl?: string
  readonly dataDir: string
  /** 32 bytes; credentials encryption and API-key signing keys are derived from it. */
  readonly masterKey: Buffer
  readonly logLevel: string
  readonly providerTimeoutMs: number
  readonly providerMaxRetries: number
  readonly providerMaxRetryWaitMs: number
  /**
   * The fallback for missed change notifications: how often each process reloads revoked API keys and how
   * long it caches connections and workspace settings (on PostgreSQL, changes arrive through NOTIFY).
   */
  readonly keyRevocationRefreshMs: number
  readonly bodyLimitBytes: number
  /**
   * How long a request's body may take to arrive, from its headers (UNIGATE_BODY_TIMEOUT_MS, default 60000):
   * past it the caller is answered 408 and its connection closed. Passthrough uploads stream instead and
   * have their own idle bound.
   */
  readonly bodyTimeoutMs: number
  /**
   * The most client connections the HTTP server holds open at once (UNIGATE_MAX_CONNECTIONS, default 10000);
   * one more is closed as soon as it opens. Node's server sets no bound: anyone, without a key, could open
   * sockets (each sending a header line now and then, within Node's 60 s headers bound) until the process ran
   * out of file descriptors, and then no client was answered and no provider could be called.
   */
  readonly maxConnections: number
  /**
   * Record the REST API's calls to unified objects and passthrough as API calls of type `inbound`
   * (UNIGATE_LOG_INBOUND_CALLS, default true). Off for deployments that audit elsewhere and want no
   * rows per request.
   */
  readonly logInboundCalls: boolean
  /** How much of the API-call log is kept (src/apicalls/retention.ts). */
  readonly apiCallLog: ApiCallLogSettings
  /** The address policy for every request made on a caller's behalf (src/outbound). */
  readonly outbound: OutboundSettings
  /** Webhook polling and delivery (src/webhooks, src/jobs). */
  readonly webhooks: WebhookSettings
  /** End-user authorization and OAuth tokens (src/authorization). */
  readonly authorization: AuthorizationSettings
}

export interface AuthorizationSettings {
  /**
   * How long an authorization link (its `state`) stays usable (UNIGATE_AUTH_STATE_TTL_SECONDS, default
   * 900): long enough to log in at the provider, short enough that a leaked link soon goes dead.
   */
  readonly stateTtlMs: number
  /**
   * An access token this close to expiry is refreshed before use (UNIGATE_TOKEN_REFRESH_MARGIN_SECONDS,
   * default 300), so a request never starts with a token that dies on the way.
   */
  readonly refreshMarginMs: number
  /**
   * How long a request waits for a token refresh of the same connection that another request or process is
   * running (UNIGATE_TOKEN_REFRESH_WAIT_SECONDS, default 15) before answering 503: an API call that needs the
   * new token, and a PUT or PATCH of the connection's credentials, which waits so that neither write lands
   * over the other.
   */
  readonly refreshWaitMs: number
  /**
   * Requests a minute one client address may make to the unauthenticated authorization endpoints (the
   * auth endpoint, the hosted key page), counted per endpoint (UNIGATE_AUTH_RATE_LIMIT_PER_MINUTE, default
   * 60). The address is the socket's; behind a proxy, all clients share the proxy's.
   */
  readonly rateLimitPerMinute: number
  /** The same per workspace, whoever asks (UNIGATE_AUTH_WORKSPACE_RATE_LIMIT_PER_MINUTE, default 600). */
  readonly workspaceRateLimitPerMinute: number
  /**
   * Pending authorizations kept per workspace (UNIGATE_AUTH_MAX_PENDING_PER_WORKSPACE, default 1000); past
   * it the oldest are dropped, so unauthenticated callers cannot grow the table without bound.
   */
  readonly maxPendingPerWorkspace: number
}

export interface ApiCallLogSettings {
  /**
   * Calls kept per workspace, the newest (UNIGATE_API_CALL_LOG_MAX_PER_WORKSPACE, default 100000, the deepest
   * offset a list reaches). Any key holder adds a row with every call, thousands a second; a page sorted by
   * `name` or `status` reads every row of the workspace (about 0.15 s at 100,000 of the widest on SQLite,
   * where it holds the event loop), so this is also the bound on that.
   */
  readonly maxPerWorkspace: number
  /** Calls older than this are removed (UNIGATE_API_CALL_LOG_RETENTION_DAYS, default 60, as Unified.to keeps them). */
  readonly retentionMs: number
  /**
   * How often each process removes calls past those bounds from the workspaces it recorded calls for (10 s;
   * every workspace at start and hourly), so a workspace is over its bound by at most what it records in that
   * time. Tests shorten it.
   */
  readonly pruneEveryMs: number
}

export const OUTBOUND_ADDRESS_RANGES = ['loopback', 'private', 'link-local'] as const

export interface OutboundSettings {
  /**
   * Address ranges that provider addresses, OAuth app addresses, passthrough and webhook receivers may
   * reach (UNIGATE_OUTBOUND_ALLOW_ADDRESSES, comma-separated; default none): a self-hosted provider or a
   * receiver inside the operator's own network. Refused by default so a caller cannot probe that network.
   * A literal address with its port (`127.0.0.1:8123`, `[::1]:8123`) allows that one service and not its
   * range. UNIGATE_WEBHOOK_ALLOW_ADDRESSES, the older name, adds to it.
   */
  readonly allowAddresses: readonly AllowedAddress[]
  /**
   * The largest provider answer read into memory (UNIGATE_PROVIDER_MAX_BODY_BYTES, default 32 MiB); a
   * longer one is abandoned and answered 502. Passthrough streams and is not capped.
   */
  readonly maxBodyBytes: number
  /**
   * The longest a provider answer read into memory may take, from the call's start to its last byte
   * (UNIGATE_PROVIDER_ANSWER_DEADLINE_MS, default 120 s; 504 when passed), however steadily it trickles:
   * UNIGATE_PROVIDER_TIMEOUT_MS bounds each pause only. Passthrough streams and is not bound by it.
   */
  readonly answerDeadlineMs: number
  /**
   * How long one operation (one unified call, one page of a webhook check) may keep calling its provider
   * (UNIGATE_OPERATION_DEADLINE_MS, default 10 minutes): no call starts past it, and the operation answers 504.
   */
  readonly operationDeadlineMs: number
  /**
   * Provider calls one connection may have in flight in this process (UNIGATE_PROVIDER_CONNECTION_CONCURRENCY,
   * default 8), so one tenant's slow calls cannot take every socket to a provider.
   */
  readonly connectionConcurrency: number
  /** Calls a busy connection may queue beyond that (UNIGATE_PROVIDER_CONNECTION_QUEUE, default 64); more are answered 429. */
  readonly connectionQueue: number
  /**
   * Provider calls one workspace may have in flight in this process over all its connections
   * (UNIGATE_PROVIDER_WORKSPACE_CONCURRENCY, default 256, a quarter of the sockets a provider origin shares),
   * so one workspace's many connections cannot take every socket to a provider from the others.
   */
  readonly workspaceConcurrency: number
  /** Calls a busy workspace may queue beyond that (UNIGATE_PROVIDER_WORKSPACE_QUEUE, default 1024); more are answered 429. */
  readonly workspaceQueue: number
  /**
   * While the JavaScript heap is past this percent of its limit, no provider answer is read into memory: such
   * calls are answered 503 with Retry-After (UNIGATE_HEAP_SHED_PERCENT, default 75; 100 or more never sheds).
   */
  readonly heapShedPercent: number
}

export interface WebhookSettings {
  /**
   * Length of a "minute" in ms for `interval` and the retry schedule (UNIGATE_WEBHOOK_MINUTE_MS). Always
   * 60000 in production; tests shorten it instead of waiting wall-clock minutes.
   */
  readonly minuteMs: number
  /** How often each process looks for due polls and deliveries (UNIGATE_WEBHOOK_TICK_MS). */
  readonly tickMs: number
  /** A receiver slower than this fails the attempt (UNIGATE_WEBHOOK_DELIVERY_TIMEOUT_MS). */
  readonly deliveryTimeoutMs: number
  /** Attempts per delivery before it is given up (UNIGATE_WEBHOOK_MAX_ATTEMPTS; Unified.to uses 20). */
  readonly maxAttempts: number
  /** Consecutive failed attempts that mark the webhook unhealthy (UNIGATE_WEBHOOK_UNHEALTHY_AFTER). */
  readonly unhealthyAfter: number
  /**
   * How long a process may hold a poll or delivery before another may take it over
   * (UNIGATE_WEBHOOK_LEASE_MS): the bound on the stall a killed process causes. Renewed while working.
   */
  readonly leaseMs: number
  /**
   * How long one check of a virtual webhook may read its provider, every page together
   * (UNIGATE_WEBHOOK_CHECK_DEADLINE_MS, default 30 minutes): past it no call starts, and the check is a
   * failed one, so an address answering slowly page after page cannot hold one of the job slots for longer.
   */
  readonly checkDeadlineMs: number
  /** Polls and deliveries one process runs at once (UNIGATE_WEBHOOK_CONCURRENCY). */
  readonly concurrency: number
  /**
   * How long stopping the server waits for running polls and deliveries (UNIGATE_WEBHOOK_STOP_TIMEOUT_MS).
   * Work still running then is aborted and its lease released, so another process takes it over at once.
   */
  readonly stopTimeoutMs: number
  /**
   * Minutes between checks that each native webhook's subscription still exists at the provider
   * (UNIGATE_WEBHOOK_NATIVE_CHECK_MINUTES, default 60): the longest a subscription removed at the provider
   * goes unnoticed, for one provider call per webhook per check.
   */
  readonly nativeCheckMinutes: number
  /** `in-process` or `pg-boss` (UNIGATE_JOB_RUNNER); by default pg-boss on PostgreSQL, in-process otherwise. */
  readonly jobRunner: 'in-process' | 'pg-boss'
  /**
   * Webhooks one workspace may hold (UNIGATE_WEBHOOK_MAX_PER_WORKSPACE, default 10000). Every process's
   * scheduler looks over the due webhooks of every workspace each tick, so without a bound one key holder's
   * webhooks made every tick, and with it every tenant's requests, as slow as its count was large.
   */
  readonly maxPerWorkspace: number
}

function addressRanges(env: NodeJS.ProcessEnv): OutboundSettings['allowAddresses'] {
  const ranges = new Set<string>()
  for (const name of ['UNIGATE_OUTBOUND_ALLOW_ADDRESSES', 'UNIGATE_WEBHOOK_ALLOW_ADDRESSES']) {
    const given = (env[name] ?? '')
      .split(',')
      .map((r) => r.trim())
      .filter(Boolean)
    const allowed = given.map((r) =>
      (OUTBOUND_ADDRESS_RANGES as readonly string[]).includes(r) ? r : allowedEndpoint(r),
    )
    const wrong = given.filter((_, i) => allowed[i] === undefined)
    if (wrong.length > 0) {
      throw new ConfigError(
        `${name}: ${wrong.join(', ')} unknown; use any of ${OUTBOUND_ADDRESS_RANGES.join(', ')}, or a literal address with its port (127.0.0.1:8123, [::1]:8123)`,
      )
    }
    for (const r of allowed) ranges.add(r!)
  }
  return [...ranges] as AllowedAddress[]
}

function loadWebhookSettings(env: NodeJS.ProcessEnv, embedded: boolean): WebhookSettings {
  const runner = env.UNIGATE_JOB_RUNNER || (embedded ? 'in-process' : 'pg-boss')
  if (runner !== 'in-process' && runner !== 'pg-boss')
    throw new ConfigError('UNIGATE_JOB_RUNNER must be in-process or pg-boss')
  if (runner === 'pg-boss' && embedded) throw new ConfigError('UNIGATE_JOB_RUNNER=pg-boss needs DATABASE_URL')
  return {
    minuteMs: int(env, 'UNIGATE_WEBHOOK_MINUTE_MS', 60_000, 1),
    tickMs: int(env, 'UNIGATE_WEBHOOK_TICK_MS', 1_000, 10),
    deliveryTimeoutMs: int(env, 'UNIGATE_WEBHOOK_DELIVERY_TIMEOUT_MS', 10_000, 100),
    maxAttempts: int(env, 'UNIGATE_WEBHOOK_MAX_ATTEMPTS', 20, 1),
    unhealthyAfter: int(env, 'UNIGATE_WEBHOOK_UNHEALTHY_AFTER', 3, 1),
    leaseMs: int(env, 'UNIGATE_WEBHOOK_LEASE_MS', 60_000, 500),
    checkDeadlineMs: int(env, 'UNIGATE_WEBHOOK_CHECK_DEADLINE_MS', 1_800_000, 1_000),
    concurrency: int(env, 'UNIGATE_WEBHOOK_CONCURRENCY', 16, 1),
    // Above the default delivery timeout, so a delivery in hand finishes; inside the README's systemd
    // TimeoutStopSec=30 with room to release leases and close. pg-boss waits at least 1 s.
    stopTimeoutMs: int(env, 'UNIGATE_WEBHOOK_STOP_TIMEOUT_MS', 20_000, 1_000),
    nativeCheckMinutes: int(env, 'UNIGATE_WEBHOOK_NATIVE_CHECK_MINUTES', 60, 1),
    jobRunner: runner,
    maxPerWorkspace: int(env, 'UNIGATE_WEBHOOK_MAX_PER_WORKSPACE', 10_000, 1),
  }
}

export class ConfigError extends Error {}

function bool(env: NodeJS.ProcessEnv, name: string, fallback: boolean): boolean {
  const raw = env[name]?.trim().toLowerCase()
  if (raw === undefined || raw === '') return fallback
  if (raw === 'true' || raw === '1') return true
  if (raw === 'false' || raw === '0') return false
  throw new ConfigError(`${name} must be true or false, got "${env[name]}"`)
}

function int(env: NodeJS.ProcessEnv, name: string, fallback: number, min = 0, max = Infinity): number {
  const raw = env[name]
  if (raw === undefined || raw === '') return fallback
  const value = Number(raw)
  if (!Number.isInteger(value) || value < min || value > max) {
    const range = max === Infinity ? `>= ${min}` : `from ${min} to ${max}`
    throw new ConfigError(`${name} must be an integer ${range}, got "${raw}"`)
  }
  return value
}

/**
 * The master key comes from UNIGATE_MASTER_KEY (base64 of 32 bytes). On the embedded default with no key
 * configured, one is generated on first run and kept in dataDir with 0600 permissions. PostgreSQL
 * deployments share one key across processes, so there it must be configured.
 */
function loadMasterKey(env: NodeJS.ProcessEnv, dataDir: string, embedded: boolean): Buffer {
  const configured = env.UNIGATE_MASTER_KEY
  if (configured) {
    const key = Buffer.from(configured, 'base64')
    if (key.length !== 32) throw new ConfigError('UNIGATE_MASTER_KEY must be the base64 encoding of 32 bytes')
    return key
  }
  if (!embedded) {
    throw new ConfigError(
      'UNIGATE_MASTER_KEY is required with DATABASE_URL (every process must share it); create one with: openssl rand -base64 32',
    )
  }
  const file = join(dataDir, 'master.key')
  if (existsSync(file)) return Buffer.from(readFileSync(file, 'utf8').trim(), 'base64')
  mkdirSync(dataDir, { recursive: true, mode: 0o700 })
  const key = randomBytes(32)
  writeFileSync(file, key.toString('base64'), { mode: 0o600, flag: 'wx' })
  return key
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const port = int(env, 'PORT', 8080)
  const host = env.HOST ?? '127.0.0.1'
  const dataDir = resolve(env.UNIGATE_DATA_DIR ?? 'data')
  const databaseUrl = env.DATABASE_URL || undefined
  const region = (env.UNIGATE_REGION ?? 'na') as Region
  if (!REGIONS.includes(region)) throw new ConfigError(`UNIGATE_REGION must be one of ${REGIONS.join(', ')}`)
  const publicUrl = (env.UNIGATE_PUBLIC_URL ?? `http://${host}:${port}`).replace(/\/+$/, '')
  return {
    host,
    port,
    publicUrl,
    region,
    regionUrls: {
      na: env.UNIGATE_URL_NA ?? (region === 'na' ? publicUrl : undefined),
      eu: env.UNIGATE_URL_EU ?? (region === 'eu' ? publicUrl : undefined),
      au: env.UNIGATE_URL_AU ?? (region === 'au' ? publicUrl : undefined),
    },
    databaseUrl,
    dataDir,
    masterKey: loadMasterKey(env, dataDir, databaseUrl === undefined),
    logLevel: env.LOG_LEVEL ?? 'info',
    providerTimeoutMs: int(env, 'UNIGATE_PROVIDER_TIMEOUT_MS', 30_000, 1),
    providerMaxRetries: int(env, 'UNIGATE_PROVIDER_MAX_RETRIES', 2),
    providerMaxRetryWaitMs: int(env, 'UNIGATE_PROVIDER_MAX_RETRY_WAIT_MS', 5_000),
    keyRevocationRefreshMs: int(env, 'UNIGATE_KEY_REVOCATION_REFRESH_MS', 5_000, 100),
    bodyLimitBytes: int(env, 'UNIGATE_BODY_LIMIT_BYTES', 1_048_576, 1024),
    bodyTimeoutMs: int(env, 'UNIGATE_BODY_TIMEOUT_MS', 60_000, 100),
    maxConnections: int(env, 'UNIGATE_MAX_CONNECTIONS', 10_000, 1),
    logInboundCalls: bool(env, 'UNIGATE_LOG_INBOUND_CALLS', true),
    apiCallLog: {
      maxPerWorkspace: int(env, 'UNIGATE_API_CALL_LOG_MAX_PER_WORKSPACE', 100_000, 1),
      // Up to a century: far past it the cutoff is before any date JavaScript can write.
      retentionMs: int(env, 'UNIGATE_API_CALL_LOG_RETENTION_DAYS', 60, 1, 36_500) * 86_400_000,
      pruneEveryMs: 10_000,
    },
    outbound: {
      allowAddresses: addressRanges(env),
      maxBodyBytes: int(env, 'UNIGATE_PROVIDER_MAX_BODY_BYTES', 32 * 1024 * 1024, 1024),
      answerDeadlineMs: int(env, 'UNIGATE_PROVIDER_ANSWER_DEADLINE_MS', 120_000, 100),
      operationDeadlineMs: int(env, 'UNIGATE_OPERATION_DEADLINE_MS', 600_000, 1_000),
      connectionConcurrency: int(env, 'UNIGATE_PROVIDER_CONNECTION_CONCURRENCY', 8, 1),
      connectionQueue: int(env, 'UNIGATE_PROVIDER_CONNECTION_QUEUE', 64, 0),
      // Below the sockets a provider origin shares (SOCKETS_PER_ORIGIN in src/outbound/provider-transport.ts):
      // at or above them one workspace could hold them all, and the bound would protect nothing.
      workspaceConcurrency: int(env, 'UNIGATE_PROVIDER_WORKSPACE_CONCURRENCY', 256, 1, 1023),
      workspaceQueue: int(env, 'UNIGATE_PROVIDER_WORKSPACE_QUEUE', 1024, 0),
      heapShedPercent: int(env, 'UNIGATE_HEAP_SHED_PERCENT', 75, 1),
    },
    webhooks: loadWebhookSettings(env, databaseUrl === undefined),
    authorization: {
      stateTtlMs: int(env, 'UNIGATE_AUTH_STATE_TTL_SECONDS', 900, 30) * 1000,
      refreshMarginMs: int(env, 'UNIGATE_TOKEN_REFRESH_MARGIN_SECONDS', 300) * 1000,
      refreshWaitMs: int(env, 'UNIGATE_TOKEN_REFRESH_WAIT_SECONDS', 15, 1) * 1000,
      rateLimitPerMinute: int(env, 'UNIGATE_AUTH_RATE_LIMIT_PER_MINUTE', 60, 1),
      workspaceRateLimitPerMinute: int(env, 'UNIGATE_AUTH_WORKSPACE_RATE_LIMIT_PER_MINUTE', 600, 1),
      maxPendingPerWorkspace: int(env, 'UNIGATE_AUTH_MAX_PENDING_PER_WORKSPACE', 1000, 1),
    },
  }
}
