import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { parseFields, planFields, recordShaper } from '../../engine/fields.js'
import { modelOf } from '../../models/index.js'
import {
  fromHubspotContact,
  hubspotContactMapperFor,
  shapedContactMapperFor,
  toHubspotAssociations,
  toHubspotContactProperties,
} from './mappers.js'
import { contactAsk } from './properties.js'
import { searchRequest } from './search.js'
import type { HubspotContact } from './types.js'

// Shaped like `SimplePublicObjectWithAssociations` in the CRM Contacts v3 spec, with associations asked.
const contact: HubspotContact = {
  id: '51',
  properties: {
    createdate: '2024-03-01T09:00:00.000Z',
    email: 'ada@example.com',
    hs_additional_emails: 'ada@home.example;lovelace@example.org',
    firstname: 'Ada',
    lastname: 'Lovelace',
    phone: '+44 20 7946 0000',
    mobilephone: '+44 7700 900000',
    fax: null,
    company: 'Analytical Engines',
    jobtitle: 'Programmer',
    address: '12 St James Square',
    city: 'London',
    state: '',
    zip: 'SW1Y 4JH',
    country: 'United Kingdom',
    website: 'https://ada.example.com',
    hubspot_owner_id: '9001',
    hs_lead_status: 'OPEN',
    hs_object_id: '51',
  },
  createdAt: '2024-03-01T09:00:00.000Z',
  updatedAt: '2024-05-02T10:30:00.123Z',
  archived: false,
  associations: {
    companies: {
      results: [
        { id: '700', type: 'contact_to_company' },
        { id: '700', type: 'contact_to_company_unlabeled' },
      ],
    },
    deals: { results: [{ id: '800', type: 'contact_to_deal' }] },
  },
}

describe('HubSpot contacts', () => {
  it('map onto unified contacts, empty properties left out', () => {
    const unified = fromHubspotContact(contact)
    expect({ ...unified, raw: undefined }).toEqual({
      id: '51',
      // HubSpot's instants are already the ISO text a response writes (isoTextOf): kept as that text.
      created_at: '2024-03-01T09:00:00.000Z',
      updated_at: '2024-05-02T10:30:00.123Z',
      first_name: 'Ada',
      last_name: 'Lovelace',
      name: 'Ada Lovelace',
      emails: [
        { email: 'ada@example.com' },
        { email: 'ada@home.example' },
        { email: 'lovelace@example.org' },
      ],
      telephones: [{ telephone: '+44 20 7946 0000' }, { telephone: '+44 7700 900000', type: 'MOBILE' }],
      company: 'Analytical Engines',
      title: 'Programmer',
      address: {
        address1: '12 St James Square',
        city: 'London',
        region: undefined,
        postal_code: 'SW1Y 4JH',
        country: 'United Kingdom',
      },
      link_urls: ['https://ada.example.com'],
      user_id: '9001',
      company_ids: ['700'],
      deal_ids: ['800'],
      raw: undefined,
    })
    expect(unified.raw).toEqual(contact)
  })

  it('keep an instant in another ISO form as a Date, and drop one that is no date', () => {
    const other = fromHubspotContact({ ...contact, createdAt: '2024-03-01T09:00:00Z', updatedAt: 'soon' })
    expect(other.created_at).toEqual(new Date('2024-03-01T09:00:00.000Z'))
    expect(other.updated_at).toBeUndefined()
  })

  it('put a property asked with raw.<name> at the top of raw', () => {
    expect(fromHubspotContact(contact, ['hs_lead_status']).raw).toMatchObject({ hs_lead_status: 'OPEN' })
  })

  it('build only the listed fields of a list page, each as the full mapping builds it', () => {
    const full = fromHubspotContact(contact, ['hs_lead_status'])
    const fields = Object.keys(full)
    expect(fields).toContain('updated_at')
    for (const field of fields) {
      const one = hubspotContactMapperFor(new Set([field]))(contact)
      expect(Object.keys(one)).toEqual([field])
      if (field !== 'raw') expect(one[field]).toEqual(full[field])
    }
    const page = hubspotContactMapperFor(new Set(['id', 'created_at', 'emails']))(contact)
    expect(page).toEqual({ id: full.id, created_at: full.created_at, emails: full.emails })
    // raw comes with `raw`, or with a raw.<name>, and then carries the named property as the full mapping does.
    const named = hubspotContactMapperFor(new Set(['id', 'raw.hs_lead_status']), ['hs_lead_status'])(contact)
    expect(named).toEqual({ id: full.id, raw: full.raw })
    expect(hubspotContactMapperFor(undefined, ['hs_lead_status'])(contact)).toEqual(full)
  })

  it('build a page of listed fields as the response sends the full mapping, shaped', () => {
    const model = modelOf('crm_contact')!
    const variants: HubspotContact[] = [
      contact,
      { ...contact, createdAt: '2024-03-01T09:00:00Z', updatedAt: 'soon' },
      { ...contact, id: '52', properties: { hs_object_id: '52', email: '', firstname: null, state: 'CA' } },
      { ...contact, associations: { companies: { results: [] } } },
    ]
    fc.assert(
      fc.property(
        // In any order, as a caller may list them: the records come in the model's order whatever the order asked.
        fc.shuffledSubarray(
          model.fieldNames.filter((f) => f !== 'raw'),
          { minLength: 1 },
        ),
        fc.constantFrom(...variants),
        (listed, c) => {
          const selection = parseFields(listed.join(','), model)
          const shaped = recordShaper(
            model,
            selection,
            planFields(selection, [], false),
            [],
          )(fromHubspotContact(c))
          // The engine sends these records as they are (shapedPage): the same keys in the same order, so the
          // same response text.
          const built = shapedContactMapperFor(selection.listed!)(c)
          expect(built).toStrictEqual(shaped)
          expect(JSON.stringify(built)).toBe(JSON.stringify(shaped))
        },
      ),
      { numRuns: 500 },
    )
  })

  it('are mapped by one function per listed field set, each building only its own fields', () => {
    const model = modelOf('crm_contact')!
    const names = parseFields('id,first_name', model).listed!
    const emails = parseFields('id,emails', model).listed!
    expect(shapedContactMapperFor(names)).toBe(shapedContactMapperFor(names))
    expect(shapedContactMapperFor(names)(contact)).toStrictEqual({ id: '51', first_name: 'Ada' })
    expect(Object.keys(shapedContactMapperFor(emails)(contact))).toEqual(['id', 'emails'])
  })

  it('leave out what was not asked rather than answering it empty', () => {
    const bare = fromHubspotContact({
      ...contact,
      properties: { hs_object_id: '51' },
      associations: undefined,
    })
    expect(bare.emails).toBeUndefined()
    expect(bare.telephones).toBeUndefined()
    expect(bare.company_ids).toBeUndefined()
  })

  it('are written as string properties, refusing what HubSpot cannot hold', () => {
    expect(
      toHubspotContactProperties({
        first_name: 'Grace',
        last_name: 'Hopper',
        emails: [{ email: 'grace@example.com', type: 'WORK' }],
        telephones: [{ telephone: '1' }, { telephone: '2', type: 'MOBILE' }],
        address: { address1: '1 Navy Way', region: 'VA', postal_code: '22202' },
        link_urls: ['https://grace.example.com'],
        title: 'Rear Admiral',
        user_id: '9001',
        raw: { properties: { hs_lead_status: 'NEW', numemployees: 5 } },
      }),
    ).toEqual({
      firstname: 'Grace',
      lastname: 'Hopper',
      email: 'grace@example.com',
      phone: '1',
      mobilephone: '2',
      address: '1 Navy Way',
      state: 'VA',
      zip: '22202',
      website: 'https://grace.example.com',
      jobtitle: 'Rear Admiral',
      hubspot_owner_id: '9001',
      hs_lead_status: 'NEW',
      numemployees: '5',
    })
    expect(toHubspotContactProperties({ name: 'Grace Brewster Hopper' })).toEqual({
      firstname: 'Grace',
      lastname: 'Brewster Hopper',
    })
    expect(() => toHubspotContactProperties({ emails: [{ email: 'a@x' }, { email: 'b@x' }] })).toThrow(
      /emails/,
    )
    expect(() => toHubspotContactProperties({ telephones: [{ telephone: '1', type: 'HOME' }] })).toThrow(
      /telephones/,
    )
    expect(() => toHubspotContactProperties({ address: { address2: 'Suite 2' } })).toThrow(
      /address\.address2/,
    )
    expect(() => toHubspotContactProperties({ department: 'R&D' })).toThrow(/department/)
    expect(() => toHubspotContactProperties({ raw: { id: '1' } })).toThrow(/raw\.id/)
  })

  it('associate a created contact with companies and deals by HubSpot-defined type ids', () => {
    expect(toHubspotAssociations({ company_ids: ['700'], deal_ids: ['800'] })).toEqual([
      { to: { id: '700' }, types: [{ associationCategory: 'HUBSPOT_DEFINED', associationTypeId: 279 }] },
      { to: { id: '800' }, types: [{ associationCategory: 'HUBSPOT_DEFINED', associationTypeId: 4 }] },
    ])
  })
})

