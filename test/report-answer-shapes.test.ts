import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type Harness, startHarness } from './support/harness.js'
import { connected, ownProvider } from './support/own-provider.js'

/**
 * A connection's creator may point it at an address of their own (`api_url`), whose answers stay under
 * every bound on size and values and still name far more than the query asked for: 200,000 column names
 * over 20 rows (2 MB) made a PostHog report pair every row with every name (5 s of a held event loop, 450
 * MB), and 200,000 metric names over 1,000 rows (831 KB) made a Plausible report walk every name per row (3
 * s), and with `raw` write the names out once per row (a security review, reproduced). Such answers are the
 * provider's fault, a 502 naming what was answered, before any row is read.
 */
describe("a report answer naming more than its query asked for (a connection's own api_url)", () => {
  let h: Harness
  let posthogAnswer = ''
  let plausibleAnswer = ''
  const posthog = ownProvider((req) => {
    if (req.url?.startsWith('/api/users/@me'))
      return [200, { uuid: 'u', organization: null, team: { id: 1 } }]
    if (req.url?.includes('/query/')) return [200, posthogAnswer]
    return [404, { detail: 'Not found.' }]
  })
  // Plausible's key check is a query without a site (answered 400 "Missing site ID" for a valid key).
  const plausible = ownProvider((req, body) => {
    if (!req.url?.startsWith('/api/v2/query')) return [404, {}]
    if (!body.includes('site_id')) return [400, { error: 'Missing site ID' }]
    return [200, plausibleAnswer]
  })

  beforeAll(async () => {
    h = await startHarness('sqlite')
    await Promise.all([posthog.start(), plausible.start()])
  })
  afterAll(async () => {
    await h?.close()
    await Promise.all([posthog.close(), plausible.close()])
  })

  const connect = (integration_type: string, auth: Record<string, unknown>) =>
    connected(h, integration_type, auth)

  it('is a 502 from PostHog when the answer names other columns than the query selects', async () => {
    const id = await connect('posthog', { token: 'phx_1', meta: { api_url: posthog.url() } })
    const ask = () =>
      h.api<{ message: string } & unknown[]>('GET', `/analytics/${id}/report`, {
        query: {
          dimension: 'PAGE',
          type: 'PAGE_VIEWS',
          limit: '20',
          start_gte: '2026-01-01T00:00:00Z',
          fields: 'id',
        },
      })
    const rows = Array.from({ length: 20 }, (_, i) => [`/p${i}`, i + 1])
    posthogAnswer = JSON.stringify({
      columns: Array.from({ length: 200_000 }, (_, i) => `c${i}`),
      results: rows,
      hasMore: false,
    })
    const refused = await ask()
    expect(refused.status, refused.text.slice(0, 300)).toBe(502)
    expect(refused.body.message).toContain(
      'PostHog answered 200000 columns to a report query selecting 2; not passed on',
    )
    // The page and its count, as the query selects them: read.
    posthogAnswer = JSON.stringify({ columns: ['$pathname', 'count()'], results: rows, hasMore: false })
    const read = await ask()
    expect(read.status, read.text.slice(0, 300)).toBe(200)
    expect(read.body).toHaveLength(20)
  })

  it('is a 502 from Plausible when the answer names other metrics, or more rows, than the query asks', async () => {
    const id = await connect('plausible', { api_key: 'k', meta: { api_url: plausible.url() } })
    const ask = () =>
      h.api<{ message: string } & unknown[]>('GET', `/analytics/${id}/report`, {
        query: { property_id: 'example.com', type: 'USERS', limit: '2', fields: 'id,metrics' },
      })
    const answer = (metrics: string[], rows: unknown[]) =>
      JSON.stringify({
        results: rows,
        meta: {},
        query: { metrics, date_range: ['2026-01-01', '2026-01-31'] },
      })
    const cases: [string, string][] = [
      [
        answer(
          Array.from({ length: 200_000 }, () => 'x'),
          Array.from({ length: 2 }, () => ({ dimensions: [], metrics: [] })),
        ),
        '200000 metrics where 1 were asked',
      ],
      [
        answer(
          ['visitors'],
          Array.from({ length: 3 }, () => ({ dimensions: [], metrics: [1] })),
        ),
        '3 rows where at most 2 were asked',
      ],
      [
        answer(['visitors'], [{ dimensions: [], metrics: Array(100_000).fill(1) }]),
        'a row of other metrics than the 1 asked',
      ],
      [
        answer(['visitors'], [{ dimensions: ['a'], metrics: [1] }]),
        'a row of other dimensions than the 0 asked',
      ],
      [JSON.stringify({ query: { metrics: ['visitors'] } }), 'no results or no metrics'],
      [
        JSON.stringify({
          results: [{ dimensions: [], metrics: [1] }],
          query: { metrics: ['visitors'], dimensions: Array(100_000).fill('x'), date_range: ['a', 'b'] },
        }),
        '100000 dimensions where 0 were asked',
      ],
      [
        JSON.stringify({
          results: [{ dimensions: [], metrics: [1] }],
          query: { metrics: ['visitors'], date_range: ['2026-01-01', 'x'.repeat(100_000)] },
        }),
        'a date_range other than two instants',
      ],
    ]
    for (const [body, what] of cases) {
      plausibleAnswer = body
      const refused = await ask()
      expect(refused.status, refused.text.slice(0, 300)).toBe(502)
      expect(refused.body.message).toContain(
        `Plausible answered the report query with ${what}; not passed on`,
      )
    }
    plausibleAnswer = answer(['visitors'], [{ dimensions: [], metrics: [7] }])
    const read = await ask()
    expect(read.status, read.text.slice(0, 300)).toBe(200)
    expect(read.body).toEqual([{ id: expect.any(String), metrics: [{ type: 'USERS', value: 7 }] }])
  })
})
