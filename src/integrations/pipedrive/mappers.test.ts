import { describe, expect, it } from 'vitest'
import { fromPipedrivePerson, toPipedrivePerson } from './mappers.js'
import type { PipedrivePerson } from './types.js'

// A v2 person (`GET /api/v2/persons/{id}`): RFC 3339 times, emails/phones arrays, custom fields by key.
const person: PipedrivePerson = {
  id: 42,
  name: 'Ada Lovelace',
  first_name: 'Ada',
  last_name: 'Lovelace',
  owner_id: 1001,
  org_id: 501,
  add_time: '2024-03-01T09:00:00Z',
  update_time: '2024-05-02T10:30:00Z',
  emails: [
    { value: 'ada@home.example', primary: false, label: 'home' },
    { value: 'ada@example.com', primary: true, label: 'work' },
  ],
  phones: [
    { value: '', primary: true, label: 'work' },
    { value: '+44 7700 900000', primary: false, label: 'mobile' },
    { value: '+44 1', primary: false, label: 'assistant' },
  ],
  is_deleted: false,
  custom_fields: { d4de1c1518b4531717c676029a45911c340390a6: { value: 2300, currency: 'EUR' }, e1: null },
}

describe('Pipedrive persons', () => {
  it('map onto unified contacts: primary email first, empty phones dropped, labels as types', () => {
    expect(fromPipedrivePerson(person)).toEqual({
      id: '42',
      created_at: new Date('2024-03-01T09:00:00Z'),
      updated_at: new Date('2024-05-02T10:30:00Z'),
      name: 'Ada Lovelace',
      first_name: 'Ada',
      last_name: 'Lovelace',
      emails: [
        { email: 'ada@example.com', type: 'WORK' },
        { email: 'ada@home.example', type: 'HOME' },
      ],
      telephones: [
        { telephone: '+44 7700 900000', type: 'MOBILE' },
        { telephone: '+44 1', type: 'ASSISTANT' },
      ],
      company_ids: ['501'],
      user_id: '1001',
      metadata: [
        {
          id: 'd4de1c1518b4531717c676029a45911c340390a6',
          slug: 'd4de1c1518b4531717c676029a45911c340390a6',
          value: { value: 2300, currency: 'EUR' },
        },
      ],
      raw: person,
    })
    expect(fromPipedrivePerson({ ...person, org_id: null }).company_ids).toEqual([])
  })

  it('take job title and postal address from contact sync, without composing a street line', () => {
    const synced = fromPipedrivePerson({
      ...person,
      job_title: 'Analyst',
      postal_address: {
        value: '123 Main St, Sunnyvale, CA 94085, USA',
        country: 'USA',
        admin_area_level_1: 'CA',
        admin_area_level_2: 'Santa Clara',
        locality: 'Sunnyvale',
        route: 'Main St',
        street_number: '123',
        postal_code: '94085',
      },
    })
    expect(synced).toMatchObject({
      title: 'Analyst',
      address: { city: 'Sunnyvale', region: 'CA', postal_code: '94085', country: 'USA' },
    })
    expect(synced.address).not.toHaveProperty('address1')
    expect(fromPipedrivePerson({ ...person, postal_address: { value: '' } }).address).toBeUndefined()
  })

  it('are written with the name as given (halves as halves), numeric ids and labelled channels', () => {
    expect(
      toPipedrivePerson(
        {
          first_name: 'Grace',
          last_name: 'Hopper',
          emails: [{ email: 'grace@example.com' }, { email: 'g@home.example', type: 'HOME' }],
          telephones: [{ telephone: '1', type: 'MOBILE' }],
          user_id: '1002',
          company_ids: ['502'],
          metadata: [{ slug: 'd4de1c1518b4531717c676029a45911c340390a6', value: 'gold' }],
        },
        true,
      ),
    ).toEqual({
      name: 'Grace Hopper',
      first_name: 'Grace',
      last_name: 'Hopper',
      emails: [
        { value: 'grace@example.com', primary: true, label: 'work' },
        { value: 'g@home.example', primary: false, label: 'home' },
      ],
      phones: [{ value: '1', primary: true, label: 'mobile' }],
      owner_id: 1002,
      org_id: 502,
      custom_fields: { d4de1c1518b4531717c676029a45911c340390a6: 'gold' },
    })
  })

  it('refuse what Pipedrive cannot hold, naming the field', () => {
    expect(() => toPipedrivePerson({}, true)).toThrow(/name/)
    expect(() => toPipedrivePerson({ first_name: 'Only' }, false)).toThrow(/first_name, last_name/)
    expect(() => toPipedrivePerson({ user_id: 'abc' }, false)).toThrow(/user_id/)
    expect(() => toPipedrivePerson({ company_ids: ['1', '2'] }, false)).toThrow(/company_ids/)
    expect(() => toPipedrivePerson({ telephones: [{ telephone: '1', type: 'FAX' }] }, false)).toThrow(
      /telephones/,
    )
    expect(() => toPipedrivePerson({ name: 'Ada Lovelace', first_name: 'Augusta' }, true)).toThrow(
      /first_name, last_name/,
    )
    expect(
      toPipedrivePerson({ name: 'Ada Lovelace', first_name: 'Ada', last_name: 'Lovelace' }, true),
    ).toEqual({
      name: 'Ada Lovelace',
      first_name: 'Ada',
      last_name: 'Lovelace',
    })
    expect(toPipedrivePerson({ name: 'Ada Lovelace' }, false)).toEqual({ name: 'Ada Lovelace' })
    expect(toPipedrivePerson({ last_name: 'Curie' }, true)).toEqual({
      name: 'Curie',
      first_name: '',
      last_name: 'Curie',
    })
    expect(toPipedrivePerson({ name: 'Cher', first_name: 'Cher' }, false)).toEqual({
      name: 'Cher',
      first_name: 'Cher',
      last_name: '',
    })
    expect(() => toPipedrivePerson({ first_name: '', last_name: '' }, false)).toThrow(/both empty/)
    expect(() => toPipedrivePerson({ first_name: ' ', last_name: '  ' }, true)).toThrow(/both empty/)
    expect(() => toPipedrivePerson({ name: '' }, false)).toThrow(/^name: /)
    expect(() => toPipedrivePerson({ title: 'CTO' }, false)).toThrow(/title/)
    expect(() => toPipedrivePerson({ deal_ids: ['9'] }, false)).toThrow(/deal_ids/)
  })
})
