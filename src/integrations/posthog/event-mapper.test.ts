import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { MODELS } from '../../models/index.js'
import { EVENT_MAPPED_PROPERTIES, eventMapperFor, fromPosthogEvent } from './mappers.js'
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
