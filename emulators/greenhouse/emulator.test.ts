import { describe, expect, it } from 'vitest'
import {
  DEFAULT_GREENHOUSE_CLIENT_ID,
  DEFAULT_GREENHOUSE_CLIENT_SECRET,
  type GreenhouseEmulator,
  startGreenhouseEmulator,
} from './index.js'

const basic = (id: string, secret: string) => `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`

async function tokenFrom(
  emu: GreenhouseEmulator,
  id = DEFAULT_GREENHOUSE_CLIENT_ID,
  secret = DEFAULT_GREENHOUSE_CLIENT_SECRET,
  form = 'grant_type=client_credentials',
): Promise<Response> {
  return fetch(`${emu.url}/token`, {
    method: 'POST',
    headers: { authorization: basic(id, secret), 'content-type': 'application/x-www-form-urlencoded' },
    body: form,
  })
}

async function bearer(emu: GreenhouseEmulator, id?: string, secret?: string): Promise<string> {
  const res = await tokenFrom(emu, id, secret)
  expect(res.status).toBe(200)
  return ((await res.json()) as { access_token: string }).access_token
}

describe('Greenhouse emulator (Harvest v3)', () => {
  it('seeds the same organization from the same seed', async () => {
    const [a, b] = await Promise.all([
      startGreenhouseEmulator({ seed: 3, candidates: 12 }),
      startGreenhouseEmulator({ seed: 3, candidates: 12 }),
    ])
    try {
      const ids = a.state.orderedApplications().map((x) => x.id)
      expect(ids).toEqual(b.state.orderedApplications().map((x) => x.id))
      expect(ids.length).toBeGreaterThanOrEqual(12)
    } finally {
      await Promise.all([a.close(), b.close()])
    }
  })

  it('issues tokens for client credentials only, and refuses a bad client, grant or sub', async () => {
    const emu = await startGreenhouseEmulator({ candidates: 2 })
    try {
      const ok = await tokenFrom(emu, undefined, undefined, 'grant_type=client_credentials&sub=92120')
      expect(ok.status).toBe(200)
      const body = (await ok.json()) as Record<string, unknown>
      expect(body).toEqual({ access_token: expect.any(String), token_type: 'Bearer', expires_in: 3600 })
      const wrong = await tokenFrom(emu, DEFAULT_GREENHOUSE_CLIENT_ID, 'not-the-secret')
      expect([wrong.status, await wrong.json()]).toEqual([401, { error: 'invalid_client' }])
      expect((await tokenFrom(emu, 'nobody', 'x')).status).toBe(401)
      const grant = await tokenFrom(emu, undefined, undefined, 'grant_type=password')
      expect([grant.status, await grant.json()]).toEqual([400, { error: 'unsupported_grant_type' }])
      expect(
        (await tokenFrom(emu, undefined, undefined, 'grant_type=client_credentials&sub=me')).status,
      ).toBe(400)
    } finally {
      await emu.close()
    }
  })

  it('takes bearer tokens, pages by cursor with next links only, and validates parameters', async () => {
    const emu = await startGreenhouseEmulator({ candidates: 10 })
    try {
      const token = await bearer(emu)
      const get = (path: string, auth = `Bearer ${token}`) =>
        fetch(path.startsWith('http') ? path : `${emu.url}/v3${path}`, { headers: { authorization: auth } })
      expect((await fetch(`${emu.url}/v3/applications`)).status).toBe(401)
      expect((await get('/applications', 'Bearer forged')).status).toBe(401)
      // v1 is gone.
      expect((await get(`${emu.url}/v1/applications`)).status).toBe(404)
      const first = await get('/applications?per_page=3')
      expect(first.status).toBe(200)
      const link = first.headers.get('link') ?? ''
      expect(link).toMatch(/^<[^>]*\/v3\/applications\?cursor=[^>&]+>; rel="next"$/)
      const rows = (await first.json()) as Record<string, unknown>[]
      const ordered = emu.state.orderedApplications()
      expect(rows.map((r) => r.id)).toEqual(ordered.slice(0, 3).map((a) => a.id))
      expect(rows[0]?.created_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/)
      expect(rows[0]).toHaveProperty('updated_at')
      expect(rows[0]).not.toHaveProperty('applied_at')
      expect(rows[0]).toHaveProperty('stage_name')
      expect(['in_process', 'rejected', 'hired']).toContain(rows[0]?.status)
      const next = (/<([^>]+)>/.exec(link) as RegExpExecArray)[1] as string
      const second = await get(next)
      expect(((await second.json()) as { id: number }[]).map((r) => r.id)).toEqual(
        ordered.slice(3, 6).map((a) => a.id),
      )
      // The cursor must be the only parameter; there is no page parameter.
      expect((await get(`${next}&per_page=50`)).status).toBe(422)
      expect((await get('/applications?page=2')).status).toBe(422)
      const tooBig = await get('/applications?per_page=501')
      expect(tooBig.status).toBe(422)
      expect(await tooBig.json()).toMatchObject({ errors: [{ field: 'per_page' }] })
      expect((await get('/applications?updated_at=yesterday')).status).toBe(422)
      expect((await get('/applications?job_ids=x')).status).toBe(422)
      const tooMany = Array.from({ length: 51 }, (_, i) => i + 1).join(',')
      expect((await get(`/applications?ids=${tooMany}`)).status).toBe(422)
      // The status filter has its own enumeration: `active` (in process), not the record's `in_process`.
      expect((await get('/applications?status=in_process')).status).toBe(422)
      const active = (await (await get('/applications?status=active&per_page=500')).json()) as {
        status: string
      }[]
      expect(active.length).toBeGreaterThan(0)
      expect(active.every((a) => a.status === 'in_process')).toBe(true)
      // An application's stage entry id is not the stage definition's; terminal applications have neither.
      const staged = active.find((a) => (a as Record<string, unknown>).stage_id !== null) as Record<
        string,
        unknown
      >
      expect(staged.stage_id).not.toBe(staged.job_interview_stage_id)
      const rejected = (await (await get('/applications?status=rejected&per_page=500')).json()) as Record<
        string,
        unknown
      >[]
      expect(rejected.every((a) => a.stage_id === null && a.job_interview_stage_id === null)).toBe(true)
      const all = await get('/applications?per_page=500')
      expect(all.headers.get('link')).toBeNull()
    } finally {
      await emu.close()
    }
  })

  it('filters by ids, parents and updated_at ranges; lists offers by application', async () => {
    const emu = await startGreenhouseEmulator({ candidates: 40 })
    try {
      const token = await bearer(emu)
      const get = async (path: string) =>
        (await (
          await fetch(`${emu.url}/v3${path}`, { headers: { authorization: `Bearer ${token}` } })
        ).json()) as Record<string, unknown>[]
      const ordered = emu.state.orderedApplications()
      const a = ordered[5]
      expect((await get(`/applications?ids=${a?.id}`)).map((r) => r.id)).toEqual([a?.id])
      expect(
        (await get(`/applications?candidate_ids=${a?.candidateId}&per_page=500`)).map((r) => r.id),
      ).toEqual(ordered.filter((x) => x.candidateId === a?.candidateId).map((x) => x.id))
      const since = ordered[10]?.updatedAt as number
      const until = since + 30 * 86_400_000
      const ranged = await get(
        `/applications?per_page=500&updated_at=gte|${new Date(since).toISOString()}|lt|${new Date(until).toISOString()}`,
      )
      expect(ranged.map((r) => r.id)).toEqual(
        ordered.filter((x) => x.updatedAt >= since && x.updatedAt < until).map((x) => x.id),
      )
      const withOffers = ordered.filter((x) => (emu.state.offers.get(x.id) ?? []).length > 0).slice(0, 2)
      const offers = await get(`/offers?application_ids=${withOffers.map((x) => x.id).join(',')}`)
      expect(offers.map((o) => o.id)).toEqual(
        withOffers
          .flatMap((x) => emu.state.offers.get(x.id) ?? [])
          .map((o) => o.id)
          .sort((p, q) => p - q),
      )
      expect(offers[0]).toHaveProperty('sent_on')
      expect(offers[0]).toHaveProperty('starts_on')
      expect(['Created', 'Accepted', 'Deprecated']).toContain(offers[0]?.status)
    } finally {
      await emu.close()
    }
  })

  it('refuses an expired cursor with a 422, as it does a cursor with other parameters', async () => {
    const emu = await startGreenhouseEmulator({ candidates: 12 })
    try {
      const token = await bearer(emu)
      const call = (url: string) => fetch(url, { headers: { authorization: `Bearer ${token}` } })
      const next = (res: Response) =>
        /<([^>]+)>; rel="next"/.exec(res.headers.get('link') ?? '')?.[1] as string
      const first = await call(`${emu.url}/v3/applications?per_page=2`)
      const second = await call(next(first))
      expect(second.status).toBe(200)
      const third = next(second)
      // Time passes (or Greenhouse drops the cursors it issued): the next link no longer works.
      emu.state.expireCursors()
      const expired = await call(third)
      expect(expired.status).toBe(422)
      const body = (await expired.json()) as { errors: { field: string; message: string }[] }
      expect(body.errors[0]).toMatchObject({ field: 'cursor' })
      expect(body.errors[0]?.message).toMatch(/expired/)
      // Starting the listing again gives fresh cursors.
      const again = await call(`${emu.url}/v3/applications?per_page=2`)
      expect((await call(next(again))).status).toBe(200)
    } finally {
      await emu.close()
    }
  })

  it('applies the documented application filters it models, and refuses any parameter it does not model', async () => {
    const emu = await startGreenhouseEmulator({ candidates: 40 })
    try {
      const token = await bearer(emu)
      const call = (path: string) =>
        fetch(`${emu.url}/v3${path}`, { headers: { authorization: `Bearer ${token}` } })
      const ids = async (path: string) =>
        ((await (await call(path)).json()) as { id: number }[]).map((r) => r.id)
      const ordered = emu.state.orderedApplications()
      expect(await ids('/applications?per_page=500&prospect=true')).toEqual(
        ordered.filter((a) => a.prospect).map((a) => a.id),
      )
      expect(await ids('/applications?per_page=500&prospect=false')).toEqual(
        ordered.filter((a) => !a.prospect).map((a) => a.id),
      )
      expect((await call('/applications?prospect=yes')).status).toBe(422)
      const rows = (await (await call('/applications?per_page=500')).json()) as Record<string, unknown>[]
      const staged = rows.filter((r) => r.stage_id !== null).slice(0, 2)
      expect(staged).toHaveLength(2)
      expect(
        await ids(`/applications?per_page=500&stage_ids=${staged.map((r) => r.stage_id).join(',')}`),
      ).toEqual(staged.map((r) => r.id))
      const named = rows.find((r) => typeof r.stage_name === 'string')
      expect(
        await ids(`/applications?per_page=500&stage_name=${encodeURIComponent(String(named?.stage_name))}`),
      ).toEqual(rows.filter((r) => r.stage_name === named?.stage_name).map((r) => r.id))
      const source = rows.find((r) => r.source_id !== null)?.source_id
      expect(await ids(`/applications?per_page=500&source_ids=${source}`)).toEqual(
        rows.filter((r) => r.source_id === source).map((r) => r.id),
      )
      const post = rows.find((r) => r.job_post_id !== null)?.job_post_id
      expect(await ids(`/applications?per_page=500&job_post_ids=${post}`)).toEqual(
        rows.filter((r) => r.job_post_id === post).map((r) => r.id),
      )
      const active = ordered[8]?.lastActivityAt as number
      expect(
        await ids(`/applications?per_page=500&last_activity_at=gte|${new Date(active).toISOString()}`),
      ).toEqual(ordered.filter((a) => a.lastActivityAt >= active).map((a) => a.id))
      // Never silently ignored: a parameter the emulator does not model is refused, naming it.
      for (const path of [
        '/applications?custom_field_option_id=1',
        '/applications?prospekt=true',
        '/offers?current_only=true',
        '/sources?nonsense=1',
      ]) {
        const refused = await call(path)
        expect(refused.status).toBe(422)
        const body = (await refused.json()) as { errors: { field: string }[] }
        expect(body.errors[0]?.field).toBe(path.split('?')[1]?.split('=')[0])
      }
    } finally {
      await emu.close()
    }
  })

  it('lists sources and rejection reasons; built-in reasons only with include_defaults=true', async () => {
    const emu = await startGreenhouseEmulator({ candidates: 5 })
    try {
      const token = await bearer(emu)
      const get = async (path: string) =>
        fetch(`${emu.url}/v3${path}`, { headers: { authorization: `Bearer ${token}` } })
      const sources = (await (await get('/sources?ids=7,16')).json()) as Record<string, unknown>[]
      expect(sources).toEqual([
        { id: 7, name: 'Indeed', type: { id: 3, name: 'Third-party boards' } },
        { id: 16, name: 'LinkedIn (Prospecting)', type: { id: 4, name: 'Prospecting' } },
      ])
      const custom = (await (await get('/rejection_reasons')).json()) as { id: number }[]
      expect(custom.map((r) => r.id)).toEqual([31_002])
      const all = (await (await get('/rejection_reasons?include_defaults=true&ids=8,31002')).json()) as {
        id: number
        type: { key: string }
      }[]
      expect(all.map((r) => r.id)).toEqual([8, 31_002])
      expect(all[0]?.type.key).toBe('WE_REJECTED_THEM')
      expect((await get('/rejection_reasons?include_defaults=yes')).status).toBe(422)
    } finally {
      await emu.close()
    }
  })

  it('refuses routes outside the credential scopes with 403, and rate limits per 30-second window', async () => {
    const emu = await startGreenhouseEmulator({
      candidates: 5,
      rateLimit: 3,
      clients: {
        apps_only: { secret: 's1', scopes: ['harvest:applications:list'] },
        [DEFAULT_GREENHOUSE_CLIENT_ID]: {
          secret: DEFAULT_GREENHOUSE_CLIENT_SECRET,
          scopes: ['harvest:applications:list'],
        },
      },
    })
    try {
      const scoped = { authorization: `Bearer ${await bearer(emu, 'apps_only', 's1')}` }
      expect((await fetch(`${emu.url}/v3/applications`, { headers: scoped })).status).toBe(200)
      expect((await fetch(`${emu.url}/v3/offers`, { headers: scoped })).status).toBe(403)
      const auth = { authorization: `Bearer ${await bearer(emu)}` }
      const statuses: number[] = []
      let limited: Response | undefined
      for (let i = 0; i < 6; i++) {
        const res = await fetch(`${emu.url}/v3/applications?per_page=1`, { headers: auth })
        statuses.push(res.status)
        if (res.status === 429) limited = res
      }
      expect(statuses).toContain(429)
      expect(limited?.headers.get('x-ratelimit-remaining')).toBe('0')
      expect(Number(limited?.headers.get('retry-after'))).toBeGreaterThanOrEqual(1)
    } finally {
      await emu.close()
    }
  })
})
