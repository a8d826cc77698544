import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { closeSharedEmulators, DEMO_PROVIDERS, type StartedEmulator } from '../demo/providers.js'
import { integrationOf } from '../src/integrations/registry.js'
import { type IntegrationSupport, supportMatrix } from '../src/integrations/support.js'
import { TIME_BUCKET_LABEL_FORMS } from '../src/integrations/time-buckets.js'
import { modelOf } from '../src/models/index.js'
import { createBody, SCOPE_SOURCES } from './support/create-bodies.js'
import { type ApiResponse, type Harness, startHarness } from './support/harness.js'

/**
 * One call, any provider: the same unified calls, with no provider knowledge, checked on every integration
 * of the demo and every object of its support matrix (both generated from the definitions). A new
 * integration is covered by adding it to demo/providers.ts.
 */

type Rec = Record<string, unknown> & { id?: string }

/**
 * Real failures this suite finds that cannot be fixed here (they need work in a provider folder). Each
 * entry must still fail: a check that starts passing fails the suite until its entry is removed.
 */
const KNOWN_FAILURES: readonly {
  integration: string
  object: string
  check: string
  reason: string
}[] = []

const known = (integration: string, object: string, check: string) =>
  KNOWN_FAILURES.find((f) => f.integration === integration && f.object === object && f.check === check)

const PAGES = 'pages are slices of a larger page'
const ANOTHER_PROPERTY = 'created in another property round-trips'

/**
 * A check on listed records fails when the list has fewer records than it needs (an empty list proves
 * nothing), except where the demo cannot give more, for the reason given (`*`: every integration). Each
 * entry must still apply: a list that grows enough fails the suite until its entry is removed.
 */
const FEW_RECORDS: readonly {
  integration: string
  object: string
  check: string
  reason: string
}[] = [
  {
    integration: '*',
    object: 'analytics_report',
    check: PAGES,
    reason: 'a report without a dimension is one total per property: there is no second record to page to',
  },
  {
    integration: 'mixpanel',
    object: 'analytics_property',
    check: PAGES,
    reason: 'a Mixpanel connection is to one project (its auth names it), so its property list is that one',
  },
  {
    integration: 'mixpanel',
    object: 'analytics_property',
    check: ANOTHER_PROPERTY,
    reason: 'a Mixpanel connection is to one project: there is no other property to create a visitor in',
  },
  ...['amplitude', 'matomo', 'mixpanel'].map((integration) => ({
    integration,
    object: 'analytics_report',
    check: 'a breakdown row has the same id on every page',
    reason:
      'a breakdown is one report here, whose metrics carry the countries (Mixpanel: of one event, named by query)',
  })),
  {
    integration: '*',
    object: 'hris_company',
    check: PAGES,
    reason:
      'an HRIS connection is to one company (BambooHR subdomain, Gusto token), so its company list is that one',
  },
  {
    integration: 'youtube',
    object: 'analytics_property',
    check: PAGES,
    reason: "the property list is the authorised user's own channel (channels.list mine=true): one",
  },
]

const fewRecords = (integration: string, object: string, check: string) =>
  FEW_RECORDS.find(
    (f) =>
      (f.integration === integration || f.integration === '*') && f.object === object && f.check === check,
  )

/**
 * Where a listed record shows the value of a list filter, by unified names (never by integration): a filter
 * by the value a record shows must keep that record, and only records showing it.
 */
const FILTER_VALUES: Readonly<
  Record<string, { field: (object: string) => string; values: (shown: unknown) => unknown[] }>
> = {
  group_id: { field: () => 'groups', values: (v) => ((v ?? []) as Rec[]).map((g) => g.id) },
  location_id: { field: () => 'locations', values: (v) => ((v ?? []) as Rec[]).map((l) => l.id) },
  company_id: {
    field: (o) => (o === 'crm_contact' ? 'company_ids' : 'company_id'),
    values: (v) => (Array.isArray(v) ? v : [v]),
  },
  deal_id: { field: () => 'deal_ids', values: (v) => (Array.isArray(v) ? v : []) },
  type: { field: (o) => (o === 'analytics_event' ? 'event_type' : 'type'), values: (v) => [v] },
  ...Object.fromEntries(
    ['user_id', 'candidate_id', 'job_id', 'benefit_id', 'parent_id', 'session_id', 'visitor_id']
      .concat(['status', 'source', 'medium'])
      .map((f) => [f, { field: () => f, values: (v: unknown) => [v] }]),
  ),
}

