import { afterEach, describe, expect, it } from 'vitest'
import {
  DEFAULT_GREENHOUSE_CLIENT_ID,
  DEFAULT_GREENHOUSE_CLIENT_SECRET,
  type GreenhouseEmulator,
  SCOPES,
  startGreenhouseEmulator,
} from '../emulators/greenhouse/index.js'
import type { Harness } from './support/harness.js'
import {
  createConnection,
  expectSupportMatrixAnswers,
  supportMatrixOf,
  useEmulatorSuite,
} from './support/integration-suite.js'
import { startLocalServer } from './support/local-server.js'
import {
  expectRawSlowField,
  listSlowFieldCase,
  setSlowFieldsOptIn,
  slowFieldCases,
} from './support/slow-fields.js'
import { startWebhookReceiver } from './support/webhook-receiver.js'

type Rec = Record<string, unknown>

describe('Greenhouse through Unigate', () => {
  let h: Harness
  let emu: GreenhouseEmulator
  let conn: string
  const path = (id?: string) => `/ats/${conn}/application${id === undefined ? '' : `/${id}`}`
  const calls = (pattern: RegExp) => emu.requests().filter((r) => pattern.test(r.path))
  const listCalls = () => calls(/^\/v3\/applications$/)
  const offerCalls = () => calls(/^\/v3\/offers$/)
  const tokenCalls = () => calls(/^\/token$/)
  const ordered = () => emu.state.orderedApplications()
  const clientAuth = (id: string, secret: string, extra: Record<string, string> = {}) => ({
    client_id: id,
    client_secret: secret,
    api_url: `${emu.url}/v3`,
    token_url: `${emu.url}/token`,
    ...extra,
  })

  useEmulatorSuite({
    // 400 candidates: more than 500 applications, so a list of 1000 spans pages of 500.
    start: () => startGreenhouseEmulator({ seed: 4, candidates: 400, rateLimit: 1000 }),
    ready: async (harness, emulator) => {
      h = harness
      emu = emulator
      conn = await createConnection(h, {
        integration_type: 'greenhouse',
        auth: clientAuth(DEFAULT_GREENHOUSE_CLIENT_ID, DEFAULT_GREENHOUSE_CLIENT_SECRET),
      })
    },
  })
  afterEach(() => setSlowFieldsOptIn(h, false))

  it('lists applications in Greenhouse order with a client-credentials bearer token, fetched once', async () => {
    const res = await h.api<Rec[]>('GET', path(), { query: { limit: 5 } })
    expect(res.status).toBe(200)
    expect(res.body.map((a) => a.id)).toEqual(
      ordered()
        .slice(0, 5)
        .map((a) => String(a.id)),
    )
    const first = ordered()[0]
    expect(res.body[0]).toMatchObject({
      id: String(first?.id),
      candidate_id: String(first?.candidateId),
      applied_at: new Date(first?.createdAt as number).toISOString(),
      created_at: new Date(first?.createdAt as number).toISOString(),
      updated_at: new Date(first?.updatedAt as number).toISOString(),
      original_status: first?.status,
    })
    expect(res.body.every((a) => !('offers' in a) && !('raw' in a))).toBe(true)
    // An application in process takes its unified status from its stage's name.
    const reviewing = ordered().find(
      (a) => a.status === 'in_process' && a.currentStage?.name === 'Application Review',
    )
    const one = await h.api<Rec>('GET', path(String(reviewing?.id)))
    expect(one.body).toMatchObject({ status: 'REVIEWING', original_substatus: 'Application Review' })
    emu.clearRequests()
    await h.api('GET', path(), { query: { limit: 5 } })
    expect(listCalls()).toHaveLength(1)
    expect(listCalls()[0]?.query).toEqual({ per_page: '5' })
    const bearer = String(listCalls()[0]?.headers.authorization)
    expect(bearer).toMatch(/^Bearer \S+$/)
    expect(emu.state.tokens.has(bearer.slice('Bearer '.length))).toBe(true)
    // The token was cached: a second list asks the token endpoint nothing.
    emu.clearRequests()
    expect((await h.api('GET', path(), { query: { limit: 2 } })).status).toBe(200)
    expect(tokenCalls()).toHaveLength(0)
    expect(listCalls()[0]?.headers.authorization).toBe(bearer)
  })

  it('asks the token endpoint as Greenhouse documents: Basic client, client_credentials grant, sub', async () => {
    const c = await createConnection(h, {
      integration_type: 'greenhouse',
      auth: clientAuth(DEFAULT_GREENHOUSE_CLIENT_ID, DEFAULT_GREENHOUSE_CLIENT_SECRET, { user_id: '92120' }),
    })
    const token = tokenCalls().at(-1)
    expect(token?.method).toBe('POST')
    expect(token?.headers.authorization).toBe(
      `Basic ${Buffer.from(`${DEFAULT_GREENHOUSE_CLIENT_ID}:${DEFAULT_GREENHOUSE_CLIENT_SECRET}`).toString('base64')}`,
    )
    expect(String(token?.headers['content-type'])).toContain('application/x-www-form-urlencoded')
    expect(token?.body).toEqual({
      grant_type: 'client_credentials',
      sub: '92120',
    })
    // The secret never comes back.
    const shown = await h.api<Rec>('GET', `/unified/connection/${c}`)
    expect(JSON.stringify(shown.body)).not.toContain(DEFAULT_GREENHOUSE_CLIENT_SECRET)
  })

  it('refuses a connection whose client credentials Greenhouse refuses', async () => {
    const res = await h.api<Rec>('POST', '/unified/connection', {
      body: {
        integration_type: 'greenhouse',
        permissions: ['ats_application_read'],
        auth: clientAuth(DEFAULT_GREENHOUSE_CLIENT_ID, 'not-the-secret'),
      },
    })
    expect(res.status).toBe(400)
    expect(String(res.body.message)).toContain('invalid_client')
    expect(res.text).not.toContain('not-the-secret')
    expect(listCalls()).toHaveLength(0)
  })

  it('fetches a new token when Greenhouse refuses the cached one (401), and retries once', async () => {
    expect((await h.api('GET', path(), { query: { limit: 1 } })).status).toBe(200)
    const used = String(listCalls().at(-1)?.headers.authorization).slice('Bearer '.length)
    // Greenhouse forgets the token before its expiry (revoked, rotated).
    emu.state.tokens.delete(used)
    emu.clearRequests()
    const res = await h.api<Rec[]>('GET', path(), { query: { limit: 1 } })
    expect(res.status).toBe(200)
    expect(listCalls().map((r) => r.headers.authorization)).toEqual([
      `Bearer ${used}`,
      expect.not.stringContaining(used),
    ])
    expect(tokenCalls()).toHaveLength(1)
  })

  it('pages: one call for a first window, cursors past it, the cursor URL called alone', async () => {
    const ids = ordered().map((a) => String(a.id))
    const page = async (offset: number, limit: number) => {
      const res = await h.api<Rec[]>('GET', path(), { query: { offset, limit, fields: 'id' } })
      expect(res.status, res.text).toBe(200)
      return res.body.map((a) => a.id)
    }
    expect(ids.length).toBeGreaterThan(500)
    expect(await page(0, 1000)).toEqual(ids.slice(0, 1000))
    // per_page on the first request only, then Greenhouse's own next link with the cursor alone.
    expect(listCalls().map((r) => r.query)).toEqual([{ per_page: '500' }, { cursor: expect.any(String) }])
    emu.clearRequests()
    // The window after it starts from the remembered cursor: one call, no walk from the start.
    expect(await page(1000, 10)).toEqual(ids.slice(1000, 1010))
    expect(listCalls().map((r) => Object.keys(r.query))).toEqual([['cursor']])
    emu.clearRequests()
    expect(await page(10, 25)).toEqual(ids.slice(10, 35))
    expect(await page(ids.length - 2, 10)).toEqual(ids.slice(-2))
    expect(await page(ids.length + 5, 10)).toEqual([])
  })

  describe('a next link given as a relative reference (Greenhouse gives absolute ones)', () => {
    /**
     * Relays every request to the emulator as it came, answering with the emulator's answer, its `Link` target
     * rewritten by `rewrite` (given the absolute link's path and query): a stand-in for a server that
     * answers relative references, which RFC 8288 section 3.2 allows, resolved against the request's address.
     */
    async function relayRewritingLinks(rewrite: (pathAndQuery: string) => string) {
      return startLocalServer((req, res) => {
        void (async () => {
          const answer = await fetch(`${emu.url}${req.url}`, {
            headers: { authorization: String(req.headers.authorization ?? '') },
          })
          const link = answer.headers.get('link')
          const headers: Record<string, string> = {
            'content-type': answer.headers.get('content-type') ?? 'application/json',
          }
          if (link) {
            headers.link = link.replace(/<([^>]*)>/, (_m, target: string) => {
              const url = new URL(target)
              return `<${rewrite(url.pathname + url.search)}>`
            })
          }
          res.writeHead(answer.status, headers)
          res.end(Buffer.from(await answer.arrayBuffer()))
        })()
      })
    }

    const listThrough = async (relay: { url: string }) => {
      const c = await createConnection(h, {
        integration_type: 'greenhouse',
        auth: {
          ...clientAuth(DEFAULT_GREENHOUSE_CLIENT_ID, DEFAULT_GREENHOUSE_CLIENT_SECRET),
          api_url: `${relay.url}/v3`,
        },
      })
      emu.clearRequests()
      return h.api<Rec[]>('GET', `/ats/${c}/application`, { query: { limit: 600, fields: 'id' } })
    }

    it('is resolved against the address of the request it answered, and that address is what is sent', async () => {
      const ids = ordered().map((a) => String(a.id))
      // An absolute path, a relative path, a query alone, and references with dot segments (RFC 3986 section
      // 5.4 resolves them, as the URL parser does in an absolute link): each names /v3/applications?cursor=...
      for (const rewrite of [
        (p: string) => p,
        (p: string) => p.replace('/v3/', ''),
        (p: string) => p.slice(p.indexOf('?')),
        (p: string) => p.replace('/v3/', '/v3/offers/../'),
        (p: string) => p.replace('/v3/', '../v3/'),
      ]) {
        const relay = await relayRewritingLinks(rewrite)
        try {
          const res = await listThrough(relay)
          const sample = rewrite('/v3/applications?cursor=C')
          expect(res.status, `${sample}: ${res.text}`).toBe(200)
          expect(
            res.body.map((a) => a.id),
            sample,
          ).toEqual(ids.slice(0, 600))
          expect(
            listCalls().map((r) => r.query),
            sample,
          ).toEqual([{ per_page: '500' }, { cursor: expect.any(String) }])
          expect(
            emu
              .requests()
              .filter((r) => r.path !== '/token')
              .map((r) => r.path),
            sample,
          ).toEqual(['/v3/applications', '/v3/applications'])
        } finally {
          await relay.close()
        }
      }
    })

    it('naming another host (a network-path reference) is a 502 naming both origins, and is not followed', async () => {
      const relay = await relayRewritingLinks((p) => `//other.example${p}`)
      try {
        const res = await listThrough(relay)
        expect(res.status).toBe(502)
        expect(String((res.body as unknown as Rec).message)).toContain('http://other.example')
        expect(String((res.body as unknown as Rec).message)).toContain(relay.url)
        expect(listCalls().map((r) => r.query)).toEqual([{ per_page: '500' }])
      } finally {
        await relay.close()
      }
    })
  })

  it('a connection moved to another address follows no cursor of the old one: its token goes only to the new', async () => {
    const moved = await createConnection(h, {
      integration_type: 'greenhouse',
      auth: clientAuth(DEFAULT_GREENHOUSE_CLIENT_ID, DEFAULT_GREENHOUSE_CLIENT_SECRET),
    })
    const list = (offset: number, limit: number) =>
      h.api<Rec[]>('GET', `/ats/${moved}/application`, { query: { offset, limit, fields: 'id' } })
    // Reading past the first page leaves a cursor at 500: Greenhouse's next link, on this emulator.
    expect((await list(0, 501)).status).toBe(200)
    const other = await startGreenhouseEmulator({ seed: 4, candidates: 400, rateLimit: 1000 })
    try {
      const patched = await h.api('PATCH', `/unified/connection/${moved}`, {
        body: {
          auth: {
            ...clientAuth(DEFAULT_GREENHOUSE_CLIENT_ID, DEFAULT_GREENHOUSE_CLIENT_SECRET),
            api_url: `${other.url}/v3`,
            token_url: `${other.url}/token`,
          },
        },
      })
      expect(patched.status, patched.text).toBe(200)
      emu.clearRequests()
      other.clearRequests()
      const res = await list(500, 5)
      expect(res.status, res.text).toBe(200)
      expect(res.body.map((a) => a.id)).toEqual(
        other.state
          .orderedApplications()
          .slice(500, 505)
          .map((a) => String(a.id)),
      )
      // Nothing reached the old address; the new one was walked from its own first page.
      expect(emu.requests()).toEqual([])
      const walked = other.requests().filter((r) => r.path === '/v3/applications')
      expect(walked.map((r) => r.query)).toEqual([{ per_page: '500' }, { cursor: expect.any(String) }])
    } finally {
      await other.close()
    }
  })

  it('gets one application through the ids filter; ids round-trip; an unknown or malformed id is 404', async () => {
    const id = String(ordered()[3]?.id)
    const got = await h.api<Rec>('GET', path(id))
    expect(got.status).toBe(200)
    expect(got.body.id).toBe(id)
    expect(listCalls().at(-1)?.query).toEqual({ ids: id })
    expect((await h.api('GET', path('999'))).status).toBe(404)
    emu.clearRequests()
    const bad = await h.api<Rec>('GET', path('abc'))
    expect(bad.status).toBe(404)
    expect(String(bad.body.message)).toContain('whole numbers')
    expect(emu.requests()).toHaveLength(0)
  })

  it('selects fields, raw and raw.<name> without extra calls', async () => {
    const only = await h.api<Rec[]>('GET', path(), { query: { limit: 3, fields: 'id,status,job_id' } })
    for (const a of only.body)
      expect(Object.keys(a).every((k) => ['id', 'status', 'job_id'].includes(k))).toBe(true)
    const raw = await h.api<Rec[]>('GET', path(), { query: { limit: 2, fields: 'id,raw' } })
    expect((raw.body[0]?.raw as Rec | undefined)?.stage_id).toBeDefined()
    const named = await h.api<Rec[]>('GET', path(), { query: { limit: 2, fields: 'raw.prospect' } })
    expect(named.body[0]).toEqual({ raw: { prospect: expect.any(Boolean) } })
    expect(offerCalls()).toHaveLength(0)
  })

  describe('source and rejected_reason: names from /v3/sources and /v3/rejection_reasons', () => {
    const sourceCalls = () => calls(/^\/v3\/sources$/)
    const reasonCalls = () => calls(/^\/v3\/rejection_reasons$/)

    it('fills them with the names, built-in rejection reasons included, one lookup call per page', async () => {
      const apps = ordered().slice(0, 300)
      const builtIn = apps.find((a) => a.rejectionReason?.builtIn)
      const custom = apps.find((a) => a.rejectionReason && !a.rejectionReason.builtIn)
      expect(builtIn && custom).toBeTruthy()
      emu.clearRequests()
      const res = await h.api<Rec[]>('GET', path(), { query: { limit: 300 } })
      expect(res.status, res.text).toBe(200)
      res.body.forEach((got, i) => {
        const app = apps[i]
        expect(got.source).toBe(app?.source?.name)
        expect(got.rejected_reason).toBe(app?.rejectionReason?.name)
      })
      const byId = new Map(res.body.map((a) => [a.id, a]))
      expect(byId.get(String(builtIn?.id))?.rejected_reason).toBe(builtIn?.rejectionReason?.name)
      expect(byId.get(String(custom?.id))?.rejected_reason).toBe(custom?.rejectionReason?.name)
      // Once for the page: the distinct ids, and Greenhouse's own reasons asked for too.
      const ids = (xs: (number | undefined)[]) =>
        [...new Set(xs.filter((x): x is number => x !== undefined))].sort((a, b) => a - b).join(',')
      expect(sourceCalls().map((r) => r.query)).toEqual([
        { ids: ids(apps.map((a) => a.source?.id)), per_page: '500' },
      ])
      expect(reasonCalls().map((r) => r.query)).toEqual([
        {
          ids: ids(apps.map((a) => a.rejectionReason?.id)),
          include_defaults: 'true',
          per_page: '500',
        },
      ])
      // One application: the same names.
      const one = await h.api<Rec>('GET', path(String(builtIn?.id)))
      expect(one.body).toMatchObject({ rejected_reason: builtIn?.rejectionReason?.name })
    })

    it('asks nothing more when the fields asked for leave them out', async () => {
      emu.clearRequests()
      const res = await h.api<Rec[]>('GET', path(), { query: { limit: 50, fields: 'id,status' } })
      expect(res.status).toBe(200)
      expect(sourceCalls()).toHaveLength(0)
      expect(reasonCalls()).toHaveLength(0)
      emu.clearRequests()
      await h.api<Rec[]>('GET', path(), { query: { limit: 50, fields: 'id,source' } })
      expect(sourceCalls()).toHaveLength(1)
      expect(reasonCalls()).toHaveLength(0)
    })

    it('a credential without harvest:sources:list is a 403 naming the scope, not a list without sources', async () => {
      emu.state.clients.set('no_sources', {
        secret: 'no-sources',
        scopes: new Set(['harvest:applications:list', 'harvest:rejection_reasons:list']),
      })
      const c = await createConnection(h, {
        integration_type: 'greenhouse',
        auth: clientAuth('no_sources', 'no-sources'),
      })
      const res = await h.api<Rec>('GET', `/ats/${c}/application`, { query: { limit: 20 } })
      expect(res.status).toBe(403)
      expect(String(res.body.message)).toContain('harvest:sources:list')
      const without = await h.api<Rec[]>('GET', `/ats/${c}/application`, {
        query: { limit: 20, fields: 'id,status,rejected_reason' },
      })
      expect(without.status).toBe(200)
    })
  })

  describe('offers, a slow field (spec section 7)', () => {
    // Applications 0..N in list order, some of which have offers in the emulator.
    const withOffer = () => ordered().findIndex((a) => (emu.state.offers.get(a.id) ?? []).length > 0)

    const offersOf = { field: 'offers', clearRequests: () => emu.clearRequests(), fieldCalls: offerCalls }

    it.each(slowFieldCases('offers'))(
      'opt-in $optIn, fields=$fields: offers fetched = $fetched',
      async (c) => {
        const offset = withOffer()
        expect(offset).toBeGreaterThanOrEqual(0)
        // One call to /v3/offers for the whole page of applications, and only when the table says so.
        const body = await listSlowFieldCase(h, c, {
          ...offersOf,
          path: path(),
          query: { offset, limit: 4 },
          callsWhenFetched: 1,
        })
        if (c.fetched) {
          expect(offerCalls()[0]?.query).toEqual({
            application_ids: ordered()
              .slice(offset, offset + 4)
              .map((a) => a.id)
              .join(','),
            per_page: '500',
          })
          const app = ordered()[offset]
          const offers = emu.state.offers.get(app?.id as number) ?? []
          const got = (body[0]?.offers ?? []) as Rec[]
          expect(got.map((o) => o.id)).toEqual(offers.map((o) => String(o.id)))
          expect(got.at(-1)).toMatchObject({ status: expect.stringMatching(/SENT|ACCEPTED/) })
          for (const a of body.slice(1)) {
            const mine = emu.state.offers.get(Number(a.id)) ?? []
            expect(((a.offers ?? []) as Rec[]).map((o) => o.id)).toEqual(mine.map((o) => String(o.id)))
          }
        }
      },
    )

    it('raw.offers asks Greenhouse for the offers as it has them; raw alone does not', async () => {
      const id = String(ordered()[withOffer()]?.id)
      const rawOffers = (await expectRawSlowField(h, path(id), offersOf)) as Rec[]
      expect(rawOffers[0]).toHaveProperty('application_id', Number(id))
    })
  })

  it('filters by job, candidate, status and updated_gte with v3 filters at Greenhouse', async () => {
    const job = String(ordered()[0]?.jobs[0]?.id)
    const byJob = await h.api<Rec[]>('GET', path(), { query: { job_id: job, limit: 1000 } })
    // v3's job_ids reads job_id: a prospect's jobs are prospective_job_ids.
    expect(byJob.body.map((a) => a.id)).toEqual(
      ordered()
        .filter((a) => !a.prospect && a.jobs.some((j) => String(j.id) === job))
        .map((a) => String(a.id)),
    )
    expect(listCalls()[0]?.query.job_ids).toBe(job)
    emu.clearRequests()
    const hired = await h.api<Rec[]>('GET', path(), { query: { status: 'HIRED', limit: 1000 } })
    expect(hired.body.length).toBeGreaterThan(0)
    expect(hired.body.every((a) => a.status === 'HIRED')).toBe(true)
    expect(listCalls()[0]?.query.status).toBe('hired')
    emu.clearRequests()
    const since = '2024-05-20T00:00:00.000Z'
    const recent = await h.api<Rec[]>('GET', path(), { query: { updated_gte: since, limit: 1000 } })
    expect(recent.body.map((a) => a.id)).toEqual(
      ordered()
        .filter((a) => a.updatedAt >= Date.parse(since))
        .map((a) => String(a.id)),
    )
    expect(listCalls()[0]?.query.updated_at).toBe(`gte|${since}`)
    emu.clearRequests()
    const candidate = [...emu.state.candidates.values()].find((c) => c.applicationIds.length === 2)
    const mine = await h.api<Rec[]>('GET', path(), { query: { candidate_id: String(candidate?.id) } })
    expect(mine.body.map((a) => a.id)).toEqual(candidate?.applicationIds.map(String))
    expect(listCalls()[0]?.query.candidate_ids).toBe(String(candidate?.id))
    const nobody = await h.api<Rec[]>('GET', path(), { query: { candidate_id: '1' } })
    expect([nobody.status, nobody.body]).toEqual([200, []])
    const second = await h.api<Rec[]>('GET', path(), {
      query: { candidate_id: String(candidate?.id), offset: 1 },
    })
    expect(second.body.map((a) => a.id)).toEqual(candidate?.applicationIds.slice(1).map(String))
  })

  it('adds a raw Greenhouse filter to the list request beside the unified ones, never dropping it', async () => {
    // `raw` is "added to the provider request" (spec 4.1): a v3 filter the unified model has no name for,
    // such as status=active or several job_ids, must reach Greenhouse and narrow the list.
    const active = await h.api<Rec[]>('GET', path(), {
      query: { raw: 'status=active', limit: 1000, fields: 'id,original_status' },
    })
    expect(active.status).toBe(200)
    expect(active.body.map((a) => a.id)).toEqual(
      ordered()
        .filter((a) => a.status === 'in_process')
        .map((a) => String(a.id)),
    )
    expect(listCalls()[0]?.query.status).toBe('active')
    emu.clearRequests()
    const jobs = [...new Set(ordered().flatMap((a) => (a.prospect ? [] : [a.jobs[0]?.id])))].slice(0, 2)
    const both = await h.api<Rec[]>('GET', path(), {
      query: { raw: `job_ids=${jobs.join(',')}`, status: 'REJECTED', limit: 1000, fields: 'id' },
    })
    expect(both.body.map((a) => a.id)).toEqual(
      ordered()
        .filter((a) => !a.prospect && a.status === 'rejected' && a.jobs.some((j) => jobs.includes(j.id)))
        .map((a) => String(a.id)),
    )
    expect(listCalls()[0]?.query).toMatchObject({ job_ids: jobs.join(','), status: 'rejected' })
  })

  it('passes a raw v3 filter the unified model lacks on to Greenhouse, which applies it (prospect)', async () => {
    const prospects = await h.api<Rec[]>('GET', path(), {
      query: { raw: 'prospect=true', limit: 1000, fields: 'id' },
    })
    expect(prospects.status).toBe(200)
    expect(prospects.body.map((a) => a.id)).toEqual(
      ordered()
        .filter((a) => a.prospect)
        .map((a) => String(a.id)),
    )
    expect(prospects.body.length).toBeLessThan(ordered().length)
    // A filter Greenhouse documents that the emulator does not model is refused, never silently ignored,
    // and arrives as a 400 naming Greenhouse's reason.
    const unmodelled = await h.api<Rec>('GET', path(), { query: { raw: 'custom_field_option_id=7' } })
    expect(unmodelled.status).toBe(400)
    expect(String(unmodelled.body.message)).toContain('Greenhouse rejected list ats_application')
    // Greenhouse's 422 names the field and the reason in its `errors` list, under a bare "Validation error".
    const invalid = await h.api<Rec>('GET', path(), { query: { raw: 'prospect=maybe' } })
    expect(invalid.status).toBe(400)
    expect(String(invalid.body.message)).toContain('Validation error (prospect: Must be true or false)')
  })

  it('starts the listing again when Greenhouse no longer takes a cursor Unigate kept, and answers the page', async () => {
    const ids = ordered().map((a) => String(a.id))
    const pageAt = (offset: number) =>
      h.api<Rec[]>('GET', path(), { query: { offset, limit: 10, fields: 'id' } })
    // Reading past the first 500 leaves the cursor of the second page remembered.
    expect((await pageAt(500)).body.map((a) => a.id)).toEqual(ids.slice(500, 510))
    emu.clearRequests()
    // Greenhouse's cursors expire (a 422, airbytehq/airbyte source-greenhouse): the kept one is refused.
    emu.state.expireCursors()
    const res = await pageAt(510)
    expect(res.status).toBe(200)
    expect(res.body.map((a) => a.id)).toEqual(ids.slice(510, 520))
    const sent = listCalls().map((r) => Object.keys(r.query).sort().join(','))
    // The kept cursor, refused; then the first request again and its fresh cursor.
    expect(sent).toEqual(['cursor', 'per_page', 'cursor'])
  })

  it('answers 400 naming bad input, 501 for what Greenhouse cannot do, before calling it', async () => {
    const cases: [Record<string, string>, number, string][] = [
      [{ status: 'SCREENING' }, 400, 'HIRED or REJECTED'],
      [{ status: 'nonsense' }, 400, "'nonsense' is not an application status"],
      [{ job_id: 'abc' }, 400, 'job_id'],
      [{ candidate_id: '1x' }, 400, 'candidate_id'],
      [{ limit: '0' }, 400, 'limit'],
      [{ updated_gte: 'yesterday' }, 400, 'updated_gte'],
      [{ fields: 'id,salary' }, 400, 'salary'],
      [{ company_id: '7' }, 501, 'company_id'],
      [{ sort: 'created_at' }, 501, 'sort'],
    ]
    for (const [query, status, named] of cases) {
      const res = await h.api<Rec>('GET', path(), { query })
      expect([query, res.status]).toEqual([query, status])
      expect(String(res.body.message)).toContain(named)
    }
    expect(emu.requests()).toHaveLength(0)
    const matrix = await supportMatrixOf(h, 'greenhouse')
    const id = String(ordered()[0]?.id)
    await expectSupportMatrixAnswers(h, `/ats/${conn}`, matrix, { id: () => id, body: () => ({}) })
  })

  it('retries a 429 after Retry-After, then passes a persistent one on with retry-after', async () => {
    emu.fault({ status: 429, times: 1, pathPattern: '^/v3/applications$', headers: { 'retry-after': '1' } })
    expect((await h.api('GET', path(), { query: { limit: 2 } })).status).toBe(200)
    expect(listCalls()).toHaveLength(2)
    emu.clearRequests()
    emu.fault({ status: 429, times: 5, pathPattern: '^/v3/applications$', headers: { 'retry-after': '1' } })
    const limited = await h.api<Rec>('GET', path(), { query: { limit: 2 } })
    expect(limited.status).toBe(429)
    expect(limited.headers['retry-after']).toBe('1')
    emu.clearFaults()
  })

  it('delivers a virtual webhook for applications with new activity, read by updated_at', async () => {
    const receiver = await startWebhookReceiver(h.secret)
    try {
      const created = await h.api<Rec>('POST', '/unified/webhook', {
        body: {
          connection_id: conn,
          object_type: 'ats_application',
          event: 'updated',
          hook_url: receiver.url,
          // Checks come from the trigger endpoint only.
          interval: 100_000,
        },
      })
      expect(created.status, created.text).toBe(200)
      const id = created.body.id as string
      const checkedAt = async () => (await h.api<Rec>('GET', `/unified/webhook/${id}`)).body.checked_at
      // The first check only records a baseline; wait until it is committed.
      for (let i = 0; i < 600 && !(await checkedAt()); i++) await new Promise((r) => setTimeout(r, 25))
      expect(await checkedAt()).toBeDefined()
      const moved = ordered()[7]?.id as number
      await new Promise((r) => setTimeout(r, 5))
      emu.state.touch(moved, Date.now())
      emu.clearRequests()
      expect((await h.api('PUT', `/unified/webhook/${id}/trigger`)).status).toBe(200)
      await receiver.waitFor(() => receiver.accepted(id).length === 1, 15_000, 'the update delivery')
      expect(receiver.accepted(id)[0]?.data.map((r) => r.id)).toEqual([String(moved)])
      expect(String(listCalls()[0]?.query.updated_at)).toMatch(/^gte\|/)
      await h.api('DELETE', `/unified/webhook/${id}`)
    } finally {
      await receiver.close()
    }
  })

  // A list of whole pages ends on a full page without `rel="next"` (Greenhouse: "When the Link header is
  // missing or empty, you're on the last page", https://harvestdocs.greenhouse.io/docs/pagination): nothing
  // is asked after it, not even the last page again.
  for (const wholePages of [false, true]) {
    it(`a webhook reading the whole list (include_all) asks Greenhouse for each page of 500 once${wholePages ? ', and nothing past the last of a list of whole pages' : ''}`, async () => {
      // An organization of its own, listing several pages (and no cursor another test left serves this read).
      const big = await startGreenhouseEmulator({ seed: 5, candidates: 1000, rateLimit: 1000 })
      if (wholePages) {
        const apps = big.state.orderedApplications()
        for (const app of apps.slice(apps.length - (apps.length % 500))) big.state.applications.delete(app.id)
      }
      const receiver = await startWebhookReceiver(h.secret)
      try {
        const c = await createConnection(h, {
          integration_type: 'greenhouse',
          auth: {
            ...clientAuth(DEFAULT_GREENHOUSE_CLIENT_ID, DEFAULT_GREENHOUSE_CLIENT_SECRET),
            api_url: `${big.url}/v3`,
            token_url: `${big.url}/token`,
          },
        })
        const ids = big.state.orderedApplications().map((a) => String(a.id))
        expect(ids.length).toBeGreaterThanOrEqual(1000)
        expect(ids.length % 500 === 0).toBe(wholePages)
        big.clearRequests()
        const created = await h.api<Rec>('POST', '/unified/webhook', {
          body: {
            connection_id: c,
            object_type: 'ats_application',
            event: 'created',
            hook_url: receiver.url,
            fields: 'id',
            interval: 100_000,
          },
          query: { include_all: 'true' },
        })
        expect(created.status, created.text).toBe(200)
        const id = created.body.id as string
        const delivered = () => receiver.accepted(id).flatMap((d) => d.data.map((r) => r.id))
        await receiver.waitFor(() => delivered().length === ids.length, 30_000, 'the backfill')
        expect(delivered()).toEqual(ids)
        // The first request, then Greenhouse's next link once for each further page: no page read twice.
        const sent = big
          .requests()
          .filter((r) => r.path === '/v3/applications')
          .map((r) => r.query)
        expect(sent).toEqual([
          { per_page: '500' },
          ...Array(Math.ceil(ids.length / 500) - 1).fill({ cursor: expect.any(String) }),
        ])
        expect(new Set(sent.map((q) => q.cursor)).size).toBe(sent.length)
        await h.api('DELETE', `/unified/webhook/${id}`)
      } finally {
        await receiver.close()
        await big.close()
      }
    })
  }

  it('a credential without the offers scope lists applications but cannot read offers', async () => {
    emu.state.clients.set('apps_only', {
      secret: 'only-apps',
      scopes: new Set([
        'harvest:applications:list',
        'harvest:sources:list',
        'harvest:rejection_reasons:list',
      ]),
    })
    const c = await createConnection(h, {
      integration_type: 'greenhouse',
      auth: clientAuth('apps_only', 'only-apps'),
    })
    expect((await h.api('GET', `/ats/${c}/application`, { query: { limit: 2 } })).status).toBe(200)
    const res = await h.api<Rec>('GET', `/ats/${c}/application`, { query: { limit: 2, fields: 'id,offers' } })
    expect(res.status).toBe(403)
    expect(String(res.body.message)).toContain('harvest:offers:list')
    expect(res.text).not.toContain('only-apps')
  })

  it('client credentials Greenhouse no longer accepts are a 403 asking to re-authorize', async () => {
    emu.state.clients.set('soon_revoked', { secret: 's3cret', scopes: new Set(SCOPES) })
    const c = await createConnection(h, {
      integration_type: 'greenhouse',
      auth: clientAuth('soon_revoked', 's3cret'),
    })
    // The credential is deleted in Greenhouse: its tokens stop working and no new one is issued.
    emu.state.clients.delete('soon_revoked')
    const res = await h.api<Rec>('GET', `/ats/${c}/application`)
    expect(res.status).toBe(403)
    expect(String(res.body.message)).toContain('re-authorize')
    expect(res.text).not.toContain('s3cret')
    const connection = await h.api<Rec>('GET', `/unified/connection/${c}`)
    expect(connection.body.last_unhealthy_code).toBe('401')
  })

  it('answers passthrough as the unified routes when no token can be had, never a 500', async () => {
    emu.state.clients.set('gone_for_passthrough', { secret: 's3cret', scopes: new Set(SCOPES) })
    const c = await createConnection(h, {
      integration_type: 'greenhouse',
      auth: clientAuth('gone_for_passthrough', 's3cret'),
    })
    // Deleted in Greenhouse: a unified call's 401 drops the cached token, and no new one is issued.
    emu.state.clients.delete('gone_for_passthrough')
    for (const [token, { clientId }] of emu.state.tokens)
      if (clientId === 'gone_for_passthrough') emu.state.tokens.delete(token)
    expect((await h.api('GET', `/ats/${c}/application`)).status).toBe(403)
    // Passthrough asks the token endpoint before relaying: its refusal was a 500 there.
    const relayed = await h.api<Rec>('GET', `/passthrough/${c}/applications`)
    expect(relayed.status, relayed.text).toBe(403)
    expect(String(relayed.body.message)).toContain('re-authorize')
    expect(relayed.text).not.toContain('s3cret')
    // An unreachable token endpoint is the provider's failure too: a 502.
    emu.fault({ method: 'POST', pathPattern: '^/token$', status: 503, times: 3 })
    emu.state.clients.set('gone_for_passthrough', { secret: 's3cret', scopes: new Set(SCOPES) })
    const down = await h.api<Rec>('GET', `/passthrough/${c}/applications`)
    expect(down.status, down.text).toBe(502)
    expect(String(down.body.message)).toContain('503')
  })

  it('marks the connection unhealthy when passthrough finds its client refused, as the unified routes do', async () => {
    emu.state.clients.set('refused_in_passthrough', { secret: 's3cret', scopes: new Set(SCOPES) })
    // The connection is verified with a token that expires within the minute, so the next call asks for one.
    emu.state.tokens.set('short-lived', {
      clientId: 'refused_in_passthrough',
      expiresAt: Date.now() + 30_000,
    })
    emu.fault({
      method: 'POST',
      pathPattern: '^/token$',
      status: 200,
      rawBody: JSON.stringify({ access_token: 'short-lived', token_type: 'Bearer', expires_in: 30 }),
    })
    const c = await createConnection(h, {
      integration_type: 'greenhouse',
      auth: clientAuth('refused_in_passthrough', 's3cret'),
    })
    expect((await h.api<Rec>('GET', `/unified/connection/${c}`)).body.last_unhealthy_at).toBeUndefined()
    // The credential is deleted in Greenhouse: no new token is issued for it.
    emu.state.clients.delete('refused_in_passthrough')
    emu.clearRequests()
    const relayed = await h.api<Rec>('GET', `/passthrough/${c}/applications`)
    expect(relayed.status, relayed.text).toBe(403)
    expect(String(relayed.body.message)).toContain('re-authorize')
    expect(relayed.text).not.toContain('s3cret')
    expect(tokenCalls()).toHaveLength(1)
    expect(calls(/^\/v3\//)).toHaveLength(0)
    const shown = await h.api<Rec>('GET', `/unified/connection/${c}`)
    expect(shown.body.last_unhealthy_code).toBe('401')
    expect(Date.parse(String(shown.body.last_unhealthy_at))).toBeGreaterThan(Date.now() - 60_000)
    expect(JSON.stringify(shown.body)).not.toContain('s3cret')
    // The unified routes answer the same refusal the same way.
    const unified = await h.api<Rec>('GET', `/ats/${c}/application`)
    expect(relayed.body.provider_status).toBe(401)
    expect([unified.status, unified.body.provider_status]).toEqual([403, 401])
  })

  it('a PATCH with new client credentials that Greenhouse accepts shows the connection healthy again', async () => {
    emu.state.clients.set('deleted_then_replaced', { secret: 's3cret', scopes: new Set(SCOPES) })
    const c = await createConnection(h, {
      integration_type: 'greenhouse',
      auth: clientAuth('deleted_then_replaced', 's3cret'),
    })
    // The credential is deleted in Greenhouse and its cached token revoked: the connection is marked unhealthy.
    emu.state.clients.delete('deleted_then_replaced')
    for (const [token, grant] of emu.state.tokens)
      if (grant.clientId === 'deleted_then_replaced') emu.state.tokens.delete(token)
    const refused = await h.api<Rec>('GET', `/ats/${c}/application`)
    expect(refused.status, refused.text).toBe(403)
    const unhealthy = await h.api<Rec>('GET', `/unified/connection/${c}`)
    expect(unhealthy.body.last_unhealthy_code).toBe('401')
    const markedAt = String(unhealthy.body.last_unhealthy_at)
    expect(String(unhealthy.body.last_healthy_at) < markedAt).toBe(true)
    // A new credential, verified with Greenhouse by the PATCH itself: no other call is needed to show it works.
    emu.state.clients.set('replacement', { secret: 'n3w-s3cret', scopes: new Set(SCOPES) })
    const patched = await h.api<Rec>('PATCH', `/unified/connection/${c}`, {
      body: { auth: clientAuth('replacement', 'n3w-s3cret') },
    })
    expect(patched.status, patched.text).toBe(200)
    expect(String(patched.body.last_healthy_at) > markedAt).toBe(true)
    const shown = await h.api<Rec>('GET', `/unified/connection/${c}`)
    expect(String(shown.body.last_healthy_at) > String(shown.body.last_unhealthy_at)).toBe(true)
    expect(JSON.stringify(shown.body)).not.toContain('n3w-s3cret')
  })

  it('after Greenhouse refuses the cached token on a passthrough call (401, relayed), the next call gets a new one', async () => {
    emu.state.clients.set('rotated_in_passthrough', { secret: 's3cret', scopes: new Set(SCOPES) })
    const c = await createConnection(h, {
      integration_type: 'greenhouse',
      auth: clientAuth('rotated_in_passthrough', 's3cret'),
    })
    const passthrough = () => h.api<Rec>('GET', `/passthrough/${c}/applications`, { query: { per_page: 1 } })
    expect((await passthrough()).status).toBe(200)
    const used = String(listCalls().at(-1)?.headers.authorization)
    expect(used).toMatch(/^Bearer \S+$/)
    // Greenhouse forgets the token before its expiry (revoked, rotated).
    emu.state.tokens.delete(used.slice('Bearer '.length))
    emu.clearRequests()
    const refused = await passthrough()
    // Relayed as Greenhouse answered it, not retried.
    expect(refused.status, refused.text).toBe(401)
    expect(listCalls().map((r) => r.headers.authorization)).toEqual([used])
    expect(tokenCalls()).toHaveLength(0)
    emu.clearRequests()
    const next = await passthrough()
    expect(next.status, next.text).toBe(200)
    expect(tokenCalls()).toHaveLength(1)
    const renewed = String(listCalls()[0]?.headers.authorization)
    expect(listCalls()).toHaveLength(1)
    expect(renewed).not.toBe(used)
    expect(emu.state.tokens.has(renewed.slice('Bearer '.length))).toBe(true)
    // The new token is kept: the call after asks the token endpoint nothing.
    emu.clearRequests()
    expect((await passthrough()).status).toBe(200)
    expect(tokenCalls()).toHaveLength(0)
    expect(listCalls()[0]?.headers.authorization).toBe(renewed)
  })
})
