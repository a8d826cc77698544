import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import {
  eventConditions,
  eventsListQuery,
  eventTypeCondition,
  hogqlContains,
  hogqlIdentifier,
  hogqlString,
  reportQuery,
  sessionsListQuery,
} from './hogql.js'

describe('escaping', () => {
  it('quotes strings with ClickHouse escapes so no value can end the literal', () => {
    expect(hogqlString("it's")).toBe("'it\\'s'")
    expect(hogqlString('back\\slash')).toBe("'back\\\\slash'")
    expect(hogqlString("x' OR 1=1 --")).toBe("'x\\' OR 1=1 --'")
    expect(hogqlString('line\nbreak')).toBe("'line\\nbreak'")
  })

  it('quotes any text exactly as escaping it character by character does', () => {
    const ESCAPES: Record<string, string> = {
      '\\': '\\\\',
      "'": "\\'",
      '\n': '\\n',
      '\r': '\\r',
      '\t': '\\t',
      '\0': '\\0',
      '\b': '\\b',
      '\f': '\\f',
      '\v': '\\v',
      '\x07': '\\a',
    }
    const byCharacter = (v: string) => `'${Array.from(v, (c) => ESCAPES[c] ?? c).join('')}'`
    const tricky = fc.constantFrom(...Object.keys(ESCAPES), 'a', 'é', '😀', '\u2028', '`', '"', '%')
    fc.assert(
      fc.property(fc.oneof(fc.string({ unit: 'grapheme' }), fc.string({ unit: tricky })), (v) => {
        expect(hogqlString(v)).toBe(byCharacter(v))
      }),
    )
    expect(hogqlString('2024-12-02T00:00:00.000Z')).toBe("'2024-12-02T00:00:00.000Z'")
    for (const c of Object.keys(ESCAPES)) expect(hogqlString(`a${c}b`)).toBe(`'a${ESCAPES[c]}b'`)
  })

  it('quotes odd or reserved identifiers with backticks', () => {
    expect(hogqlIdentifier('$browser')).toBe('$browser')
    expect(hogqlIdentifier('my key')).toBe('`my key`')
    expect(hogqlIdentifier('order')).toBe('`order`')
    expect(hogqlIdentifier('a`b')).toBe('`a\\`b`')
  })

  it('escapes LIKE wildcards inside a contains pattern', () => {
    expect(hogqlContains('50%_off')).toBe("'%50\\\\%\\\\_off%'")
  })
})

describe('event templates', () => {
  it('builds filters for every pushed-down unified filter', () => {
    expect(
      eventConditions({
        visitor: { personId: '0190a1b2-0000-7000-8000-000000000001', distinctIds: ['anon', 'u_1'] },
        sessionId: "s'1",
        start: new Date('2024-05-01T00:00:00Z'),
        end: new Date('2024-05-02T00:00:00Z'),
        search: 'pricing',
      }),
    ).toEqual([
      "timestamp >= toDateTime('2024-05-01T00:00:00.000Z')",
      "timestamp < toDateTime('2024-05-02T00:00:00.000Z')",
      "person_id = '0190a1b2-0000-7000-8000-000000000001'",
      "properties.$session_id = 's\\'1'",
      "(event ILIKE '%pricing%' OR properties.$current_url ILIKE '%pricing%' OR properties.title ILIKE '%pricing%')",
    ])
  })

  it("filters a visitor's events by person, or by the id itself when no person has it", () => {
    const id = '0190a1b2-0000-7000-8000-000000000002'
    expect(eventConditions({ visitor: { unknownId: 'crm_1' } })).toEqual(["distinct_id = 'crm_1'"])
    // Never `person_id` for an id without a person: without persons-on-events PostHog INNER JOINs
    // person_distinct_ids for it, which drops exactly the person-less events the id names.
    expect(eventConditions({ visitor: { unknownId: id } })).toEqual([`distinct_id = '${id}'`])
  })

  it('reverse-maps event types, including clicks and everything custom', () => {
    expect(eventTypeCondition(['PAGE_VIEW'])).toBe("(event IN ('$pageview'))")
    expect(eventTypeCondition(['CLICK'])).toBe(
      "((event = '$autocapture' AND coalesce(properties.$event_type, '') = 'click') OR event = '$rageclick')",
    )
    expect(eventTypeCondition(['CUSTOM'])).toMatch(/^NOT \(\(event IN \('\$pageview'\)\) OR /)
  })

  it('orders with a uuid tie-breaker and pages with LIMIT/OFFSET', () => {
    expect(
      eventsListQuery({
        columns: [
          { source: 'column', name: 'uuid' },
          { source: 'property', name: 'odd name' },
        ],
        filter: {},
        sort: 'timestamp',
        desc: true,
        limit: 10,
        offset: 20,
      }),
    ).toBe(
      'SELECT uuid, properties.`odd name`\nFROM events\nORDER BY timestamp DESC, uuid DESC\nLIMIT 10 OFFSET 20',
    )
  })
})

describe('session and report templates', () => {
  it('filters sessions by source as coalesce(utm source, referring domain)', () => {
    const q = sessionsListQuery({
      extraColumns: [],
      filter: { source: 'google' },
      sort: 'start_at',
      desc: false,
      limit: 5,
      offset: 0,
    })
    expect(q).toContain("WHERE coalesce($entry_utm_source, $entry_referring_domain) = 'google'")
    expect(q).toContain('ORDER BY $start_timestamp ASC, session_id ASC\nLIMIT 5')
  })

  it('groups a report by its dimension', () => {
    expect(
      reportQuery({
        table: 'sessions',
        metrics: ['count()', 'avg($is_bounce)'],
        dimension: 'toDate($start_timestamp)',
        start: new Date('2024-05-01T00:00:00Z'),
        limit: 31,
        offset: 0,
      }),
    ).toBe(
      [
        'SELECT toDate($start_timestamp), count(), avg($is_bounce)',
        'FROM sessions',
        "WHERE $start_timestamp >= toDateTime('2024-05-01T00:00:00.000Z')",
        'GROUP BY toDate($start_timestamp)',
        'ORDER BY toDate($start_timestamp) ASC',
        'LIMIT 31',
      ].join('\n'),
    )
  })
})
