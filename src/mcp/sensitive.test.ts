import { describe, expect, it } from 'vitest'
import { hideSensitive, isPersonalKey } from './sensitive.js'

const visitorFields = { fields: ['email', 'name', 'age', 'gender', 'city'], byKeyEverywhere: false }

describe('hide_sensitive', () => {
  it('removes a visitor’s personal fields and personal keys inside raw, keeping the rest', () => {
    const visitor = {
      id: 'v1',
      email: 'ada@example.com',
      name: 'Ada',
      country: 'GB',
      raw: {
        distinct_id: 'v1',
        $ip: '81.2.69.160',
        properties: {
          $email: 'ada@example.com',
          email: 'a@x.io',
          name: 'Ada',
          phone: '+44',
          $geoip_city_name: 'London',
          $initial_geoip_country_code: 'GB',
          plan: 'pro',
        },
      },
    }
    expect(hideSensitive([visitor], visitorFields)).toEqual([
      { id: 'v1', country: 'GB', raw: { distinct_id: 'v1', properties: { plan: 'pro' } } },
    ])
  })

  it('keeps a unified field whose name is innocent for the model (an event’s name)', () => {
    const event = { id: 'e1', name: '$pageview', raw: { event: '$pageview', properties: { $ip: '1.2.3.4' } } }
    expect(hideSensitive(event, { fields: [], byKeyEverywhere: false })).toEqual({
      id: 'e1',
      name: '$pageview',
      raw: { event: '$pageview', properties: {} },
    })
  })

  it('removes the custom fields of a metadata list whose slug names personal data', () => {
    const contact = {
      id: 'c1',
      metadata: [
        { id: 'k1', slug: 'personal_email', value: 'ada@home.example' },
        { id: 'k2', slug: 'emergencyContactPhone', value: '+44 20 7946 0000' },
        { id: 'k3', slug: 'plan_tier', value: 'gold' },
      ],
    }
    expect(hideSensitive(contact, { fields: [], byKeyEverywhere: false })).toEqual({
      id: 'c1',
      metadata: [{ id: 'k3', slug: 'plan_tier', value: 'gold' }],
    })
  })

  it('applies the key rule at the top level for provider data without a model', () => {
    expect(hideSensitive({ email: 'a@b.c', count: 1 }, { fields: [], byKeyEverywhere: true })).toEqual({
      count: 1,
    })
  })

  it("recognises the provider keys that carry personal data, in each provider's spelling", () => {
    for (const key of [
      // PostHog, Mixpanel, Amplitude, Matomo
      'email',
      '$email',
      'emails',
      'name',
      '$name',
      'first_name',
      'phone',
      'ip',
      '$ip',
      'ip_address',
      'visitIp',
      '$geoip_city_name',
      '$initial_geoip_country_code',
      '$city',
      '$raw_user_agent',
      'latitude',
      // BambooHR
      'firstName',
      'lastName',
      'preferredName',
      'displayName',
      'workEmail',
      'homeEmail',
      'mobilePhone',
      'workPhoneExtension',
      'dateOfBirth',
      'address1',
      'zipcode',
      'gender',
      'maritalStatus',
      'ssn',
      'sin',
      'photoUrl',
      'payRate',
      'ethnicity',
      // Gusto, Greenhouse, Lever, Pipedrive
      'date_of_birth',
      'email_addresses',
      'phone_numbers',
      'addresses',
      'photo_url',
      'primary_email',
      // HubSpot properties
      'firstname',
      'mobilephone',
      'ip_city',
      'hs_additional_emails',
      'zip',
    ])
      expect(isPersonalKey(key), key).toBe(true)
    for (const key of [
      'event',
      'distinct_id',
      'plan',
      'pathname',
      'timestamp',
      'properties',
      'country',
      'state',
      'department',
      'jobTitle',
      'hireDate',
      'businessName',
      'membership',
      'tip',
      'status',
      'website_id',
    ])
      expect(isPersonalKey(key), key).toBe(false)
  })
})
