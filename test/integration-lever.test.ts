import { afterEach, describe, expect, it } from 'vitest'
import { DEFAULT_LEVER_API_KEY, type LeverEmulator, startLeverEmulator } from '../emulators/lever/index.js'
import type { Harness } from './support/harness.js'
import {
  createConnection,
  expectSupportMatrixAnswers,
  supportMatrixOf,
  useEmulatorSuite,
} from './support/integration-suite.js'
import {
  expectRawSlowField,
  listSlowFieldCase,
  setSlowFieldsOptIn,
  slowFieldCases,
} from './support/slow-fields.js'

type Rec = Record<string, unknown>

describe('Lever through Unigate', () => {
  let h: Harness
  let emu: LeverEmulator
  let conn: string
  const path = (id?: string) => `/ats/${conn}/application${id === undefined ? '' : `/${id}`}`
  const calls = (pattern: RegExp) => emu.requests().filter((r) => pattern.test(r.path))
  const listCalls = () => calls(/^\/v1\/opportunities$/)
  const offerCalls = () => calls(/^\/v1\/opportunities\/[^/]+\/offers$/)
  const ordered = () => emu.state.ordered()
  const hiredReason = () => emu.state.archiveReasons.find((r) => r.type === 'hired')?.id

  useEmulatorSuite({
    // 300 contacts: more than 300 opportunities, so windows past 100 walk several pages.
    start: () => startLeverEmulator({ seed: 6, contacts: 300, ratePerSecond: 1000, burst: 1000 }),
    ready: async (harness, emulator) => {
      h = harness
      emu = emulator
      conn = await createConnection(h, {
        integration_type: 'lever',
        auth: { api_key: DEFAULT_LEVER_API_KEY, api_url: `${emu.url}/v1` },
      })
    },
  })
  afterEach(() => setSlowFieldsOptIn(h, false))

  it('lists opportunities as applications, newest first, with applications expanded and stages read once', async () => {
    const res = await h.api<Rec[]>('GET', path(), { query: { limit: 5 } })
    expect(res.status).toBe(200)
    expect(res.body.map((a) => a.id)).toEqual(
      ordered()
        .slice(0, 5)
        .map((o) => o.id),
    )
    const first = ordered()[0]
    expect(res.body[0]).toMatchObject({
      candidate_id: first?.contact,
      user_id: first?.owner,
      created_at: new Date(first?.createdAt as number).toISOString(),
      updated_at: new Date(first?.updatedAt as number).toISOString(),
      original_status: emu.state.stageText(first?.stage as string),
    })
    const withPosting = res.body.findIndex((_, i) => (ordered()[i]?.applications.length ?? 0) === 1)
    if (withPosting >= 0)
      expect(res.body[withPosting]?.job_id).toBe(ordered()[withPosting]?.applications[0]?.posting)
    expect(listCalls()).toHaveLength(1)
    expect(listCalls()[0]?.query).toMatchObject({ limit: '5', expand: 'applications' })
    expect(listCalls()[0]?.headers.authorization).toBe(
      `Basic ${Buffer.from(`${DEFAULT_LEVER_API_KEY}:`).toString('base64')}`,
    )
    expect(calls(/^\/v1\/stages$/)).toHaveLength(1)
    expect(offerCalls()).toHaveLength(0)
  })

  it('maps archive reasons to HIRED and REJECTED with their times', async () => {
    const res = await h.api<Rec[]>('GET', path(), { query: { limit: 1000 } })
    const hired = ordered().filter((o) => o.archived?.reason === hiredReason())
    expect(hired.length).toBeGreaterThan(0)
    const byId = new Map(res.body.map((a) => [a.id, a]))
    for (const o of hired) {
      expect(byId.get(o.id)).toMatchObject({
        status: 'HIRED',
        hired_at: new Date(o.archived?.archivedAt as number).toISOString(),
      })
    }
    const rejected = res.body.filter((a) => a.status === 'REJECTED')
    expect(rejected.length).toBeGreaterThan(0)
    for (const a of rejected) expect(typeof a.rejected_reason).toBe('string')
  })

  it('pages by offset tokens: the next window costs one call, far windows walk from the nearest token', async () => {
    const ids = ordered().map((o) => o.id)
    const page = async (offset: number, limit: number) => {
      // A filter of its own, so no token another test left for the plain list is reused.
      const res = await h.api<Rec[]>('GET', path(), {
        query: { offset, limit, fields: 'id', updated_gte: '2000-01-01' },
      })
      expect(res.status, res.text).toBe(200)
      return res.body.map((a) => a.id)
    }
    expect(await page(0, 50)).toEqual(ids.slice(0, 50))
    emu.clearRequests()
    expect(await page(50, 50)).toEqual(ids.slice(50, 100))
    expect(listCalls()).toHaveLength(1)
    expect(listCalls()[0]?.query.offset).toMatch(/^%5B1%2C/)
    emu.clearRequests()
    expect(await page(250, 30)).toEqual(ids.slice(250, 280))
    // From the token at 100: 100 rows to 200, 50 to 250, then the window.
    expect(listCalls().map((r) => r.query.limit)).toEqual(['100', '50', '30'])
  })

  it('gets one opportunity; an unknown id is 404', async () => {
    const id = ordered()[2]?.id as string
    const got = await h.api<Rec>('GET', path(id))
    expect(got.status).toBe(200)
    expect(got.body.id).toBe(id)
    expect(calls(/^\/v1\/opportunities\/[^/]+$/)[0]?.query).toMatchObject({ expand: 'applications' })
    expect((await h.api('GET', path('00000000-0000-4000-8000-000000000000'))).status).toBe(404)
  })

  describe('offers, a slow field (spec section 7)', () => {
    const firstWithOffer = () => ordered().findIndex((o) => (emu.state.offers.get(o.id) ?? []).length > 0)

    const offersOf = { field: 'offers', clearRequests: () => emu.clearRequests(), fieldCalls: offerCalls }

    it.each(slowFieldCases('offers'))(
      'opt-in $optIn, fields=$fields: offers fetched = $fetched',
      async (c) => {
        const offset = firstWithOffer()
        expect(offset).toBeGreaterThanOrEqual(0)
        // One offers call per opportunity of the page.
        const body = await listSlowFieldCase(h, c, {
          ...offersOf,
          path: path(),
          query: { offset, limit: 3 },
          callsWhenFetched: 3,
        })
        if (c.fetched) {
          const offers = emu.state.offers.get(ordered()[offset]?.id as string) ?? []
          const got = (body[0]?.offers ?? []) as Rec[]
          expect(got.map((o) => o.id)).toEqual(offers.map((o) => o.id))
          expect(got[0]?.creator_user_id).toBe(offers[0]?.creator)
        }
      },
    )

    it('raw.offers carries Lever’s own offers; raw alone makes no offer call', async () => {
      const id = ordered()[firstWithOffer()]?.id as string
      const rawOffers = (await expectRawSlowField(h, path(id), offersOf)) as Rec[]
      expect((rawOffers[0] as Rec).fields).toBeDefined()
    })
  })

  it('adds a raw expand to expand=applications instead of replacing it, on lists and reads', async () => {
    // `expand` is repeatable at Lever; `raw` is "added to the provider request" (spec 4.1). A raw expand that
    // replaced applications left every job_id empty without a word.
    const i = ordered().findIndex((o) => o.applications.length === 1)
    expect(i).toBeGreaterThanOrEqual(0)
    const o = ordered()[i]
    emu.clearRequests()
    const list = await h.api<Rec[]>('GET', path(), { query: { limit: i + 1, raw: 'expand=stage' } })
    expect(list.status).toBe(200)
    expect(list.body[i]?.job_id).toBe(o?.applications[0]?.posting)
    expect(listCalls()[0]?.query.expand).toEqual(['applications', 'stage'])
    const one = await h.api<Rec>('GET', path(o?.id), { query: { raw: 'expand=stage' } })
    expect(one.status).toBe(200)
    expect(one.body.job_id).toBe(o?.applications[0]?.posting)
    const refused = await h.api<Rec>('GET', path(), { query: { raw: 'confidentiality=non-confidential' } })
    expect(refused.status).toBe(400)
    expect(String(refused.body.message)).toContain('confidentiality')
  })

  it('lists confidential opportunities too: Lever leaves them out unless asked for all', async () => {
    const confidential = ordered().filter((o) => o.confidentiality === 'confidential')
    expect(confidential.length).toBeGreaterThan(0)
    const posting = confidential[0]?.applications[0]?.posting as string
    const res = await h.api<Rec[]>('GET', path(), { query: { job_id: posting, limit: 1000 } })
    expect(res.body.map((a) => a.id)).toEqual(
      ordered()
        .filter((o) => o.applications.some((a) => a.posting === posting))
        .map((o) => o.id),
    )
    expect(listCalls()[0]?.query.confidentiality).toBe('all')
  })

  it('filters by posting, contact, updated_gte and status at Lever', async () => {
    const posting = emu.state.postings[0] as string
    const byJob = await h.api<Rec[]>('GET', path(), { query: { job_id: posting, limit: 1000 } })
    expect(byJob.body.map((a) => a.id)).toEqual(
      ordered()
        .filter((o) => o.applications.some((a) => a.posting === posting))
        .map((o) => o.id),
    )
    expect(listCalls().map((r) => [r.query.posting_id, r.query.archived_posting_id])).toEqual([
      [posting, undefined],
      [undefined, posting],
    ])
    emu.clearRequests()
    const contact = ordered()[0]?.contact as string
    const mine = await h.api<Rec[]>('GET', path(), { query: { candidate_id: contact } })
    expect(mine.body.map((a) => a.id)).toEqual(
      ordered()
        .filter((o) => o.contact === contact)
        .map((o) => o.id),
    )
    expect(listCalls()[0]?.query.contact_id).toBe(contact)
    emu.clearRequests()
    const since = '2024-05-20T00:00:00.000Z'
    const recent = await h.api<Rec[]>('GET', path(), { query: { updated_gte: since, limit: 1000 } })
    expect(recent.body.map((a) => a.id)).toEqual(
      ordered()
        .filter((o) => o.updatedAt >= Date.parse(since))
        .map((o) => o.id),
    )
    expect(listCalls()[0]?.query.updated_at_start).toBe(String(Date.parse(since)))
    emu.clearRequests()
    const hired = await h.api<Rec[]>('GET', path(), { query: { status: 'HIRED', limit: 1000 } })
    expect(hired.body.length).toBeGreaterThan(0)
    expect(hired.body.every((a) => a.status === 'HIRED')).toBe(true)
    expect(listCalls()[0]?.query.archive_reason_id).toBe(hiredReason())
    emu.clearRequests()
    const screening = await h.api<Rec[]>('GET', path(), { query: { status: 'SCREENING', limit: 1000 } })
    const screenStages = emu.state.stages.filter((s) => /screen/i.test(s.text)).map((s) => s.id)
    expect(screening.body.map((a) => a.id)).toEqual(
      ordered()
        .filter((o) => o.archived === null && screenStages.includes(o.stage))
        .map((o) => o.id),
    )
    expect(listCalls()[0]?.query).toMatchObject({ stage_id: screenStages[0], archived: 'false' })
    emu.clearRequests()
    // No stage of this account means THIRD_INTERVIEW: an empty list, without listing.
    const none = await h.api<Rec[]>('GET', path(), { query: { status: 'THIRD_INTERVIEW' } })
    expect(none.body).toEqual([])
    expect(listCalls()).toHaveLength(0)
  })

  it('a job’s applications include its hired and rejected ones, from archived_posting_id, each once', async () => {
    const posting = emu.state.postings[1] as string
    const applied = ordered().filter((o) => o.applications.some((a) => a.posting === posting))
    const archived = applied.filter((o) => o.archived !== null)
    expect(archived.length).toBeGreaterThan(2)
    const window = async (offset: number, limit: number) => {
      const res = await h.api<Rec[]>('GET', path(), {
        query: { job_id: posting, offset, limit, fields: 'id,status' },
      })
      expect(res.status, res.text).toBe(200)
      return res.body
    }
    // Lever's posting_id as the emulator answers by default: the archived ones only under archived_posting_id.
    const all = await window(0, 1000)
    expect(all.map((a) => a.id)).toEqual(applied.map((o) => o.id))
    expect(all.filter((a) => a.status === 'HIRED' || a.status === 'REJECTED')).toHaveLength(archived.length)
    // Windows of the merged list join up; the next window resumes both lists from remembered positions.
    const pages: Rec[] = []
    for (let offset = 0; offset < applied.length + 7; offset += 7) {
      emu.clearRequests()
      pages.push(...(await window(offset, 7)))
      expect(listCalls().length).toBeLessThanOrEqual(2)
    }
    expect(pages.map((a) => a.id)).toEqual(applied.map((o) => o.id))
    // Had Lever's posting_id kept the archived ones too, the lists overlap: still each opportunity once.
    emu.state.postingFilterKeepsArchived = true
    try {
      emu.clearRequests()
      const overlapping = await h.api<Rec[]>('GET', path(), {
        query: { job_id: posting, limit: 1000, fields: 'id' },
      })
      expect(overlapping.body.map((a) => a.id)).toEqual(applied.map((o) => o.id))
      expect(listCalls()).toHaveLength(2)
      const small: Rec[] = []
      for (let offset = 0; offset < applied.length; offset += 5) {
        const res = await h.api<Rec[]>('GET', path(), {
          query: { job_id: posting, offset, limit: 5, fields: 'id', updated_gte: '2000-01-01' },
        })
        small.push(...res.body)
      }
      expect(small.map((a) => a.id)).toEqual(applied.map((o) => o.id))
    } finally {
      emu.state.postingFilterKeepsArchived = false
    }
  })

  it('an opportunity archived with a deactivated reason is still REJECTED, and status=REJECTED finds it', async () => {
    // Lever lists inactive reasons too (https://hire.lever.co/developer/documentation#list-all-archive-reasons).
    const inactive = emu.state.archiveReasons.find((r) => r.status === 'inactive')
    expect(inactive?.type).toBe('non-hired')
    const target = ordered().find((o) => o.archived === null && o.confidentiality === 'non-confidential')
    if (!target || !inactive) throw new Error('seed has no active opportunity')
    target.archived = { archivedAt: target.updatedAt, reason: inactive.id }
    try {
      const one = await h.api<Rec>('GET', path(target.id))
      expect(one.body).toMatchObject({
        status: 'REJECTED',
        rejected_reason: 'Position filled',
        rejected_at: new Date(target.updatedAt).toISOString(),
      })
      emu.clearRequests()
      const rejected = await h.api<Rec[]>('GET', path(), {
        query: { status: 'REJECTED', limit: 1000, fields: 'id' },
      })
      expect(rejected.body.map((a) => a.id)).toContain(target.id)
      expect(listCalls()[0]?.query.archive_reason_id).toContain(inactive.id)
    } finally {
      target.archived = null
    }
  })

  it('answers 400 naming bad input and 501 for what Lever cannot do, before listing', async () => {
    const cases: [Record<string, string>, number, string][] = [
      [{ status: 'PENDING' }, 400, 'status'],
      [{ limit: '1001' }, 400, 'limit'],
      [{ updated_gte: 'soon' }, 400, 'updated_gte'],
      [{ fields: 'id,nope' }, 400, 'nope'],
      [{ company_id: 'x' }, 501, 'company_id'],
      [{ query: 'ada' }, 501, 'query'],
    ]
    for (const [query, status, named] of cases) {
      const res = await h.api<Rec>('GET', path(), { query })
      expect([query, res.status]).toEqual([query, status])
      expect(String(res.body.message)).toContain(named)
    }
    expect(listCalls()).toHaveLength(0)
    const matrix = await supportMatrixOf(h, 'lever')
    const id = ordered()[0]?.id as string
    await expectSupportMatrixAnswers(h, `/ats/${conn}`, matrix, { id: () => id, body: () => ({}) })
  })

  it('retries a 429 with backoff, then passes a persistent one on', async () => {
    emu.fault({ status: 429, times: 1, pathPattern: '^/v1/opportunities$' })
    expect((await h.api('GET', path(), { query: { limit: 2 } })).status).toBe(200)
    expect(listCalls()).toHaveLength(2)
    emu.clearRequests()
    emu.fault({ status: 429, times: 5, pathPattern: '^/v1/opportunities$' })
    const limited = await h.api<Rec>('GET', path(), { query: { limit: 2 } })
    expect(limited.status).toBe(429)
    expect(String(limited.body.message)).toContain('rate limiting')
    emu.clearFaults()
  })

  it('takes an OAuth access token instead of a key, sent as a bearer', async () => {
    emu.state.accessTokens.add('lever_access_token_1')
    const c = await createConnection(h, {
      integration_type: 'lever',
      auth: { access_token: 'lever_access_token_1', api_url: `${emu.url}/v1` },
    })
    emu.clearRequests()
    const res = await h.api<Rec[]>('GET', `/ats/${c}/application`, { query: { limit: 2 } })
    expect(res.status).toBe(200)
    expect(res.body).toHaveLength(2)
    expect(listCalls()[0]?.headers.authorization).toBe('Bearer lever_access_token_1')
  })

  it('sends end users to Lever to authorize with the API as audience and read scopes', async () => {
    await h.api('PATCH', '/unified/workspace', { body: { allowed_redirect_origins: ['http://localhost'] } })
    const app = await h.api('PUT', '/unified/workspace/oauth_app/lever', {
      body: { client_id: 'lever-app', client_secret: 'lever-app-secret' },
    })
    expect(app.status, app.text).toBe(200)
    const res = await h.api('GET', `/unified/integration/auth/${h.workspaceId}/lever`, {
      key: null,
      query: { success_redirect: 'http://localhost/ok', failure_redirect: 'http://localhost/failed' },
    })
    expect(res.status, res.text).toBe(200)
    const url = new URL(res.text)
    expect(url.origin + url.pathname).toBe('https://auth.lever.co/authorize')
    const p = Object.fromEntries(url.searchParams)
    expect(p).toMatchObject({
      response_type: 'code',
      client_id: 'lever-app',
      audience: 'https://api.lever.co/v1/',
    })
    expect(p.scope?.split(' ')).toEqual(
      expect.arrayContaining([
        'offline_access',
        'opportunities:read:admin',
        'offers:read:admin',
        'stages:read:admin',
        'confidential:access:admin',
        'webhooks:read:admin',
        'webhooks:write:admin',
      ]),
    )
    await h.api('DELETE', '/unified/workspace/oauth_app/lever')
  })

  it('a key Lever no longer accepts is a 403 asking to re-authorize', async () => {
    emu.state.keys.add('soon_revoked')
    const c = await createConnection(h, {
      integration_type: 'lever',
      auth: { api_key: 'soon_revoked', api_url: `${emu.url}/v1` },
    })
    emu.state.keys.delete('soon_revoked')
    const res = await h.api<Rec>('GET', `/ats/${c}/application`)
    expect(res.status).toBe(403)
    expect(String(res.body.message)).toContain('re-authorize')
    expect((await h.api<Rec>('GET', `/unified/connection/${c}`)).body.last_unhealthy_code).toBe('401')
  })
})
