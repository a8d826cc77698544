import { describe, expect, it } from 'vitest'
import amplitude from './amplitude/definition.js'
import ga4 from './ga4/definition.js'
import lever from './lever/definition.js'
import mixpanel from './mixpanel/definition.js'
import posthog from './posthog/definition.js'
import { supportMatrix } from './support.js'
import umami from './umami/definition.js'

/** The support matrix of `GET /unified/integration`, in Unified.to's vocabulary, from the definitions. */
describe('the support matrix says what a call cannot do without', () => {
  it('marks parameters a list cannot do without supported-required, and only there', () => {
    expect(supportMatrix(umami).analytics_session?.list_property_id).toBe('supported-required')
    expect(supportMatrix(ga4).analytics_report?.list_property_id).toBe('supported-required')
    // A Mixpanel report without query counts every event; only some asks need one (a 400 says which).
    expect(supportMatrix(mixpanel).analytics_report?.list_query).toBe('supported')
    // Amplitude lists the visitors its export shows when no query searches them.
    expect(supportMatrix(amplitude).analytics_visitor?.list_query).toBe('supported')
    expect(supportMatrix(posthog).analytics_report?.list_property_id).toBe('supported')
  })

  it('says which window a list covers by default', () => {
    expect(supportMatrix(amplitude).analytics_event?.default_window_days).toBe(30)
    expect(supportMatrix(amplitude).analytics_visitor?.default_window_days).toBe(30)
    expect(supportMatrix(mixpanel).analytics_event?.default_window_days).toBe(30)
    expect(supportMatrix(amplitude).analytics_event?.list_start_gte).toBe('supported')
    expect(supportMatrix(posthog).analytics_event?.default_window_days).toBeUndefined()
  })

  it('marks create fields a provider needs in outbound_fields', () => {
    expect(supportMatrix(ga4).analytics_property?.outbound_fields).toEqual({
      parent_id: 'supported-required',
      timezone: 'supported-required',
    })
    expect(supportMatrix(umami).analytics_property?.outbound_fields).toEqual({
      name: 'supported-required',
      'raw.domain': 'supported-required',
    })
    expect(supportMatrix(posthog).analytics_event?.outbound_fields).toBeUndefined()
  })

  it('says which webhook kinds can watch each event (webhook_events)', () => {
    expect(supportMatrix(lever).ats_application?.webhook_events).toEqual({
      created: ['virtual', 'native'],
      updated: ['virtual', 'native'],
      deleted: ['virtual', 'native'],
    })
    // PostHog pushes captured events; their listing is a time window, so a deletion cannot be seen.
    expect(supportMatrix(posthog).analytics_event?.webhook_events).toEqual({
      created: ['virtual', 'native'],
      updated: ['virtual'],
    })
  })
})