describe('What a HubSpot request asks for', () => {
  it('names only the properties of the listed fields, plus raw.<name>', () => {
    expect(contactAsk(new Set(['id', 'emails']), ['hs_lead_status'])).toEqual({
      properties: ['email', 'hs_additional_emails', 'hs_lead_status'],
      associations: [],
    })
    expect(contactAsk(new Set(['company_ids']), []).associations).toEqual(['companies'])
    expect(contactAsk(undefined, []).associations).toEqual(['companies', 'deals'])
  })

  it('searches with one AND group, dates in epoch milliseconds, id order unless sorted', () => {
    const q = {
      limit: 10,
      offset: 0,
      updated_gte: new Date('2024-05-01T00:00:00Z'),
      filters: { company_id: '700', user_id: '9001' },
    }
    expect(searchRequest(q, ['email'], 10, undefined)).toEqual({
      filterGroups: [
        {
          filters: [
            { propertyName: 'lastmodifieddate', operator: 'GTE', value: '1714521600000' },
            { propertyName: 'hubspot_owner_id', operator: 'EQ', value: '9001' },
            { propertyName: 'associations.company', operator: 'EQ', value: '700' },
          ],
        },
      ],
      sorts: [{ propertyName: 'hs_object_id', direction: 'ASCENDING' }],
      properties: ['email'],
      limit: 10,
    })
    expect(() =>
      searchRequest({ limit: 5, offset: 0, filters: { user_id: 'ann' } }, [], 5, undefined),
    ).toThrow(/user_id: 'ann'/)
    expect(
      searchRequest({ limit: 5, offset: 0, sort: 'updated_at', order: 'desc', filters: {} }, [], 5, '5')
        .sorts,
    ).toEqual([{ propertyName: 'lastmodifieddate', direction: 'DESCENDING' }])
  })
})
