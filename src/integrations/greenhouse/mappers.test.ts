import { describe, expect, it } from 'vitest'
import fixture from './fixtures/application.json' with { type: 'json' }
import {
  fromGreenhouseApplication,
  fromGreenhouseOffer,
  parseGreenhouseTime,
  unifiedStatusOf,
} from './mappers.js'
import type { GreenhouseApplication } from './types.js'

const app = fixture as unknown as GreenhouseApplication

describe('fromGreenhouseApplication (Harvest v3)', () => {
  it('maps ids to strings and v3 created_at/updated_at to the unified ones', () => {
    const out = fromGreenhouseApplication(app)
    expect(out).toMatchObject({
      id: '48206132',
      candidate_id: '39151004',
      job_id: '107761',
      user_id: '92120',
      status: 'REJECTED',
      original_status: 'rejected',
    })
    expect((out.created_at as Date).toISOString()).toBe('2024-03-04T09:15:22.481Z')
    expect((out.applied_at as Date).toISOString()).toBe('2024-03-04T09:15:22.481Z')
    expect((out.updated_at as Date).toISOString()).toBe('2024-03-21T08:30:00.000Z')
    expect((out.rejected_at as Date).toISOString()).toBe('2024-03-20T16:02:10.004Z')
    expect(out.raw).toBe(app)
  })

  it('claims no stage it cannot name: v3 gives an active application only a stage id', () => {
    const out = fromGreenhouseApplication({ ...app, status: 'active', rejected_at: null })
    expect(out.status).toBeUndefined()
    expect(out.original_substatus).toBeUndefined()
    expect(out.rejected_at).toBeUndefined()
  })

  it('gives a prospect without a single job no job_id and no user_id without a recruiter', () => {
    const out = fromGreenhouseApplication({ ...app, prospect: true, job_id: null, recruiter_id: null })
    expect(out.job_id).toBeUndefined()
    expect(out.user_id).toBeUndefined()
  })
})

describe('unifiedStatusOf', () => {
  it.each([
    ['hired', 'HIRED'],
    ['rejected', 'REJECTED'],
    ['active', undefined],
    ['converted', undefined],
  ])('%s is %s', (status, expected) => {
    expect(unifiedStatusOf({ status })).toBe(expected)
  })
})

describe('fromGreenhouseOffer', () => {
  it('reads an accepted offer: resolved_at is accepted_at, the _on dates are their UTC days', () => {
    expect(
      fromGreenhouseOffer({
        id: 1142785,
        application_id: 48206132,
        created_at: '2024-03-10T12:00:00.000Z',
        updated_at: '2024-03-12T12:00:00.000Z',
        sent_on: '2024-03-11',
        resolved_at: '2024-03-12T11:59:59.000Z',
        start_on: '2024-04-01',
        status: 'accepted',
      }),
    ).toEqual({
      id: '1142785',
      created_at: new Date('2024-03-10T12:00:00.000Z'),
      updated_at: new Date('2024-03-12T12:00:00.000Z'),
      sent_at: new Date('2024-03-11T00:00:00.000Z'),
      start_at: new Date('2024-04-01T00:00:00.000Z'),
      accepted_at: new Date('2024-03-12T11:59:59.000Z'),
      status: 'ACCEPTED',
    })
  })

  it('tells a sent unresolved offer from a draft, and passes deprecated through', () => {
    expect(fromGreenhouseOffer({ id: 1, status: 'unresolved', sent_on: '2024-03-11' }).status).toBe('SENT')
    expect(fromGreenhouseOffer({ id: 1, status: 'unresolved', sent_on: null }).status).toBe('CREATED')
    expect(fromGreenhouseOffer({ id: 1, status: 'deprecated' }).status).toBe('deprecated')
    const rejected = fromGreenhouseOffer({ id: 1, status: 'rejected', resolved_at: '2024-03-12T00:00:00Z' })
    expect(rejected.rejected_at).toEqual(new Date('2024-03-12T00:00:00Z'))
    expect(rejected.accepted_at).toBeUndefined()
  })

  it('reads nothing from an unreadable time', () => {
    expect(parseGreenhouseTime('soon')).toBeUndefined()
    expect(parseGreenhouseTime(null)).toBeUndefined()
  })
})
