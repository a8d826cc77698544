import { randomUUID } from 'node:crypto'
import type { RefreshLock } from '../authorization/tokens/lock.js'
import type { Region } from '../config.js'
import { newId } from '../crypto/ids.js'
import {
  ApiError,
  badRequest,
  busyAnswer,
  ConnectionBusyError,
  notFound,
  ProviderError,
  ProviderTimeoutError,
  ProviderUnreachableError,
} from '../errors.js'
import { authFieldsOf, missingAuthFields } from '../integrations/auth-methods.js'
import { PathSegmentRefused } from '../integrations/http-client.js'
import { integrationOf } from '../integrations/registry.js'
import { integrationPermissions } from '../integrations/support.js'
import type {
  AuthField,
  ConnectionSettings,
  Credentials,
  IntegrationDefinition,
} from '../integrations/types.js'
import { UnexpectedVerifyAnswer } from '../integrations/verify-answer.js'
import type { AllowedAddress } from '../outbound/index.js'
import { nowIso } from '../store/index.js'
import { addressOf, addressProblem, checkAddresses, movedFields, secretsToResupply } from './addresses.js'
import type { StoredConnection } from './connection.js'
import type { ConnectionResolver } from './resolver.js'
import { type ProviderClientSettings, providerClientFor } from './resolver.js'
import type { ConnectionChanges, ConnectionStore } from './store.js'

export interface ConnectionInput {
  readonly integration_type?: string
  readonly categories?: readonly string[]
  readonly permissions?: readonly string[]
  readonly auth?: Readonly<Record<string, unknown>>
  readonly external_xref?: string
  readonly environment?: string
}

/** The most of a provider's message a failed verification repeats. */
const MAX_REPEATED_CHARS = 200

/**
 * What a failed verification repeats of the provider's refusal, as `: <message>`: the message it stated (a
 * `message` or `error` field, an error header), control and format characters (line breaks, bidi overrides)
 * made spaces, at most MAX_REPEATED_CHARS characters; nothing when the refusal had no such message. The
 * address is the caller's (`api_url`), and the answer reaches the caller and the hosted authorization page:
 * repeating its raw body would let any allowed address put a page of its text in Unigate's answer. The
 * whole message goes to the server log.
 */
function providerStatedMessage(err: ProviderError): string {
  if (err.messageIsBody) return ''
  const words = err.providerMessage
    .replace(/[\p{Cc}\p{Cf}]+/gu, ' ')
    .replace(/\s+/g, ' ')
    .trim()
  const chars = [...words]
  if (chars.length === 0) return ''
  return `: ${chars.length > MAX_REPEATED_CHARS ? `${chars.slice(0, MAX_REPEATED_CHARS - 1).join('')}…` : words}`
}

/**
 * The provider could not confirm the credentials. `providerStatus` is the provider's HTTP status when it
 * answered; refused, timed-out and unreachable look the same to callers that must not tell them apart
 * (the unauthenticated key page), while the API's message keeps the detail for the workspace.
 */
export class CredentialsNotVerified extends ApiError {
  constructor(
    statusCode: number,
    message: string,
    readonly providerStatus?: number,
    options?: { cause?: unknown },
  ) {
    super(statusCode, message, {}, {}, options)
  }
}

/**
 * What a connection created from held credentials records beside them: OAuth tokens get the token and
 * revoke addresses they will be refreshed and revoked at (set by the authorization module).
 */
export type CredentialsPinner = (
  workspaceId: string,
  integration: IntegrationDefinition,
  credentials: Credentials,
) => Promise<Credentials>

export interface VerifiedConnection {
  readonly integration: IntegrationDefinition
  readonly credentials: Credentials
  readonly settings: ConnectionSettings
  readonly permissions: readonly string[]
  readonly external_xref?: string
  readonly environment: string
}

/**
 * Reads the integration's auth fields from the SDK's `auth` object: a field is taken from `auth.<name>`
 * or, for names the SDK's model does not have (a region), from `auth.meta.<name>`. `fields` defaults to
 * those of every auth method; the key page narrows it to the key's own.
 */