/**
 * Filters whose value the integration's records do not show, so no listed record can be filtered by its own
 * value. Each entry must still apply: a record that starts showing it fails the suite until it is removed.
 */
const NOT_SHOWN: readonly { integration: string; object: string; filter: string; reason: string }[] = [
  {
    integration: 'pipedrive',
    object: 'crm_contact',
    filter: 'deal_id',
    reason:
      "a Pipedrive person carries no deal ids (GET /api/v2/persons answers none); deal_id asks Pipedrive's deal filter",
  },
  {
    integration: 'plausible',
    object: 'analytics_property',
    filter: 'parent_id',
    reason: "Plausible's site list names no team; a site shows parent_id only when listed by it",
  },
]

/** Objects whose provider gives the day of a change only: `updated_gte` keeps that whole UTC day (README). */
const UPDATED_BY_DAY: readonly { integration: string; object: string; reason: string }[] = [
  {
    integration: 'gusto',
    object: 'hris_payslip',
    reason:
      "Gusto gives a payroll's processed date, no time: a payslip processed later that day must not be missed",
  },
]

const required = (support: IntegrationSupport) =>
  Object.entries(support)
    .filter(([key, mark]) => key.startsWith('list_') && mark === 'supported-required')
    .map(([key]) => key.slice('list_'.length))

