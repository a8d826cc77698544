import { request } from 'undici'
import { describe, expect, it } from 'vitest'
import { DEFAULT_GREENHOUSE_API_KEY, startGreenhouseEmulator } from './index.js'

const basic = (key: string) => `Basic ${Buffer.from(`${key}:`).toString('base64')}`

describe('Greenhouse emulator', () => {
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

  it('takes Basic auth with the key as username, pages with Link headers and validates per_page', async () => {
    const emu = await startGreenhouseEmulator({ candidates: 10 })
    try {
      const get = (path: string, key = DEFAULT_GREENHOUSE_API_KEY) =>
        fetch(`${emu.url}/v1${path}`, { headers: { authorization: basic(key) } })
      expect((await fetch(`${emu.url}/v1/applications`)).status).toBe(401)
      expect((await get('/applications', 'wrong')).status).toBe(401)
      const first = await get('/applications?per_page=3')
      expect(first.status).toBe(200)
      expect(first.headers.get('x-ratelimit-limit')).toBe('50')
      const link = first.headers.get('link') ?? ''
      expect(link).toMatch(/<[^>]*page=2[^>]*>; rel="next"/)
      expect(link).toMatch(/rel="last"/)
      const rows = (await first.json()) as { id: number; applied_at: string; rejected_at: unknown }[]
      expect(rows.map((r) => r.id)).toEqual(
        emu.state
          .orderedApplications()
          .slice(0, 3)
          .map((a) => a.id),
      )
      expect(rows[0]?.applied_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/)
      expect('rejected_at' in (rows[0] ?? {})).toBe(true)
      const skipCount = await get('/applications?per_page=3&skip_count=true')
      expect(skipCount.headers.get('link')).not.toMatch(/rel="last"/)
      const tooBig = await get('/applications?per_page=501')
      expect(tooBig.status).toBe(422)
      expect(await tooBig.json()).toMatchObject({
        message: 'Validation error',
        errors: [{ field: 'per_page' }],
      })
      expect((await get('/applications?created_after=yesterday')).status).toBe(422)
      expect(await (await get('/applications?status=pending')).json()).toEqual([])
      expect((await get('/applications/abc')).status).toBe(404)
      const all = await get('/applications?per_page=500')
      expect(all.headers.get('link')).toBeNull()
    } finally {
      await emu.close()
    }
  })

  it('refuses endpoints a key lacks with 401, a GET with a body with 403, and rate limits per 10 seconds', async () => {
    const emu = await startGreenhouseEmulator({
      candidates: 5,
      rateLimit: 3,
      scopedKeys: { list_only: ['applications.list'] },
    })
    try {
      const id = emu.state.orderedApplications()[0]?.id
      const scoped = { authorization: basic('list_only') }
      expect((await fetch(`${emu.url}/v1/applications`, { headers: scoped })).status).toBe(200)
      expect((await fetch(`${emu.url}/v1/applications/${id}/offers`, { headers: scoped })).status).toBe(401)
      const withBody = await request(`${emu.url}/v1/applications`, {
        method: 'GET',
        headers: { authorization: basic(DEFAULT_GREENHOUSE_API_KEY), 'content-type': 'application/json' },
        body: '{}',
      })
      await withBody.body.dump()
      expect(withBody.statusCode).toBe(403)
      const auth = { authorization: basic(DEFAULT_GREENHOUSE_API_KEY) }
      const statuses: number[] = []
      let limited: Response | undefined
      for (let i = 0; i < 6; i++) {
        const res = await fetch(`${emu.url}/v1/applications?per_page=1`, { headers: auth })
        statuses.push(res.status)
        if (res.status === 429) limited = res
      }
      expect(statuses).toContain(429)
      expect(limited?.headers.get('x-ratelimit-remaining')).toBe('0')
      expect(Number(limited?.headers.get('retry-after'))).toBeGreaterThanOrEqual(1)
      expect(Number(limited?.headers.get('x-ratelimit-reset'))).toBeGreaterThan(Date.now() / 1000 - 1)
    } finally {
      await emu.close()
    }
  })
})