/**
 * The longest value an auth field takes: far above any provider's key, token or address (a Google service
 * account's JSON key is about 2,300 characters). Longer ones reached providers as headers or addresses they
 * refused (a 500 KB token: 431; a 100 KB host name: EINVAL), answered 502 as if the provider had failed.
 */
export const MAX_AUTH_VALUE_LENGTH = 16_384

export function credentialsFrom(
  integration: IntegrationDefinition,
  auth: Readonly<Record<string, unknown>>,
  fields: readonly AuthField[] = authFieldsOf(integration),
): Credentials {
  const meta = (auth.meta && typeof auth.meta === 'object' ? auth.meta : {}) as Record<string, unknown>
  const out: Record<string, string> = {}
  for (const field of fields) {
    const value = auth[field.name] ?? meta[field.name]
    if (value === undefined || value === null || value === '') continue
    if (typeof value !== 'string') throw badRequest(`auth.${field.name} must be a string`)
    // The value is never echoed: it may be a secret.
    if (value.length > MAX_AUTH_VALUE_LENGTH)
      throw badRequest(`auth.${field.name}: at most ${MAX_AUTH_VALUE_LENGTH} characters`)
    if (field.options && !field.options.includes(value)) {
      throw badRequest(
        `auth.${field.name}: '${value}' is not allowed; use one of ${field.options.join(', ')}`,
      )
    }
    out[field.name] = value
  }
  return out
}

function requireFields(integration: IntegrationDefinition, credentials: Credentials): void {
  const missing = missingAuthFields(integration, credentials).map((f) => `auth.${f.name}`)
  if (missing.length > 0) {
    throw badRequest(`${integration.name} needs ${missing.join(', ')} to create a connection`)
  }
}

function subsetOf(name: string, given: readonly string[] | undefined, allowed: readonly string[]): string[] {
  if (given === undefined || given.length === 0) return [...allowed]
  const unknown = given.filter((g) => !allowed.includes(g))
  if (unknown.length > 0)
    throw badRequest(`${name}: ${unknown.join(', ')} not allowed; use any of ${allowed.join(', ')}`)
  return [...new Set(given)]
}

/**
 * A PATCH's or PUT's credentials over the stored ones. New tokens take the old ones' expiry and refresh
 * failure with them: kept, `refresh_error` left a connection given fresh tokens dead (every call a 403 asking
 * to re-authorize), and `expiry_date` had the new access token refreshed at once.
 */
function givenOverStored(stored: Credentials, given: Credentials): Credentials {
  if (given.access_token === undefined && given.refresh_token === undefined) return { ...stored, ...given }
  const { expiry_date: _expiry, refresh_error: _failure, ...rest } = stored
  return { ...rest, ...given }
}

/**
 * The lease a token refresh holds on a connection while it reads the credentials, asks the token endpoint and
 * writes what it got (RefreshLock, the refresher's own instance), and how long an update waits for it.
 */
export interface RefreshLease {
  readonly lock: RefreshLock
  readonly waitMs: number
}

/**
 * How long an update holds the refresh lease: for its re-read, pinning and write of the connection, no
 * provider call. Past it a refresh may take the lease over, as from a holder that crashed.
 */
const UPDATE_LEASE_MS = 10_000

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms))
}

/** Creating, changing and removing connections from credentials the workspace already holds. */
export class ConnectionService {
  constructor(
    private readonly store: ConnectionStore,
    private readonly resolver: ConnectionResolver,
    private readonly clientSettings: ProviderClientSettings,
    private readonly region: Region,
    private readonly refreshLease: RefreshLease,
    private readonly allowAddresses: readonly AllowedAddress[] = [],
  ) {}

  private pin: CredentialsPinner = async (_w, _i, credentials) => credentials

  /** Set by the authorization module: what new connections record about where their tokens came from. */
  pinCredentialsWith(pin: CredentialsPinner): void {
    this.pin = pin
  }

  /** 400 when an address in the credentials (or the base address they lead to) may not be reached. */
  checkAddresses(integration: IntegrationDefinition, credentials: Credentials): void {
    checkAddresses(integration, credentials, this.allowAddresses)
  }

