import { describe, expect, it } from 'vitest'
import { HogQLError } from './errors.js'
import { executeHogQL } from './execute.js'
import { parseHogQL } from './parser.js'
import { type HogQLTable, range } from './table.js'
import { types, type Value, type ValueType } from './values.js'

interface Row {
  uuid: string
  event: string
  distinct_id: string
  timestamp: number
  properties: Record<string, unknown>
}

const t = (iso: string) => Date.parse(iso)
const ROWS: Row[] = [
  {
    uuid: '00000000-0000-7000-8000-000000000001',
    event: '$pageview',
    distinct_id: 'a',
    timestamp: t('2024-05-01T10:15:00Z'),
    properties: { $browser: 'Chrome', $current_url: 'https://x.com/pricing', revenue: 0 },
  },
  {
    uuid: '00000000-0000-7000-8000-000000000002',
    event: '$autocapture',
    distinct_id: 'a',
    timestamp: t('2024-05-01T10:45:00Z'),
    properties: { $browser: 'Chrome', $event_type: 'click' },
  },
  {
    uuid: '00000000-0000-7000-8000-000000000003',
    event: '$pageview',
    distinct_id: 'b',
    timestamp: t('2024-05-01T11:05:00Z'),
    properties: { $browser: 'Safari', $current_url: 'https://x.com/' },
  },
  {
    uuid: '00000000-0000-7000-8000-000000000004',
    event: 'purchase',
    distinct_id: 'b',
    timestamp: t('2024-05-02T09:00:00Z'),
    properties: { $browser: 'Safari', revenue: 19.5 },
  },
  {
    uuid: '00000000-0000-7000-8000-000000000005',
    event: 'purchase',
    distinct_id: 'c',
    timestamp: t('2024-05-02T09:30:00Z'),
    properties: { revenue: 30 },
  },
]

function column(type: ValueType, get: (r: Row) => Value) {
  return { type, get: (i: number) => get(ROWS[i] as Row) }
}

const table: HogQLTable = {
  name: 'events',
  starColumns: ['uuid', 'event'],
  column: (name) =>
    ({
      uuid: column(types.uuid(), (r) => r.uuid),
      event: column(types.string(), (r) => r.event),
      distinct_id: column(types.string(), (r) => r.distinct_id),
      timestamp: column(types.datetime64(), (r) => r.timestamp),
      properties: column(types.string(), (r) => JSON.stringify(r.properties)),
    })[name],
  jsonKey: (c, key) =>
    c === 'properties'
      ? column(types.string(true), (r) => {
          const v = r.properties[key]
          return v === undefined ? null : typeof v === 'string' ? v : JSON.stringify(v)
        })
      : undefined,
  rows: () => range(ROWS.length),
}

const run = (query: string) => executeHogQL(query, (name) => (name === 'events' ? table : undefined))
const refusal = (query: string) => {
  try {
    run(query)
  } catch (err) {
    if (err instanceof HogQLError) return { code: err.code, message: err.message }
    throw err
  }
  throw new Error(`expected ${query} to be refused`)
}

describe('HogQL subset: selecting and filtering', () => {
  it('selects columns and properties, naming columns like PostHog', () => {
    const r = run(
      "SELECT uuid, event AS name, properties.$browser, timestamp FROM events WHERE distinct_id = 'a' ORDER BY timestamp",
    )
    expect(r.columns).toEqual(['uuid', 'name', '$browser', 'timestamp'])
    expect(r.types).toEqual([
      ['uuid', 'UUID'],
      ['name', 'String'],
      ['$browser', 'Nullable(String)'],
      ['timestamp', "DateTime64(6, 'UTC')"],
    ])
    expect(r.results).toEqual([
      ['00000000-0000-7000-8000-000000000001', '$pageview', 'Chrome', '2024-05-01T10:15:00.000000Z'],
      ['00000000-0000-7000-8000-000000000002', '$autocapture', 'Chrome', '2024-05-01T10:45:00.000000Z'],
    ])
  })

  it('returns property numbers as strings, like HogQL without property definitions', () => {
    expect(
      run("SELECT properties.revenue FROM events WHERE event = 'purchase' ORDER BY timestamp").results,
    ).toEqual([['19.5'], ['30']])
  })

  it('combines AND, OR, parentheses, IN, NOT IN, ILIKE and comparisons', () => {
    const ids = (where: string) =>
      run(`SELECT distinct_id, event FROM events WHERE ${where} ORDER BY timestamp`).results
    expect(ids("event = '$pageview' AND (distinct_id = 'b' OR properties.$browser = 'Chrome')")).toEqual([
      ['a', '$pageview'],
      ['b', '$pageview'],
    ])
    expect(ids("event IN ('purchase', '$autocapture') AND distinct_id NOT IN ('c')")).toEqual([
      ['a', '$autocapture'],
      ['b', 'purchase'],
    ])
    expect(ids("properties.$current_url ILIKE '%PRICING%'")).toEqual([['a', '$pageview']])
    expect(ids("timestamp >= '2024-05-02' AND timestamp < toDateTime('2024-05-02T09:30:00Z')")).toEqual([
      ['b', 'purchase'],
    ])
    expect(ids("event != '$pageview' AND NOT (event = 'purchase')")).toEqual([['a', '$autocapture']])
  })

  it('treats comparisons with NULL as unknown, so NOT does not bring rows back', () => {
    expect(run("SELECT uuid FROM events WHERE NOT (properties.$browser = 'Chrome')").results).toHaveLength(2)
    expect(run('SELECT uuid FROM events WHERE properties.$browser IS NULL').results).toHaveLength(1)
  })

  // As in ClickHouse, a LIKE escape needs its backslash escaped in the string literal: '\\_' is a literal _.
  it('escapes quotes in strings and LIKE wildcards', () => {
    expect(run("SELECT uuid FROM events WHERE distinct_id = 'it\\'s'").results).toEqual([])
    expect(run("SELECT uuid FROM events WHERE properties.$current_url LIKE '%x.com/\\\\_%'").results).toEqual(
      [],
    )
    expect(
      run("SELECT uuid FROM events WHERE properties.$current_url LIKE '%x.com/\\_%'").results,
    ).toHaveLength(1)
    expect(
      run("SELECT uuid FROM events WHERE properties.$current_url LIKE '%x.com/p_icing'").results,
    ).toHaveLength(1)
  })
})

