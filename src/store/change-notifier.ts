import { sql } from 'kysely'
import type pg from 'pg'
import type { Db } from './database.js'
import { pgModule } from './lazy-modules.js'

/** What a process caches that another process may change. */
export type ChangeKind = 'api_key' | 'connection' | 'workspace'

const KINDS: readonly ChangeKind[] = ['api_key', 'connection', 'workspace']

export interface ChangeSubscriber {
  /** The row with this id changed or went away: drop (or re-read) what is cached of it. */
  invalidate(id: string): void
  /** Changes may have been missed (the listener was down): drop everything cached of this kind. */
  invalidateAll(): void
}

export interface PgChangeTransport {
  /** Writes go through the pool; pg_notify there runs after the write it follows has committed. */
  readonly db: Db
  /** The listener's own connection (LISTEN holds a session, so it cannot share the pool). */
  readonly databaseUrl: string
  /** Tests isolate themselves in a schema; each schema gets its own channel. */
  readonly pgSchema?: string
  readonly onError: (err: unknown, context: string) => void
}

const FIRST_RETRY_MS = 250
const MAX_RETRY_MS = 10_000

/** The channel a database (or one test schema in it) announces its changes on. */
export function changeChannel(pgSchema?: string): string {
  return pgSchema ? `unigate_changes_${pgSchema}` : 'unigate_changes'
}

/**
 * Tells every process's caches that a row changed, so a revoked key, a removed or changed connection or a
 * changed workspace setting takes effect everywhere at once rather than when a cache entry expires.
 *
 * Without a transport (SQLite: one process) it only calls this process's subscribers. On PostgreSQL it
 * also sends `invalidate <kind> <id>` with NOTIFY, and a dedicated client per process LISTENs, reconnecting
 * when the connection drops. While the listener is down the caches' own TTLs still bound staleness, and
 * after a reconnect every subscriber drops everything, because what was announced meanwhile is lost.
 */
export class ChangeNotifier {
  private readonly subscribers = new Map<ChangeKind, ChangeSubscriber[]>()
  private readonly channel: string
  /** The listening client, from the moment it starts connecting (so close() can end it). */
  private client: pg.Client | undefined
  private ready = false
  private retryTimer: NodeJS.Timeout | undefined
  private retryMs = FIRST_RETRY_MS
  private connectedOnce = false
  private started = false
  private closed = false

  constructor(private readonly transport?: PgChangeTransport) {
    this.channel = changeChannel(transport?.pgSchema)
  }

  subscribe(kind: ChangeKind, subscriber: ChangeSubscriber): void {
    this.subscribers.set(kind, [...(this.subscribers.get(kind) ?? []), subscriber])
  }

  /**
   * Announces that a row changed; call it after the write committed. This process's subscribers hear it
   * at once, the others through NOTIFY. A failed NOTIFY is reported, never thrown: the write stands, and
   * the other processes fall back to their TTLs.
   */
  async publish(kind: ChangeKind, id: string): Promise<void> {
    this.dispatch(kind, id)
    if (!this.transport) return
    try {
      await sql`select pg_notify(${this.channel}, ${`invalidate ${kind} ${id}`})`.execute(this.transport.db)
    } catch (err) {
      this.transport.onError(err, `announcing a change of ${kind} ${id}`)
    }
  }

  /** True while this process hears other processes' changes (always true without a transport). */
  get listening(): boolean {
    return !this.transport || this.ready
  }

  /**
   * Starts listening (servers do; one-shot CLI commands only publish). Resolves once the first attempt
   * to listen has succeeded or failed; a failure is reported and retried in the background.
   */
  async start(): Promise<void> {
    if (!this.transport || this.started) return
    this.started = true
    await this.listen()
  }

  async close(): Promise<void> {
    this.closed = true
    if (this.retryTimer) clearTimeout(this.retryTimer)
    this.ready = false
    const client = this.client
    this.client = undefined
    await client?.end().catch(() => undefined)
  }

  private async listen(): Promise<void> {
    const transport = this.transport!
    const client = new (pgModule().Client)({ connectionString: transport.databaseUrl, keepAlive: true })
    this.client = client
    let lost = false
    const onLost = (err?: unknown) => {
      if (lost) return
      lost = true
      if (this.client === client) {
        this.client = undefined
        this.ready = false
      }
      client.end().catch(() => undefined)
      if (this.closed) return
      if (err) transport.onError(err, 'listening for changes from other processes')
      this.retryLater()
    }
    client.on('error', onLost)
    client.on('end', () => onLost())
    client.on('notification', (message) => {
      if (message.channel === this.channel && message.payload) this.receive(message.payload)
    })
    try {
      await client.connect()
      await client.query(`LISTEN ${client.escapeIdentifier(this.channel)}`)
    } catch (err) {
      onLost(err)
      return
    }
    if (this.closed || lost) return
    this.ready = true
    this.retryMs = FIRST_RETRY_MS
    if (this.connectedOnce)
      for (const kind of KINDS) for (const s of this.subscribers.get(kind) ?? []) s.invalidateAll()
    this.connectedOnce = true
  }

  private retryLater(): void {
    if (this.closed || this.retryTimer) return
    this.retryTimer = setTimeout(() => {
      this.retryTimer = undefined
      if (!this.closed) void this.listen()
    }, this.retryMs)
    this.retryTimer.unref()
    this.retryMs = Math.min(this.retryMs * 2, MAX_RETRY_MS)
  }

  private receive(payload: string): void {
    const [verb, kind, id] = payload.split(' ')
    if (verb !== 'invalidate' || !id || !KINDS.includes(kind as ChangeKind)) return
    this.dispatch(kind as ChangeKind, id)
  }

  private dispatch(kind: ChangeKind, id: string): void {
    for (const s of this.subscribers.get(kind) ?? []) s.invalidate(id)
  }
}
