import { describe, expect, it } from 'vitest'
import { ApiError } from '../errors.js'
import { ProviderTransport } from '../outbound/index.js'
import {
  OPERATION_BODY_CAPS,
  ProviderAddressTooLong,
  ProviderClient,
  providerMessageOf,
  redactSecrets,
} from './http-client.js'

const client = (baseUrl: string) =>
  new ProviderClient({
    baseUrl,
    authHeaders: {},
    retry: { on: [], afterHeaders: [] },
    timeoutMs: 1000,
    maxRetries: 0,
    maxRetryWaitMs: 0,
    transport: {} as ProviderTransport,
  })

/** What `f` threw, or undefined. */
function refusalOf(f: () => unknown): unknown {
  try {
    f()
  } catch (err) {
    return err
  }
  return undefined
}

describe('ProviderClient.urlFor, length', () => {
  it("refuses with a 400 an address the caller's values make longer than servers read, before sending it", () => {
    const c = client('https://api.example.com')
    const refused = refusalOf(() => c.urlFor(`/projects/${'x'.repeat(20_000)}/`))
    expect(refused).toBeInstanceOf(ProviderAddressTooLong)
    expect((refused as ApiError).statusCode).toBe(400)
    expect((refused as ApiError).message).toBe(
      "the values given (an id, a filter or raw) would make the provider's address 20034 characters long; Unigate sends at most 16384",
    )
    expect(refusalOf(() => c.urlFor('/events', undefined, { q: 'y'.repeat(20_000) }))).toBeInstanceOf(
      ProviderAddressTooLong,
    )
    // Up to the bound, and a provider's own link whatever its length, go as they are.
    expect(c.urlFor(`/${'x'.repeat(16_000)}`).href.length).toBe(16_024)
    expect(c.urlFor(`https://api.example.com/next?c=${'z'.repeat(20_000)}`).href.length).toBe(20_031)
  })
})

describe('ProviderClient.linkFrom', () => {
  it("resolves a provider's link against the address of the request it answered, as RFC 3986 resolves references", () => {
    const c = client('https://api.example.com/v3')
    const first = { path: '/applications', query: { per_page: 500 } }
    const resolved = (link: string, request: Parameters<typeof c.linkFrom>[0] = first) =>
      c.linkFrom(request, link)
    const next = 'https://api.example.com/v3/applications?cursor=x'
    for (const link of [
      next,
      '/v3/applications?cursor=x',
      'applications?cursor=x',
      '?cursor=x',
      '//api.example.com/v3/applications?cursor=x',
      '/v3/jobs/../applications?cursor=x',
      '../v3/./applications?cursor=x',
    ])
      expect(resolved(link), link).toBe(next)
    // Against a followed link, and against the other base a request named.
    expect(resolved('?cursor=y', { path: next })).toBe('https://api.example.com/v3/applications?cursor=y')
    expect(resolved('e?p=2', { path: '/v1/e', baseUrl: 'https://ingest.example.com/x' })).toBe(
      'https://ingest.example.com/x/v1/e?p=2',
    )
    // What it answers is sent as it is.
    expect(c.urlFor(resolved('applications?cursor=x')).href).toBe(next)
  })

  it('refuses with a 502 a link off the origin once resolved, and one that is no URL', () => {
    const c = client('https://api.example.com/v3')
    for (const link of ['//other.example.com/v3/applications', 'https://other.example.com/', 'http://[x/']) {
      const refused = refusalOf(() => c.linkFrom({ path: '/applications' }, link))
      expect(refused, link).toBeInstanceOf(ApiError)
      expect((refused as ApiError).statusCode, link).toBe(502)
    }
  })
})