  /** The same check as a message, with fields named by `label` (the hosted page names them as it shows them). */
  addressProblem(
    integration: IntegrationDefinition,
    credentials: Credentials,
    label: (field: AuthField) => string,
  ): string | undefined {
    return addressProblem(integration, credentials, this.allowAddresses, label)
  }

  /**
   * A cheap provider call proves the credentials before anything is stored; bad ones are a 400. Their
   * addresses are checked first, so nothing is sent to a refused or malformed address.
   *
   * The calls count against `workspaceId`'s provider calls like every other call made for it (a 429 naming
   * its bound when that is full), and wait for its slots no longer than a request may read
   * (UNIGATE_OPERATION_DEADLINE_MS). Not against a connection's: one being created has no id yet, and any key
   * made up for it (per credentials, per request) is one the caller can vary at will, so it would bound
   * nothing the workspace's bound does not; a verification makes its calls one after another, so it holds
   * one slot at a time anyway. An update's verification is of new credentials, counted the same way rather
   * than queued behind the calls the connection is making with its old ones.
   *
   * `countAs` names whose bound they count against when it is not the workspace's own: the hosted key page's
   * visitors (anyone with a link, and anyone can make links) choose the address, and one that never answers
   * held a slot per visitor until every slot of the workspace was theirs and its API calls answered 429.
   */
  async verify(
    workspaceId: string,
    integration: IntegrationDefinition,
    credentials: Credentials,
    countAs: string = workspaceId,
  ): Promise<ConnectionSettings> {
    this.checkAddresses(integration, credentials)
    const client = providerClientFor(
      integration,
      credentials,
      { ...this.clientSettings, jsonAnswersOnly: true },
      undefined,
      { workspaceId: countAs },
    ).forOperation()
    try {
      return await integration.verify(client, credentials)
    } catch (err) {
      if (err instanceof ProviderError && (err.status === 401 || err.status === 403)) {
        throw new CredentialsNotVerified(
          400,
          `${integration.name} rejected the credentials (${err.status}${providerStatedMessage(err)})`,
          err.status,
          { cause: err },
        )
      }
      if (err instanceof ProviderError) {
        throw new CredentialsNotVerified(
          502,
          `${integration.name} could not verify the credentials (${err.status}${providerStatedMessage(err)})`,
          err.status,
          { cause: err },
        )
      }
      if (err instanceof ProviderTimeoutError)
        throw new CredentialsNotVerified(
          504,
          `${integration.name} did not answer the verification call in time`,
        )
      if (err instanceof ProviderUnreachableError) {
        throw new CredentialsNotVerified(
          502,
          `${integration.name} could not be reached to verify the credentials (${err.reason})`,
        )
      }
      if (err instanceof UnexpectedVerifyAnswer) {
        // A 2xx that is not the provider's documented answer: the address is not that provider. Named by
        // the call only, never by what it answered (DESIGN 9).
        throw new CredentialsNotVerified(
          502,
          `${integration.name} answered the verification call (${err.call}) with a response of an unexpected shape, not the one ${integration.name} documents`,
          undefined,
          { cause: err },
        )
      }
      if (err instanceof PathSegmentRefused) {
        // Verification paths are Unigate's own or built from an id an earlier answer gave: a `.` or `..` id is
        // that answer's doing, not the caller's. Not named: the message reaches the OAuth callback page, open to
        // anyone with the link, and the app's api_url may be an internal address (DESIGN 9).
        throw new CredentialsNotVerified(
          502,
          `${integration.name} answered the verification call with an id that would name another address in the next call's path; nothing was sent there`,
          undefined,
          { cause: err },
        )
      }
      if (err instanceof ConnectionBusyError) throw busyAnswer(err)
      if (err instanceof ApiError) throw err
      // A TypeError on a body of an unexpected shape, say: the address answered something that is not the
      // provider's verification answer. A 502, as the engine answers such a read (provider-errors.ts).
      throw new CredentialsNotVerified(
        502,
        `${integration.name} answered the verification call with a response of an unexpected shape, which Unigate could not read`,
        undefined,
        { cause: err },
      )
    }
  }