describe('HogQL subset: ordering and paging', () => {
  it('orders by several keys in both directions', () => {
    const r = run('SELECT distinct_id, event FROM events ORDER BY distinct_id DESC, timestamp ASC')
    expect(r.results.map((row) => row.join(':'))).toEqual([
      'c:purchase',
      'b:$pageview',
      'b:purchase',
      'a:$pageview',
      'a:$autocapture',
    ])
  })

  it('pages with LIMIT and OFFSET and says when more rows exist', () => {
    const first = run('SELECT uuid FROM events ORDER BY timestamp LIMIT 2')
    expect(first.hasMore).toBe(true)
    expect(first.limit).toBe(2)
    const last = run('SELECT uuid FROM events ORDER BY timestamp LIMIT 2 OFFSET 4')
    expect(last.results).toEqual([['00000000-0000-7000-8000-000000000005']])
    expect(last.hasMore).toBe(false)
    expect(last.offset).toBe(4)
  })

  it('defaults to 100 rows and caps LIMIT at 50 000', () => {
    expect(run('SELECT uuid FROM events').limit).toBe(100)
    expect(run('SELECT uuid FROM events LIMIT 1000000').limit).toBe(50_000)
  })
})

describe('HogQL subset: aggregation', () => {
  it('groups by an expression with count, count(DISTINCT), countIf, sum, avg, min, max', () => {
    const r = run(`
      SELECT toDate(timestamp) AS day, count(), count(DISTINCT distinct_id), countIf(event = 'purchase'),
             sum(toFloat(properties.revenue)), avg(toFloat(properties.revenue)), min(timestamp), max(event)
      FROM events GROUP BY day ORDER BY day`)
    expect(r.columns[1]).toBe('count()')
    expect(r.types[0]).toEqual(['day', 'Date'])
    expect(r.results).toEqual([
      ['2024-05-01', 3, 2, 0, 0, 0, '2024-05-01T10:15:00.000000Z', '$pageview'],
      ['2024-05-02', 2, 2, 2, 49.5, 24.75, '2024-05-02T09:00:00.000000Z', 'purchase'],
    ])
  })

  it('supports toStartOfHour, argMin/argMax, HAVING and ordering by an aggregate', () => {
    const r = run(`
      SELECT toStartOfHour(timestamp) AS hour, argMin(event, timestamp), argMax(event, timestamp), count() AS c
      FROM events GROUP BY hour HAVING c > 1 ORDER BY c DESC, hour`)
    expect(r.results).toEqual([
      ['2024-05-01T10:00:00Z', '$pageview', '$autocapture', 2],
      ['2024-05-02T09:00:00Z', 'purchase', 'purchase', 2],
    ])
  })

  it('answers one row for an aggregate without GROUP BY, even over no rows', () => {
    expect(
      run("SELECT count(), avg(toFloat(properties.revenue)) FROM events WHERE event = 'nothing'").results,
    ).toEqual([[0, null]])
  })
})

describe('HogQL subset: refusals', () => {
  it('refuses what it does not implement instead of answering wrongly', () => {
    for (const q of [
      'SELECT event FROM events JOIN persons ON 1 = 1',
      'SELECT event FROM (SELECT event FROM events)',
      'SELECT event FROM events WHERE event IN (SELECT event FROM events)',
      'SELECT quantile(0.5)(timestamp) FROM events',
      'SELECT event FROM events WHERE distinct_id = {id}',
      'SELECT arrayJoin(event) FROM events',
      'SELECT person.properties.email FROM events',
      'WITH x AS (SELECT 1) SELECT event FROM events',
      'SELECT event FROM events UNION ALL SELECT event FROM events',
    ]) {
      expect(refusal(q).code, q).toBe('unsupported_by_emulator')
    }
  })

  it('refuses syntax errors, unknown names and type errors like HogQL', () => {
    expect(refusal('SELECT event FROM').code).toBe('syntax_error')
    expect(refusal("SELECT event FROM events WHERE event = 'x").code).toBe('syntax_error')
    expect(refusal('SELECT nope FROM events')).toEqual({
      code: 'resolution_error',
      message: 'Unable to resolve field: nope',
    })
    expect(refusal('SELECT event FROM nowhere').code).toBe('resolution_error')
    expect(refusal('SELECT event, count() FROM events').message).toMatch(/not under aggregate function/)
    expect(refusal('SELECT event FROM events WHERE count() > 1').message).toBe(
      'Aggregate function count() is found in WHERE in query',
    )
    expect(refusal("SELECT event FROM events WHERE timestamp > 'yesterday'").code).toBe('type_error')
    expect(refusal('SELECT event FROM events WHERE event = 1').code).toBe('type_error')
    expect(refusal('SELECT sum(event) FROM events').code).toBe('type_error')
    expect(refusal("SELECT event FROM events WHERE uuid = 'x'").code).toBe('type_error')
  })

  it('parses backtick identifiers and comments', () => {
    const q = parseHogQL("SELECT properties.`odd key` -- trailing\nFROM events /* c */ WHERE event = 'x'")
    expect(q.select[0]?.expr).toEqual({ kind: 'field', chain: ['properties', 'odd key'] })
  })
})
