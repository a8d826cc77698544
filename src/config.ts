import { randomBytes } from 'node:crypto'
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'

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
  /** How often each process reloads revoked API keys (revocation by another process takes effect within it). */
  readonly keyRevocationRefreshMs: number
  readonly bodyLimitBytes: number
}

export class ConfigError extends Error {}

function int(env: NodeJS.ProcessEnv, name: string, fallback: number, min = 0): number {
  const raw = env[name]
  if (raw === undefined || raw === '') return fallback
  const value = Number(raw)
  if (!Number.isInteger(value) || value < min)
    throw new ConfigError(`${name} must be an integer >= ${min}, got "${raw}"`)
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
  }
}