  async create(workspaceId: string, input: ConnectionInput): Promise<StoredConnection> {
    if (!input.integration_type) throw badRequest('integration_type is required')
    const integration = integrationOf(input.integration_type)
    if (!integration)
      throw badRequest(
        `integration_type: unknown integration '${input.integration_type}'; see GET /unified/integration`,
      )
    const credentials = credentialsFrom(integration, input.auth ?? {})
    requireFields(integration, credentials)
    const categories = subsetOf('categories', input.categories, integration.categories)
    const permissions = subsetOf('permissions', input.permissions, integrationPermissions(integration))
    const settings = await this.verify(workspaceId, integration, credentials)
    const now = nowIso()
    const pinned = await this.pin(workspaceId, integration, credentials)
    return this.store.insert({
      id: newId(`cn_${this.region}`),
      workspace_id: workspaceId,
      integration_type: integration.type,
      categories,
      permissions,
      ...(input.external_xref !== undefined ? { external_xref: input.external_xref } : {}),
      environment: input.environment ?? 'Production',
      credentials: pinned,
      settings,
      created_at: now,
      updated_at: now,
    })
  }

  /** Stores a connection whose credentials were just verified by the authorization flow. */
  async insertVerified(workspaceId: string, c: VerifiedConnection): Promise<StoredConnection> {
    const now = nowIso()
    return this.store.insert({
      id: newId(`cn_${this.region}`),
      workspace_id: workspaceId,
      integration_type: c.integration.type,
      categories: [...c.integration.categories],
      permissions: [...c.permissions],
      ...(c.external_xref !== undefined ? { external_xref: c.external_xref } : {}),
      environment: c.environment,
      credentials: c.credentials,
      settings: c.settings,
      created_at: now,
      updated_at: now,
    })
  }

  /**
   * PUT and PATCH both merge: the SDK sends the whole connection on PATCH too, and never sends the
   * secret credentials back (it never received them), so absent auth fields keep their stored values.
   */
  async update(workspaceId: string, id: string, input: ConnectionInput): Promise<StoredConnection> {
    const current = await this.store.get(workspaceId, id)
    if (!current) throw notFound(`connection ${id} not found`)
    if (input.integration_type !== undefined && input.integration_type !== current.integration_type) {
      throw badRequest(
        `integration_type cannot change (it is '${current.integration_type}'); create a new connection`,
      )
    }
    const integration = integrationOf(current.integration_type)
    if (!integration) throw notFound(`connection ${id} not found`)
    const changes: ConnectionChanges = {}
    if (input.categories)
      changes.categories = subsetOf('categories', input.categories, integration.categories)
    if (input.permissions)
      changes.permissions = subsetOf('permissions', input.permissions, integrationPermissions(integration))
    if (input.external_xref !== undefined) changes.external_xref = input.external_xref
    if (input.environment !== undefined) changes.environment = input.environment
    const given = input.auth ? credentialsFrom(integration, input.auth) : {}
    if (Object.keys(given).length > 0) {
      const credentials = givenOverStored(current.credentials, given)
      requireFields(integration, credentials)
      this.checkAddresses(integration, credentials)
      const resupply = secretsToResupply(integration, current.credentials, given)
      if (resupply.length > 0) {
        const moved = movedFields(integration, current.credentials, credentials)
        const what = moved.length > 0 ? moved.map((f) => `auth.${f}`).join(', ') : 'this change'
        throw badRequest(
          `${what} moves the connection to another address; give ${resupply.map((f) => `auth.${f}`).join(', ')} again in the same request (stored secrets are only sent to the address they were verified with)`,
        )
      }
      changes.settings = await this.verify(workspaceId, integration, credentials)
      // The provider has just answered these credentials: a connection marked unhealthy (refused credentials, a
      // dead refresh grant) shows healthy again at once, not only after its next unified call succeeds.
      changes.last_healthy_at = nowIso()
      await this.holdingRefreshLease(id, async () => {
        const renewed = await this.credentialsAfterVerifying(workspaceId, integration, current, given)
        // OAuth tokens given to a connection that held none (it had an API key) are pinned to the token and
        // revoke addresses of now, as at creation: a later change of the workspace's OAuth app must not send
        // this refresh token elsewhere. A connection already pinned keeps its addresses: its stored refresh
        // token was issued there.
        changes.credentials = renewed.token_url ? renewed : await this.pin(workspaceId, integration, renewed)
        await this.store.update(workspaceId, id, changes, nowIso())
      })
    } else {
      // No credentials written (categories, permissions, external_xref, environment are columns of their own):
      // no refresh's write can undo this one nor be undone by it, so it does not wait for one.
      await this.store.update(workspaceId, id, changes, nowIso())
    }
    await this.resolver.invalidate(id)
    // Removed meanwhile (a DELETE while the provider answered): the update wrote nothing.
    const updated = await this.store.get(workspaceId, id)
    if (!updated) throw notFound(`connection ${id} not found`)
    return updated
  }