describe('ProviderClient.targetFor', () => {
  it('splits the address into the origin and the path with its query, as undici splits a URL', () => {
    const c = client('https://api.example.com/crm/v3/')
    expect(c.targetFor('/objects/contacts', undefined, { limit: 100, after: 'a b', x: undefined })).toEqual({
      origin: 'https://api.example.com',
      path: '/crm/v3/objects/contacts?limit=100&after=a+b',
    })
    // A provider's own `next` link keeps its query; the set parameter joins it in the form encoding.
    expect(
      c.targetFor('https://api.example.com/crm/v3/objects?after=x%2Fy', undefined, { limit: 1 }),
    ).toEqual({ origin: 'https://api.example.com', path: '/crm/v3/objects?after=x%2Fy&limit=1' })
    expect(c.targetFor('objects', 'https://ingest.example.com:8443', {})).toEqual({
      origin: 'https://ingest.example.com:8443',
      path: '/objects',
    })
    // What the URL parser encodes, it has encoded.
    expect(c.targetFor('/a/b c/é')).toEqual({
      origin: 'https://api.example.com',
      path: '/crm/v3/a/b%20c/%C3%A9',
    })
  })

  it('refuses a path with a dot segment (an id of ..), plain or percent-encoded, with a 400', () => {
    const c = client('https://api.example.com/crm/v3/')
    for (const path of [
      '/objects/contacts/..',
      '/objects/../x',
      '/websites/./events',
      '/a/%2E%2e/b',
      '/a/.%2E',
      '/contacts/..\\x',
      '/contacts/.\t.',
      '/contacts/.\n./x',
    ]) {
      const refused = refusalOf(() => c.targetFor(path))
      expect(refused, path).toBeInstanceOf(ApiError)
      expect((refused as ApiError).statusCode, path).toBe(400)
      expect((refused as ApiError).message, path).toMatch(/is not an id or filter value Unigate sends on/)
    }
    // Dots inside a segment are any other character; a query is not a path.
    expect(c.targetFor('/a/.../..b/v1.2?next=../x')).toEqual({
      origin: 'https://api.example.com',
      path: '/crm/v3/a/.../..b/v1.2?next=../x',
    })
  })

  it("refuses a provider's link off the base address's origin with a 502 naming both origins", () => {
    const c = client('https://api.example.com/v3')
    for (const link of [
      'https://old.example.com/v3/applications?cursor=x',
      'http://api.example.com/v3/applications',
      'https://api.example.com:8443/v3/applications',
      'http://169.254.169.254/latest/meta-data/',
    ]) {
      const refused = refusalOf(() => c.targetFor(link))
      expect(refused, link).toBeInstanceOf(ApiError)
      expect((refused as ApiError).statusCode).toBe(502)
      expect((refused as ApiError).message).toContain(new URL(link).origin)
      expect((refused as ApiError).message).toContain('https://api.example.com')
      expect((refused as ApiError).message).not.toContain('cursor=x')
    }
    // On another base given for the request, that base's origin is the one a link must keep.
    expect(c.targetFor('https://ingest.example.com/e?x=1', 'https://ingest.example.com/')).toEqual({
      origin: 'https://ingest.example.com',
      path: '/e?x=1',
    })
  })

  it('leaves a URL that is not http(s) a URL, for undici to refuse as it always did', () => {
    const target = client('ftp://files.example.com/pub').targetFor('/x')
    expect(target).toBeInstanceOf(URL)
    expect(String(target)).toBe('ftp://files.example.com/pub/x')
  })
})

/** What forOperation reads of its transport's settings. */
const SETTINGS = { maxBodyBytes: 1024, operationDeadlineMs: 600_000 }

describe('ProviderClient.forOperation', () => {
  it('makes at most the budgeted provider calls for one operation, then answers 502 sending nothing more', async () => {
    let sent = 0
    const transport = {
      settings: SETTINGS,
      fetch: async () => {
        sent++
        return { status: 200, headers: {}, body: Buffer.from('[]') }
      },
    } as unknown as ProviderTransport
    const shared = new ProviderClient({ ...client('https://api.example.com').options, transport })
    const operation = shared.forOperation({ calls: 3, bytes: 1000 })
    for (let i = 0; i < 3; i++) expect(await operation.json({ path: '/x' })).toEqual([])
    await expect(operation.json({ path: '/x' })).rejects.toMatchObject({
      statusCode: 502,
      message: expect.stringContaining('called 3 times for this one request'),
    })
    expect(sent).toBe(3)
    // Another operation has its own budget; the connection's client has none.
    expect(await shared.forOperation({ calls: 3, bytes: 1000 }).json({ path: '/x' })).toEqual([])
    for (let i = 0; i < 5; i++) await shared.json({ path: '/x' })
    expect(sent).toBe(9)
  })
})

describe('ProviderClient.forOperation, answer bytes', () => {
  it('reads at most the budgeted answer bytes for one operation, then answers 502 naming the cap', async () => {
    const page = Buffer.from(JSON.stringify(['x'.repeat(390)]))
    const transport = {
      settings: SETTINGS,
      fetch: async () => ({ status: 200, headers: {}, body: page }),
    } as unknown as ProviderTransport
    const shared = new ProviderClient({ ...client('https://api.example.com').options, transport })
    const operation = shared.forOperation({ calls: 100, bytes: 1000 })
    await operation.json({ path: '/x' })
    await operation.json({ path: '/x' })
    await expect(operation.json({ path: '/x' })).rejects.toMatchObject({
      statusCode: 502,
      message: expect.stringContaining('answered more than 1000 bytes for this one request'),
    })
  })

  it('defaults to MAX_PROVIDER_CALLS_PER_OPERATION calls and OPERATION_BODY_CAPS body caps', async () => {
    let sent = 0
    const transport = {
      settings: SETTINGS,
      fetch: async () => {
        sent++
        return { status: 200, headers: {}, body: Buffer.alloc(1024, 0x20) }
      },
    } as unknown as ProviderTransport
    const operation = new ProviderClient({
      ...client('https://api.example.com').options,
      transport,
    }).forOperation()
    for (let i = 0; i < OPERATION_BODY_CAPS; i++) await operation.send({ path: '/x' })
    await expect(operation.send({ path: '/x' })).rejects.toMatchObject({ statusCode: 502 })
    expect(sent).toBe(OPERATION_BODY_CAPS + 1)
  })
})

