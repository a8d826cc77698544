import { describe, expect, it } from 'vitest'
import amplitude from './amplitude/definition.js'
import bamboohr from './bamboohr/definition.js'
import pipedrive from './pipedrive/definition.js'
import posthog from './posthog/definition.js'
import { supportMatrix } from './support.js'

/** `webhook_events` in the support matrix: per event, polled (`virtual`) and/or pushed (`native`). */
describe('the webhook kinds an object offers', () => {
  it('says native where the provider pushes the event, virtual where polling can see it', () => {
    expect(supportMatrix(pipedrive).crm_contact?.webhook_events).toEqual({
      created: ['virtual', 'native'],
      updated: ['virtual', 'native'],
      deleted: ['virtual', 'native'],
    })
    expect(supportMatrix(bamboohr).hris_employee?.webhook_events).toEqual({
      created: ['virtual', 'native'],
      updated: ['virtual', 'native'],
      deleted: ['virtual', 'native'],
    })
    expect(supportMatrix(bamboohr).hris_group?.webhook_events).toEqual({
      created: ['virtual'],
      updated: ['virtual'],
      deleted: ['virtual'],
    })
    expect(supportMatrix(posthog).analytics_event?.webhook_events?.created).toEqual(['virtual', 'native'])
    // Amplitude never changes an event once exported: no updated event can happen.
    expect(supportMatrix(amplitude).analytics_event?.webhook_events?.updated).toBeUndefined()
  })
})