  /**
   * Runs `write` (a re-read of the credentials and the write of them) holding the connection's refresh lease,
   * so that it and a token refresh never interleave: a refresh writes the credentials it read before asking
   * the token endpoint, and had it read them before this write and written after it, the fields this update
   * gave (new tokens, say) were lost though the update answered 200. Holding the lease, the update waits for
   * a running refresh and reads what it wrote (a rotated refresh token is kept; given tokens still win), and
   * a refresh that starts meanwhile waits for the update and reads its credentials. A refresh still running
   * after `waitMs` is a 503 with nothing written.
   */
  private async holdingRefreshLease(connectionId: string, write: () => Promise<void>): Promise<void> {
    const { lock, waitMs } = this.refreshLease
    const holder = randomUUID()
    const deadline = Date.now() + waitMs
    while (!(await lock.acquire(connectionId, holder, UPDATE_LEASE_MS))) {
      if (Date.now() >= deadline) {
        throw new ApiError(
          503,
          `connection ${connectionId} is having its access token refreshed, for longer than this request waits (UNIGATE_TOKEN_REFRESH_WAIT_SECONDS); nothing was changed: send the request again`,
          { 'retry-after': '1' },
        )
      }
      await sleep(Math.min(20 + Math.random() * 40, Math.max(0, deadline - Date.now())))
    }
    try {
      await write()
    } finally {
      await lock.release(connectionId, holder)
    }
  }

  /**
   * The credentials to write after a verification: the given fields over the connection as stored now, not
   * as read before the provider call. A token refresh meanwhile may have rotated the refresh token (PostHog
   * does on every refresh, and the old one is dead): written back, the old one made the connection's next
   * refresh an invalid_grant, and the connection had to be authorized again. A connection moved to another
   * address meanwhile (another PUT or PATCH) is a 409: its new secrets must not go with this request's
   * address, nor this request's undo that move.
   */
  private async credentialsAfterVerifying(
    workspaceId: string,
    integration: IntegrationDefinition,
    read: StoredConnection,
    given: Credentials,
  ): Promise<Credentials> {
    const latest = await this.store.get(workspaceId, read.id)
    if (!latest) throw notFound(`connection ${read.id} not found`)
    const before = addressOf(integration, read.credentials)
    // This request moves the connection, so it gave every stored secret again: none renewed at the old
    // address (a refresh token a refresh added meanwhile) may go to the new one.
    if (addressOf(integration, givenOverStored(read.credentials, given)) !== before)
      return givenOverStored(read.credentials, given)
    if (addressOf(integration, latest.credentials) !== before) {
      throw new ApiError(
        409,
        `connection ${read.id} was moved to another address while this request verified it; send the request again`,
      )
    }
    return givenOverStored(latest.credentials, given)
  }

  private readonly beforeRemove: ((workspaceId: string, id: string) => Promise<void>)[] = []

  /** Work that must happen while the connection still exists (its webhooks unsubscribe at the provider). */
  onBeforeRemove(hook: (workspaceId: string, id: string) => Promise<void>): void {
    this.beforeRemove.push(hook)
  }

  async remove(workspaceId: string, id: string): Promise<void> {
    if (await this.store.get(workspaceId, id))
      for (const hook of this.beforeRemove) await hook(workspaceId, id)
    const removed = await this.store.remove(workspaceId, id)
    await this.resolver.invalidate(id)
    if (!removed) throw notFound(`connection ${id} not found`)
  }
}
