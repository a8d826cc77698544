import { describe, expect, it } from 'vitest'
import { DEFAULT_UMAMI_API_KEY, startUmamiEmulator } from './index.js'

describe('Umami emulator', () => {
  it('seeds the same data from the same seed, of the size asked', async () => {
    const [a, b] = await Promise.all([
      startUmamiEmulator({ seed: 9, sessions: 30 }),
      startUmamiEmulator({ seed: 9, sessions: 30 }),
    ])
    try {
      expect([...a.state.websites.keys()]).toEqual([...b.state.websites.keys()])
      expect(a.state.events.map((e) => e.id)).toEqual(b.state.events.map((e) => e.id))
      const first = [...a.state.websites.keys()][0]
      expect([...a.state.sessions.values()].filter((s) => s.websiteId === first)).toHaveLength(30)
    } finally {
      await Promise.all([a.close(), b.close()])
    }
  })

  it('rejects what Umami rejects: the wrong auth scheme per host, missing time range, unknown metric type', async () => {
    const emu = await startUmamiEmulator({})
    try {
      const site = [...emu.state.websites.keys()][0]
      const get = async (path: string, headers: Record<string, string>) => {
        const res = await fetch(`${emu.url}${path}`, { headers })
        return { status: res.status, body: (await res.json()) as Record<string, unknown> }
      }
      const cloud = { 'x-umami-api-key': DEFAULT_UMAMI_API_KEY }
      const bearer = { authorization: `Bearer ${DEFAULT_UMAMI_API_KEY}` }
      expect((await get('/v1/websites', bearer)).status).toBe(401)
      expect((await get('/api/websites', cloud)).status).toBe(401)
      expect((await get('/v1/users', cloud)).status).toBe(403)
      const noRange = await get(`/v1/websites/${site}/events`, cloud)
      expect(noRange).toEqual({
        status: 400,
        body: { error: { code: 'bad-request', message: 'startAt: Required', status: 400 } },
      })
      expect((await get(`/v1/websites/${site}/metrics?startAt=0&endAt=1&type=url`, cloud)).status).toBe(400)
      const send = await fetch(`${emu.url}/api/send`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'user-agent': 'Googlebot/2.1' },
        body: JSON.stringify({ type: 'event', payload: { website: site, url: '/' } }),
      })
      expect(await send.json()).toEqual({ beep: 'boop' })
    } finally {
      await emu.close()
    }
  })
})