describe('ProviderClient, pace', () => {
  it('paces every attempt, retries too, and tells the pacer of each answer before the next attempt waits', async () => {
    const events: string[] = []
    let sent = 0
    const transport = {
      settings: SETTINGS,
      fetch: async () => {
        events.push(`sent ${++sent}`)
        return sent < 3
          ? { status: 429, headers: {}, body: Buffer.from('{"policyName":"SECONDLY"}') }
          : { status: 200, headers: {}, body: Buffer.from('[]') }
      },
    } as unknown as ProviderTransport
    const retrying = new ProviderClient({
      ...client('https://api.example.com').options,
      retry: { on: [429], afterHeaders: [] },
      maxRetries: 3,
      maxRetryWaitMs: 10_000,
      transport,
    })
    let paced = 0
    const pace = async () => {
      const n = ++paced
      events.push(`paced ${n}`)
      return () => events.push(`answered ${n}`)
    }
    expect(await retrying.json({ method: 'POST', path: '/search', idempotent: true, pace })).toEqual([])
    expect(events).toEqual([
      'paced 1',
      'sent 1',
      'answered 1',
      'paced 2',
      'sent 2',
      'answered 2',
      'paced 3',
      'sent 3',
      'answered 3',
    ])
  })

  it('tells the pacer when an attempt fails without an answer', async () => {
    const transport = {
      settings: SETTINGS,
      fetch: async () => {
        throw new ApiError(504, 'the provider did not answer in time')
      },
    } as unknown as ProviderTransport
    const c = new ProviderClient({ ...client('https://api.example.com').options, transport })
    let answered = 0
    const pace = async () => () => {
      answered++
    }
    await expect(c.json({ path: '/search', pace })).rejects.toMatchObject({ statusCode: 504 })
    expect(answered).toBe(1)
  })
})

describe('ProviderClient with jsonAnswersOnly (verification)', () => {
  it('refuses a 2xx answer that is not a JSON object or array with a 502, and takes one that is', async () => {
    let next: { body: string; type: string } = { body: '', type: '' }
    const transport = {
      fetch: async () => ({
        status: 200,
        headers: { 'content-type': next.type },
        body: Buffer.from(next.body),
      }),
    } as unknown as ProviderTransport
    const strict = new ProviderClient({
      ...client('https://api.example.com').options,
      transport,
      jsonAnswersOnly: true,
    })
    for (const answer of [
      { body: '<html>intranet wiki</html>', type: 'text/html' },
      { body: 'null', type: 'application/json' },
      { body: '', type: 'application/json' },
      { body: '"ok"', type: 'application/json' },
    ]) {
      next = answer
      await expect(strict.json({ path: '/me' }), answer.body).rejects.toMatchObject({ status: 502 })
    }
    next = { body: '{"id":1}', type: 'application/json' }
    expect(await strict.json({ path: '/me' })).toEqual({ id: 1 })
  })
})

describe('ProviderClient.forOperation, time', () => {
  it('starts no provider call past the earlier of its deadlines, answering 504 naming the setting', async () => {
    let sent = 0
    const transportWith = (operationDeadlineMs: number) =>
      ({
        settings: { ...SETTINGS, operationDeadlineMs },
        fetch: async () => {
          sent++
          return { status: 200, headers: {}, body: Buffer.from('[]') }
        },
      }) as unknown as ProviderTransport
    const clientWith = (operationDeadlineMs: number) =>
      new ProviderClient({
        ...client('https://api.example.com').options,
        transport: transportWith(operationDeadlineMs),
      })
    const check = (at: number) => ({ at, setting: 'UNIGATE_WEBHOOK_CHECK_DEADLINE_MS', ms: 1_800_000 })

    // A webhook check's deadline, passed before the request's own.
    await expect(
      clientWith(600_000)
        .forOperation({ until: check(Date.now() - 1) })
        .json({ path: '/x' }),
    ).rejects.toMatchObject({
      statusCode: 504,
      message:
        'this request has been reading from the provider for 1800 s, the most Unigate allows one (UNIGATE_WEBHOOK_CHECK_DEADLINE_MS); nothing more was asked',
    })
    // The request's own deadline (UNIGATE_OPERATION_DEADLINE_MS), passed before the check's.
    await expect(
      clientWith(0)
        .forOperation({ until: check(Date.now() + 60_000) })
        .json({ path: '/x' }),
    ).rejects.toMatchObject({
      statusCode: 504,
      message: expect.stringContaining('(UNIGATE_OPERATION_DEADLINE_MS)'),
    })
    expect(sent).toBe(0)
    expect(
      await clientWith(600_000)
        .forOperation({ until: check(Date.now() + 60_000) })
        .json({ path: '/x' }),
    ).toEqual([])
    expect(sent).toBe(1)
  })
})