for (const provider of DEMO_PROVIDERS) {
  const type = provider.integrationType
  const integration = integrationOf(type)
  if (!integration) throw new Error(`demo provider ${type} has no integration`)
  const matrix = supportMatrix(integration)

  describe(`${integration.name} (${type})`, () => {
    let h: Harness
    let emulator: StartedEmulator
    let connection: string
    let properties: Rec[] = []
    const path = (object: string, id?: string) => {
      const model = modelOf(object)
      return `/${model?.category}/${connection}/${model?.path}${id === undefined ? '' : `/${encodeURIComponent(id)}`}`
    }
    const listed = new Map<string, ApiResponse<Rec[]>>()

    beforeAll(async () => {
      h = await startHarness('sqlite')
      emulator = await provider.start()
      const created = await h.api<{ id: string }>('POST', '/unified/connection', {
        body: { integration_type: type, auth: emulator.auth },
      })
      expect(created.status, created.text).toBe(200)
      connection = created.body.id
      if (matrix.analytics_property?.methods.list) {
        const res = await h.api<Rec[]>('GET', path('analytics_property'))
        if (res.status === 200) properties = res.body
      }
    })
    afterAll(async () => {
      await emulator?.close()
      await h?.close()
      await closeSharedEmulators()
    })

    /** What the emulator received so far (every emulator records requests behind its control prefix). */
    async function emulatorRequests(): Promise<{ query?: unknown; body?: unknown }[]> {
      const res = await fetch(`${emulator.url}/__emulator/requests`)
      expect(res.status, 'the emulator lists the requests it received').toBe(200)
      return (await res.json()) as { query?: unknown; body?: unknown }[]
    }

    /** The list without parameters, asked once per object. */
    async function plainList(object: string): Promise<ApiResponse<Rec[]>> {
      const hit = listed.get(object)
      if (hit) return hit
      const res = await h.api<Rec[]>('GET', path(object))
      listed.set(object, res)
      return res
    }

    /**
     * The list the record checks run on: the plain one when it answers 200, else, when the 400 asked for a
     * required scope (`property_id`, an HRIS `user_id`, …), the same list scoped to the first record of the
     * object that scope names (the suite picks from that list, as a caller would); undefined when the object
     * cannot be listed without provider knowledge.
     */
    async function listing(
      object: string,
    ): Promise<{ query: Record<string, string>; res: ApiResponse<Rec[]> } | undefined> {
      const plain = await plainList(object)
      if (plain.status === 200) return { query: {}, res: plain }
      if (plain.status !== 400) return
      const category = modelOf(object)?.category
      const support = matrix[object]
      const scope = (support ? required(support) : [])
        .filter((p) => plain.text.includes(p))
        .find((p) => SCOPE_SOURCES[`${category}:${p}`])
      const source = scope && SCOPE_SOURCES[`${category}:${scope}`]
      const first =
        source && (source === 'analytics_property' ? properties : (await plainList(source)).body)[0]?.id
      if (!scope || typeof first !== 'string') return
      const query = { [scope]: first }
      const key = `${object}?${scope}`
      const res = listed.get(key) ?? (await h.api<Rec[]>('GET', path(object), { query }))
      listed.set(key, res)
      expect(res.status, res.text).toBe(200)
      return { query, res }
    }

    /**
     * The listing a record check runs on, once it holds at least `needed` records; undefined (the check
     * has nothing to run on) only where FEW_RECORDS says why the demo cannot give them.
     */
    async function recordsFor(object: string, name: string, needed: number) {
      const list = await listing(object)
      const count = list?.res.body.length ?? 0
      const few = fewRecords(type, object, name)
      if (few) {
        expect(
          count,
          `${object} now lists ${count}: remove its FEW_RECORDS entry (${few.reason})`,
        ).toBeLessThan(needed)
        return undefined
      }
      const why = list
        ? 'the demo seeds none in the window a plain list covers?'
        : 'no list without provider knowledge'
      expect(count, `${name} needs ${needed} listed ${object} record(s): ${why}`).toBeGreaterThanOrEqual(
        needed,
      )
      return list
    }

    function check(object: string, name: string, run: () => Promise<void>) {
      const failure = known(type, object, name)
      if (!failure) return it(`${object}: ${name}`, run)
      return it(`${object}: ${name} (known failure: ${failure.reason})`, async () => {
        await expect(run(), 'this known failure now passes: remove it from KNOWN_FAILURES').rejects.toThrow()
      })
    }

    for (const [object, support] of Object.entries(matrix)) {
      if (!support.methods.list) continue

      check(object, 'list without parameters', async () => {
        const res = await plainList(object)
        expect([200, 400, 501], res.text).toContain(res.status)
        if (res.status === 200) expect(Array.isArray(res.body)).toBe(true)
        if (res.status === 400) {
          const message = (res.body as unknown as { message: string }).message
          const named = required(support).filter((p) => message.includes(p))
          expect(named, `a 400 must name a parameter the matrix marks required: ${message}`).not.toEqual([])
          if (named.includes('property_id')) {
            for (const p of properties.slice(0, 20)) expect(message).toContain(String(p.id))
          }
        }
      })

      if (support.methods.get) {
        check(object, 'listed ids round-trip', async () => {
          const list = await recordsFor(object, 'listed ids round-trip', 1)
          if (!list) return
          for (const record of list.res.body.slice(0, 3)) {
            expect(typeof record.id, JSON.stringify(record)).toBe('string')
            const got = await h.api<Rec>('GET', path(object, record.id as string))
            expect(got.status, got.text).toBe(200)
            expect(got.body.id).toBe(record.id)
          }
        })
      }

      check(object, 'an empty value is left out, never null, empty text or an empty list', async () => {
        const list = await recordsFor(
          object,
          'an empty value is left out, never null, empty text or an empty list',
          1,
        )
        if (!list) return
        for (const record of list.res.body) {
          for (const [field, value] of Object.entries(record)) {
            const empty = value === null || value === '' || (Array.isArray(value) && value.length === 0)
            expect(empty, `${field} of ${JSON.stringify(record).slice(0, 300)}`).toBe(false)
          }
        }
      })

      check(object, 'every record has an id', async () => {
        const list = await recordsFor(object, 'every record has an id', 1)
        for (const record of list?.res.body ?? []) {
          expect(typeof record.id, JSON.stringify(record)).toBe('string')
        }
      })

      check(object, PAGES, async () => {
        // Two records at least, so a page that starts after the first has something to compare.
        const list = await recordsFor(object, PAGES, 2)
        if (!list) return
        const ids = async (query: Record<string, number>) => {
          const res = await h.api<Rec[]>('GET', path(object), {
            query: { ...list.query, ...query, fields: 'id' },
          })
          expect(res.status, res.text).toBe(200)
          return res.body.map((r) => r.id)
        }
        const whole = await ids({ limit: 4 })
        expect(whole.length, 'the larger page').toBeGreaterThanOrEqual(2)
        expect(await ids({ limit: 2, offset: 0 })).toEqual(whole.slice(0, 2))
        expect(await ids({ limit: 2, offset: 1 })).toEqual(whole.slice(1, 3))
        expect(await ids({ limit: 2, offset: 2 })).toEqual(whole.slice(2, 4))
      })

      check(object, 'fields=id returns only id', async () => {
        const list = await recordsFor(object, 'fields=id returns only id', 1)
        if (!list) return
        const res = await h.api<Rec[]>('GET', path(object), {
          query: { ...list.query, fields: 'id', limit: 5 },
        })
        expect(res.status, res.text).toBe(200)
        expect(res.body.length, 'records with fields=id').toBeGreaterThan(0)
        for (const record of res.body) expect(Object.keys(record)).toEqual(['id'])
      })

      check(object, 'raw is an object when asked', async () => {
        const list = await recordsFor(object, 'raw is an object when asked', 1)
        if (!list) return
        const res = await h.api<Rec[]>('GET', path(object), {
          query: { ...list.query, fields: 'id,raw', limit: 3 },
        })
        expect(res.status, res.text).toBe(200)
        expect(res.body.length, 'records with fields=id,raw').toBeGreaterThan(0)
        for (const record of res.body) {
          expect(typeof record.raw).toBe('object')
          expect(record.raw).not.toBeNull()
          expect(Array.isArray(record.raw)).toBe(false)
        }
      })

      for (const key of Object.keys(support).filter((k) => k.startsWith('list_sort_by_'))) {
        const field = key.slice('list_sort_by_'.length)
        check(object, `sort=${field} without order is ascending`, async () => {
          const list = await recordsFor(object, `sort=${field} without order is ascending`, 2)
          if (!list) return
          const page = async (query: Record<string, string>) => {
            const res = await h.api<Rec[]>('GET', path(object), {
              query: { ...list.query, ...query, sort: field, fields: `id,${field}`, limit: 20 },
            })
            expect(res.status, res.text).toBe(200)
            return res.body
          }
          const plain = await page({})
          const asc = await page({ order: 'asc' })
          const desc = await page({ order: 'desc' })
          expect(plain).toEqual(asc)
          // The field's values differ across the records, so the directions can be told apart.
          expect(asc.map((r) => r[field])).not.toEqual(desc.map((r) => r[field]))
        })
      }

      check(object, 'the raw parameter reaches the provider', async () => {
        const list = await recordsFor(object, 'the raw parameter reaches the provider', 1)
        if (!list) return
        const first = list.res.body[0]?.id
        const reads: [string, Record<string, string | number>][] = [
          [path(object), { ...list.query, limit: 2 }],
          ...(support.methods.get && typeof first === 'string'
            ? ([[path(object, first), {}]] as [string, Record<string, string | number>][])
            : []),
        ]
        for (const [at, query] of reads) {
          const before = (await emulatorRequests()).length
          const res = await h.api<{ message?: string }>('GET', at, {
            query: { ...query, raw: 'unigate_conformance=1' },
          })
          const sent = (await emulatorRequests()).slice(before)
          const reached = sent.some((r) => JSON.stringify([r.query, r.body]).includes('unigate_conformance'))
          // Passed on, or refused naming raw (a provider that takes no unknown parameter there).
          const refused = res.status === 400 && String(res.body.message).startsWith('raw:')
          expect(reached || refused, `GET ${at}: ${res.status} ${res.text.slice(0, 200)}`).toBe(true)
        }
      })

      for (const [key, mark] of Object.entries(support)) {
        const filter = key.slice('list_'.length)
        const shows = FILTER_VALUES[filter]
        if (!key.startsWith('list_') || mark === 'not-supported' || !shows || object === 'analytics_report')
          continue
        const name = `a filter by ${filter} keeps the listed record it came from`
        check(object, name, async () => {
          const list = await recordsFor(object, name, 1)
          if (!list) return
          // The field is asked for by name, so a slow one is read too.
          const field = shows.field(object)
          const read = async (query: Record<string, string | number>) => {
            const res = await h.api<Rec[]>('GET', path(object), {
              query: { ...list.query, ...query, fields: `id,${field}` },
            })
            expect(res.status, res.text).toBe(200)
            return res.body
          }
          const values = (r: Rec) => shows.values(r[field]).filter((v): v is string => typeof v === 'string')
          // The plain listing first; the field asked by name only where it shows none (a slow field).
          const from =
            list.res.body.find((r) => values(r).length > 0) ??
            (await read({ limit: 100 })).find((r) => values(r).length > 0)
          const hidden = NOT_SHOWN.find(
            (n) => n.integration === type && n.object === object && n.filter === filter,
          )
          if (hidden) {
            expect(from, `remove the NOT_SHOWN entry: ${hidden.reason}`).toBeUndefined()
            return
          }
          expect(from, `a listed ${object} that shows its ${field}`).toBeDefined()
          if (!from) return
          const value = values(from)[0] as string
          // A filter keeps the listing's order, so the record is no further down than it was listed.
          const at = list.res.body.findIndex((r) => r.id === from.id)
          const kept = await read({ [filter]: value, limit: at < 0 ? 100 : at + 1 })
          expect(kept.map((r) => r.id)).toContain(from.id)
          for (const r of kept) expect(values(r), JSON.stringify(r)).toContain(value)
        })
      }

      if (object === 'analytics_event' && (support.list_type ?? 'not-supported') !== 'not-supported') {
        const name = 'the type filter reads an event type in any case'
        check(object, name, async () => {
          const list = await recordsFor(object, name, 1)
          if (!list) return
          const shown = list.res.body.find((r) => typeof r.event_type === 'string')?.event_type as string
          expect(shown, 'a listed event with an event_type').toBeDefined()
          const ids = async (type: string) => {
            const res = await h.api<Rec[]>('GET', path(object), {
              query: { ...list.query, type, fields: 'id', limit: 5 },
            })
            expect(res.status, `type=${type}: ${res.text}`).toBe(200)
            return res.body.map((r) => r.id)
          }
          const exact = await ids(shown)
          expect(exact.length).toBeGreaterThan(0)
          expect(await ids(shown.toLowerCase())).toEqual(exact)
        })
      }

      if ((support.list_updated_gte ?? 'not-supported') !== 'not-supported') {
        const name = 'updated_gte keeps the records changed at or after it'
        check(object, name, async () => {
          const list = await recordsFor(object, name, 2)
          if (!list) return
          const read = async (query: Record<string, string | number>) => {
            const res = await h.api<Rec[]>('GET', path(object), {
              query: { ...list.query, fields: 'id,updated_at', ...query },
            })
            expect(res.status, res.text).toBe(200)
            return res.body
          }
          const listed = list.res.body.filter((r) => typeof r.updated_at === 'string')
          const times = listed.map((r) => Date.parse(r.updated_at as string)).sort((a, b) => a - b)
          const middle = times[Math.floor(times.length / 2)] as number
          // The instant a record changed keeps it; a millisecond later leaves it out, whatever the provider's
          // own precision (whole seconds, a day) or zone.
          const byDay = UPDATED_BY_DAY.find((d) => d.integration === type && d.object === object)
          for (const since of [middle, middle + 1]) {
            const from = byDay ? since - (since % 86_400_000) : since
            const at = new Date(since).toISOString()
            // The filter keeps the listing's order: the listed records it keeps come within as many.
            const got = await read({ updated_gte: at, limit: list.res.body.length })
            const kept = new Set(got.map((r) => r.id))
            for (const r of listed) {
              expect(kept.has(r.id), `${r.id} changed ${r.updated_at}, updated_gte ${at}`).toBe(
                Date.parse(r.updated_at as string) >= from,
              )
            }
            for (const r of got) expect(Date.parse(r.updated_at as string), at).toBeGreaterThanOrEqual(from)
          }
        })
      }

      if (object === 'analytics_report') {
        const name = 'a breakdown row has the same id on every page'
        check(object, name, async () => {
          const list = await listing(object)
          // By country: every row covers the same window, so only the country tells the rows apart.
          const read = (query: Record<string, number>) =>
            h.api<Rec[]>('GET', path(object), {
              query: { ...list?.query, dimension: 'COUNTRY', fields: 'id', ...query },
            })
          const ids = async (query: Record<string, number>) => {
            const res = await read(query)
            expect(res.status, res.text).toBe(200)
            return res.body.map((r) => r.id)
          }
          const few = fewRecords(type, object, name)
          if (few) {
            const res = await read({ limit: 3 })
            if (res.status === 200) {
              expect(res.body.length, `remove its FEW_RECORDS entry (${few.reason})`).toBeLessThan(2)
            }
            return
          }
          const whole = await ids({ limit: 3 })
          expect(
            whole.length,
            'a COUNTRY breakdown of the plain window has a row per country',
          ).toBeGreaterThanOrEqual(2)
          expect(new Set(whole).size, JSON.stringify(whole)).toBe(whole.length)
          for (const [offset, id] of whole.entries()) expect(await ids({ limit: 1, offset })).toEqual([id])
        })
        check(object, 'every report metric has a number', async () => {
          const list = await recordsFor(object, 'every report metric has a number', 1)
          if (!list) return
          // The plain window, and one long before any data (a metric without data is 0 or left out, never
          // a metric without a value); a provider that cannot report so far back says so with a 400.
          const windows: Record<string, string>[] = [{}, { start_gte: '2019-01-01', end_lt: '2019-01-08' }]
          for (const window of windows) {
            const res = await h.api<Rec[]>('GET', path(object), { query: { ...list.query, ...window } })
            if (Object.keys(window).length === 0) expect(res.status, res.text).toBe(200)
            if (res.status !== 200) continue
            for (const r of res.body) {
              for (const m of (r.metrics ?? []) as Rec[]) {
                expect(Number.isFinite(m.value), `${JSON.stringify(window)}: ${JSON.stringify(m)}`).toBe(true)
              }
            }
          }
        })
        check(object, 'a time bucket is labelled in the one form of its dimension', async () => {
          const list = await listing(object)
          const day = (back: number) => new Date(Date.now() - back * 86_400_000).toISOString().slice(0, 10)
          const monthStart = (back: number) => {
            const now = new Date()
            return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - back, 1))
              .toISOString()
              .slice(0, 10)
          }
          // Seven whole days of the demo's data (a week's worth of hours, which every hourly series takes),
          // then whole months for an integration that reports months only over whole months (a 400 first).
          const windows = [
            { start_gte: day(8), end_lt: day(1) },
            { start_gte: monthStart(2), end_lt: monthStart(0) },
          ]
          const answered: string[] = []
          for (const [dimension, form] of Object.entries(TIME_BUCKET_LABEL_FORMS)) {
            let res: ApiResponse<Rec[]> | undefined
            for (const window of windows) {
              res = await h.api<Rec[]>('GET', path(object), {
                query: { ...list?.query, ...window, dimension, limit: 1000 },
              })
              if (res.status !== 400) break
            }
            if (!res || res.status === 501) continue
            expect(res.status, `${dimension}: ${res.text.slice(0, 300)}`).toBe(200)
            const metrics = res.body.flatMap((r) => (r.metrics ?? []) as Rec[])
            expect(metrics.length, `${dimension}: a report of the demo's data has metrics`).toBeGreaterThan(0)
            for (const m of metrics) {
              expect(m.dimension, JSON.stringify(m)).toBe(dimension)
              expect(m.dimension_value, `${dimension}: ${JSON.stringify(m)}`).toMatch(form)
            }
            answered.push(dimension)
          }
          expect(answered, 'an analytics integration reports by some time dimension').not.toEqual([])
        })
        check(object, 'a report claims the window it covers', async () => {
          const list = await recordsFor(object, 'a report claims the window it covers', 1)
          if (!list) return
          for (const dimension of [undefined, 'DATE']) {
            const res = await h.api<Rec[]>('GET', path(object), {
              query: { ...list.query, ...(dimension ? { dimension } : {}), limit: 5 },
            })
            expect(res.status, res.text).toBe(200)
            for (const r of res.body) {
              expect(typeof r.start_at, JSON.stringify(r)).toBe('string')
              expect(typeof r.end_at, JSON.stringify(r)).toBe('string')
              expect(Date.parse(r.start_at as string)).toBeLessThan(Date.parse(r.end_at as string))
            }
          }
        })
      }

      const windowed = (['list_start_gte', 'list_end_lt'] as const).every(
        (k) => (support[k] ?? 'not-supported') !== 'not-supported',
      )
      if (windowed) {
        check(
          object,
          'a window that ends before it starts is a 400 naming start_gte and end_lt',
          async () => {
            const list = await listing(object)
            const day = (back: number) => new Date(Date.now() - back * 86_400_000).toISOString().slice(0, 10)
            for (const [start, end] of [
              [day(5), day(12)],
              [day(5), day(5)],
            ]) {
              const res = await h.api<{ message?: string }>('GET', path(object), {
                query: { ...list?.query, start_gte: start as string, end_lt: end as string },
              })
              expect(res.status, `start_gte ${start}, end_lt ${end}: ${res.text}`).toBe(400)
              expect(res.body.message).toMatch(/start_gte/)
              expect(res.body.message).toMatch(/end_lt/)
            }
          },
        )
      }

      if (windowed && object !== 'analytics_report') {
        check(object, 'a window that starts after now lists nothing', async () => {
          const list = await listing(object)
          const start = new Date(Date.now() + 2 * 86_400_000).toISOString()
          const res = await h.api<Rec[]>('GET', path(object), { query: { ...list?.query, start_gte: start } })
          expect(res.status, res.text).toBe(200)
          expect(res.body).toEqual([])
        })
      }

      if (object === 'analytics_report') {
        check(object, 'a listed report measures something', async () => {
          const list = await recordsFor(object, 'a listed report measures something', 1)
          if (!list) return
          // Some metric with a value other than 0: a window without data answers zeros or no metrics.
          const measured = list.res.body.some((r) =>
            ((r.metrics ?? []) as { value?: unknown }[]).some(
              (m) => typeof m.value === 'number' && m.value !== 0,
            ),
          )
          expect(measured, JSON.stringify(list.res.body).slice(0, 500)).toBe(true)
        })
      }
    }

    for (const [object, support] of Object.entries(matrix)) {
      if (!support.methods.get) continue
      check(object, 'an unknown id is a 404', async () => {
        // One id shaped like no provider's, one like many (a whole number), and 0, which some providers read as
        // "the caller's own" (BambooHR's API key employee): none names a record.
        for (const id of ['unigate-conformance-unknown', '987654321987', '0']) {
          const got = await h.api<{ message?: string }>('GET', path(object, id))
          expect(got.status, `GET ${object} ${id}: ${got.text}`).toBe(404)
          expect(typeof got.body.message).toBe('string')
        }
      })
    }

    for (const [object, support] of Object.entries(matrix)) {
      if (!support.methods.create) continue
      let created: Rec | undefined

      check(object, 'create with the plain body', async () => {
        const res = await h.api<Rec>('POST', path(object), {
          body: createBody(object, support, properties),
        })
        expect(res.status, res.text).toBe(200)
        expect(typeof res.body.id).toBe('string')
        // Where the provider needs a distinct id, a generated anonymous one comes back.
        if (integration.objects[object]?.anonymousVisitor) expect(typeof res.body.visitor_id).toBe('string')
        created = res.body
      })

      if (support.methods.get) {
        check(object, 'created id round-trips', async () => {
          expect(created, 'the create failed').toBeDefined()
          const got = await h.api<Rec>('GET', path(object, created?.id as string))
          expect(got.status, got.text).toBe(200)
          expect(got.body.id).toBe(created?.id)
        })
      }

      if (support.methods.remove && support.methods.get) {
        check(object, 'remove then get is 404', async () => {
          expect(created, 'the create failed').toBeDefined()
          const removed = await h.api('DELETE', path(object, created?.id as string))
          expect(removed.status, removed.text).toBeLessThan(300)
          const got = await h.api('GET', path(object, created?.id as string))
          expect(got.status, got.text).toBe(404)
        })
      }

      if (object === 'analytics_visitor' && matrix.analytics_property?.methods.list) {
        check(object, ANOTHER_PROPERTY, async () => {
          const few = fewRecords(type, 'analytics_property', ANOTHER_PROPERTY)
          if (few) {
            expect(properties.length, `remove its FEW_RECORDS entry (${few.reason})`).toBeLessThan(2)
            return
          }
          const other = properties[1]
          expect(other, 'a second listed property to create in').toBeDefined()
          if (!other) return
          const res = await h.api<Rec>('POST', path(object), {
            body: { ...createBody(object, support, properties), property_id: other.id },
          })
          expect(res.status, res.text).toBe(200)
          const id = res.body.id as string
          const got = await h.api<Rec>('GET', path(object, id))
          expect(got.status, got.text).toBe(200)
          expect(got.body.id).toBe(id)
          if (support.methods.patch) {
            const patched = await h.api<Rec>('PATCH', path(object, id), { body: { name: 'Renamed' } })
            expect(patched.status, patched.text).toBe(200)
            expect(patched.body.id).toBe(id)
          }
          if (support.methods.remove) {
            expect((await h.api('DELETE', path(object, id))).status).toBeLessThan(300)
            expect((await h.api('GET', path(object, id))).status).toBe(404)
          }
        })
      }
    }

    // Every object of the integration's categories, listable here or not: what is malformed against the
    // model is the same 400 on every connection, before any 501 for what this integration cannot apply.
    for (const object of Object.keys(matrix)) {
      check(
        object,
        'a malformed list is a 400 naming the parameter, whatever the integration supports',
        async () => {
          const malformed: [Record<string, string>, RegExp][] = [
            [{ updated_gte: 'yesterday' }, /updated_gte/],
            [{ sort: 'not_a_field' }, /sort/],
            [{ order: 'sideways' }, /order/],
            [{ fields: 'id,not_a_field' }, /fields/],
            [{ offset: '-1' }, /offset/],
          ]
          const model = modelOf(object)
          const dated = Object.entries(model?.filters ?? {}).find(([, kind]) => kind === 'date')?.[0]
          if (dated) malformed.push([{ [dated]: '2024-13-45' }, new RegExp(dated)])
          for (const [query, named] of malformed) {
            const res = await h.api<{ message?: string }>('GET', path(object), { query })
            expect(res.status, `${JSON.stringify(query)}: ${res.text}`).toBe(400)
            expect(res.body.message, JSON.stringify(query)).toMatch(named)
          }
        },
      )
      check(
        object,
        'an empty updated_gte or query is not given, as an empty filter is, whatever the integration supports',
        async () => {
          const without = await h.api<Rec[]>('GET', path(object), { query: { fields: 'id' } })
          const empty = await h.api<Rec[]>('GET', path(object), {
            query: { fields: 'id', updated_gte: '', query: '' },
          })
          expect(empty.status, empty.text).toBe(without.status)
          if (without.status === 200) expect(empty.body).toEqual(without.body)
        },
      )
    }
  })
}
