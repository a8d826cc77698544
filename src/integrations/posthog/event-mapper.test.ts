import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { parseFields, planFields, recordShaper } from '../../engine/fields.js'
import { MODELS } from '../../models/index.js'
import { eventColumnsFor, eventFromRow } from './events.js'
import { EVENT_MAPPED_PROPERTIES, eventMapperFor, eventRowMapperFor, fromPosthogEvent } from './mappers.js'
import type { PosthogEvent } from './types.js'

const EVENT_MODEL = MODELS.find((m) => m.objectType === 'analytics_event')!
const FIELDS = EVENT_MODEL.fieldNames.filter((f) => f !== 'raw')

const value = fc.oneof(
  fc.string(),
  fc.constantFrom('', '12.5', 'true', 'click', 'submit', 'https://acme.com/p?q=1'),
  fc.double(),
  fc.integer(),
  fc.boolean(),
  fc.constant(null),
)

const timestamp = fc.oneof(
  fc
    .date({
      min: new Date('2000-01-01T00:00:00Z'),
      max: new Date('2100-01-01T00:00:00Z'),
      noInvalidDate: true,
    })
    .map((d) => `${d.toISOString().slice(0, 23)}000Z`),
  fc.constantFrom('', 'not a date', '2024-13-45T99:00:00Z'),
)

/** Events as HogQL rows zip into them or the REST API answers them: mapped properties, custom ones, `$` ones. */
const posthogEvent: fc.Arbitrary<PosthogEvent> = fc.record(
  {
    uuid: fc.uuid(),
    id: fc.uuid(),
    event: fc.constantFrom(
      '$pageview',
      '$screen',
      '$autocapture',
      '$rageclick',
      'purchase',
      'logged_in',
      'x',
    ),
    distinct_id: fc.oneof(fc.string(), fc.constant('')),
    timestamp,
    properties: fc.dictionary(
      fc.oneof(fc.constantFrom(...EVENT_MAPPED_PROPERTIES, '$lib', 'plan', 'team'), fc.string()),
      value,
    ),
  },
  { requiredKeys: ['event', 'distinct_id', 'timestamp', 'properties'] },
) as fc.Arbitrary<PosthogEvent>

describe('eventMapperFor: only the asked fields', () => {
  it('builds each listed field exactly as the full mapping does, and nothing else but raw', () => {
    fc.assert(
      fc.property(posthogEvent, fc.subarray(FIELDS), fc.string(), (event, listed, propertyId) => {
        const full = fromPosthogEvent(event, propertyId)
        const limited = eventMapperFor(new Set(listed))(event, propertyId)
        for (const field of listed) expect(limited[field]).toEqual(full[field])
        // PostHog events have no updated_at: the full mapping has no key for it, nor does the limited one.
        const built = listed.filter((f) => f in full)
        expect(Object.keys(limited).sort()).toEqual([...built, 'raw'].sort())
        expect(limited.raw).toBe(event)
      }),
      { numRuns: 500 },
    )
  })

  it('builds every field when no field was listed', () => {
    fc.assert(
      fc.property(posthogEvent, (event) => {
        expect(eventMapperFor()(event, '7')).toEqual(fromPosthogEvent(event, '7'))
      }),
    )
  })
})

/** A HogQL row for the given columns: each cell what PostHog may answer there, null included. */
const rowFor = (columns: readonly { source: string; name: string }[]) =>
  fc.tuple(
    ...columns.map((c) =>
      c.source === 'property'
        ? value
        : c.name === 'uuid'
          ? fc.oneof(fc.uuid(), fc.constant(null))
          : c.name === 'event'
            ? fc.constantFrom('$pageview', '$screen', '$autocapture', '$rageclick', 'purchase', null)
            : c.name === 'timestamp'
              ? fc.oneof(timestamp, fc.constant(null))
              : fc.oneof(fc.string(), fc.constant(''), fc.constant(null)),
    ),
  )

describe('eventRowMapperFor: listed fields straight from HogQL rows', () => {
  const FAST = FIELDS.filter((f) => f !== 'metadata')
  // In any order, as a caller may list them: the records come in the model's order whatever the order asked.
  const listedAndRow = fc.shuffledSubarray(FAST, { minLength: 1 }).chain((listed) => {
    const columns = eventColumnsFor({ raw: false, rawNames: [], slow: new Set(), listed: new Set(listed) })
    return fc.tuple(fc.constant(listed), fc.constant(columns), rowFor(columns))
  })

  it('builds each record as the response sends the row zipped into an event, mapped and shaped', () => {
    fc.assert(
      fc.property(
        listedAndRow,
        fc.string(),
        fc.option(fc.string(), { nil: undefined }),
        ([listed, columns, row], propertyId, visitorId) => {
          // The listed set as the engine reads it from `fields`.
          const selection = parseFields(listed.join(','), EVENT_MODEL)
          const mapper = eventRowMapperFor(columns, selection.listed)!
          const zipped = eventMapperFor(selection.listed)(
            eventFromRow(columns, row, []),
            propertyId,
            visitorId,
          )
          const shaped = recordShaper(EVENT_MODEL, selection, planFields(selection, ['metadata'], false), [
            'metadata',
          ])(zipped)
          // The engine sends these records as they are (shapedPage): no key of an undefined value, the same
          // keys in the same order, so the same response text.
          const built = mapper(row, propertyId, visitorId)
          expect(built).toStrictEqual(shaped)
          expect(Object.keys(built)).toEqual(Object.keys(shaped))
          expect(JSON.stringify(built)).toBe(JSON.stringify(shaped))
        },
      ),
      { numRuns: 1000 },
    )
  })

  it('is not made where a listed field needs the whole properties blob, or when nothing was listed', () => {
    const columns = eventColumnsFor({ raw: false, rawNames: [], slow: new Set(), listed: new Set(['id']) })
    expect(eventRowMapperFor(columns, new Set(['id', 'metadata']))).toBeUndefined()
    expect(eventRowMapperFor(columns, undefined)).toBeUndefined()
  })
})

describe('eventColumnsFor', () => {
  it('selects each raw.<name> once, columns as columns, in the order asked', () => {
    const columns = eventColumnsFor({
      raw: false,
      rawNames: ['$browser', 'plan', 'timestamp', 'plan', 'elements_chain', '$browser'],
      slow: new Set(),
      listed: new Set(['id']),
    })
    expect(columns).toEqual([
      { source: 'column', name: 'uuid' },
      { source: 'column', name: 'event' },
      { source: 'column', name: 'distinct_id' },
      { source: 'column', name: 'timestamp' },
      { source: 'property', name: '$browser' },
      { source: 'property', name: 'plan' },
      { source: 'column', name: 'elements_chain' },
    ])
  })

  // A scan of the chosen columns per name made this quadratic: 100,000 names took some 50 s (60,000 in one
  // tool call held the server's event loop 11 s). Linear, it is a few milliseconds; the test's own timeout,
  // far above either, is the only clock here.
  it('is linear in the names asked: 100,000 raw.<name> come back as 100,000 property columns', () => {
    const rawNames = Array.from({ length: 100_000 }, (_, i) => `p${i}`)
    const columns = eventColumnsFor({ raw: false, rawNames, slow: new Set(), listed: new Set(['id']) })
    expect(columns).toHaveLength(4 + 100_000)
    expect(columns.at(-1)).toEqual({ source: 'property', name: 'p99999' })
  }, 10_000)
})