describe('ProviderClient.forOperation, waiting for a slot', () => {
  it("waits for its connection's or workspace's slot no longer than the operation may last: a 504", async () => {
    const transport = new ProviderTransport({
      allowAddresses: ['loopback'],
      timeoutMs: 2_000,
      maxBodyBytes: 4096,
      answerDeadlineMs: 60_000,
      operationDeadlineMs: 600_000,
      connectionConcurrency: 8,
      connectionQueue: 8,
      workspaceConcurrency: 1,
      workspaceQueue: 8,
      heapShedPercent: 75,
    })
    // The workspace's one slot, held by another of its calls (a relay to a slow reader, say).
    const held = await transport.workspaceLimiter.acquire('ws_1')
    const operation = new ProviderClient({
      ...client('http://127.0.0.1:9').options,
      transport,
      limitKey: 'cn_1',
      workspaceKey: 'ws_1',
    }).forOperation({ until: { at: Date.now() + 100, setting: 'UNIGATE_OPERATION_DEADLINE_MS', ms: 100 } })
    await expect(operation.json({ path: '/x' })).rejects.toMatchObject({
      statusCode: 504,
      message: expect.stringContaining('(UNIGATE_OPERATION_DEADLINE_MS); nothing more was asked'),
    })
    // It left both queues, and its connection's slot is free again.
    expect(transport.workspaceLimiter.load('ws_1')).toEqual({ active: 1, waiting: 0 })
    expect(transport.limiter.load('cn_1')).toEqual({ active: 0, waiting: 0 })
    held()
    await transport.close()
  })
})

describe('redactSecrets', () => {
  const token = 'ya29.a0/Af+h y=='
  it('cuts a secret out as it is, after its auth scheme, and as a URL or a form encoded it', () => {
    const echoed = [
      `token ${token}`,
      `header Bearer ${token}`,
      `url ${encodeURIComponent(token)}`,
      `form refresh_token=${new URLSearchParams({ t: token }).toString().slice(2)}`,
    ].join('; ')
    const out = redactSecrets(echoed, [`Bearer ${token}`])
    expect(out).toBe('token [redacted]; header [redacted]; url [redacted]; form refresh_token=[redacted]')
  })

  it('leaves short values and absent ones alone', () => {
    expect(redactSecrets('the key abc is wrong', ['abc', undefined])).toBe('the key abc is wrong')
  })
})

describe('providerMessageOf', () => {
  it('says an error answer nested too deep to write out is so, instead of overflowing the stack', () => {
    const deep = JSON.parse(`{"errors":${'['.repeat(20_000)}${']'.repeat(20_000)}}`)
    expect(providerMessageOf(deep)).toBe('an answer nested too deep to quote')
    expect(providerMessageOf({ errors: [[1]] })).toBe('{"errors":[[1]]}')
  })

  it('adds the items of an errors list to a summary message, each with its field, unless it says them already', () => {
    const greenhouse = {
      message: 'Validation error',
      errors: [{ message: 'Must be true or false', field: 'prospect' }, { message: 'Too long' }, { code: 1 }],
    }
    expect(providerMessageOf(greenhouse)).toBe('Validation error (prospect: Must be true or false; Too long)')
    expect(providerMessageOf({ message: 'Bad: Too long', errors: [{ message: 'Too long' }] })).toBe(
      'Bad: Too long',
    )
    expect(providerMessageOf({ message: 'Bad', errors: [{ code: 1 }] })).toBe('Bad')
    expect(providerMessageOf({ message: 'Bad', errors: 'x' })).toBe('Bad')
    // Cut at the message's length, however many items the list holds.
    const many = { message: 'Bad', errors: Array.from({ length: 100_000 }, (_, i) => ({ message: `e${i}` })) }
    expect(providerMessageOf(many, 20)).toBe('Bad (e0; e1; e2; e3;')
  })
})
