import { describe, expect, it } from 'vitest'
import fixture from './fixtures/application.json' with { type: 'json' }
import {
  fromGreenhouseApplication,
  fromGreenhouseOffer,
  parseGreenhouseTime,
  unifiedStatusOf,
} from './mappers.js'
import { planPages } from './pages.js'
import type { GreenhouseApplication } from './types.js'

const app = fixture as unknown as GreenhouseApplication

describe('fromGreenhouseApplication', () => {
  it('maps ids to strings, applied_at to created_at and last_activity_at to updated_at', () => {
    const out = fromGreenhouseApplication(app)
    expect(out).toMatchObject({
      id: '48206132',
      candidate_id: '39151004',
      job_id: '107761',
      user_id: '92120',
      source: 'Indeed',
      status: 'REJECTED',
      original_status: 'rejected',
      original_substatus: 'Phone Interview',
      rejected_reason: 'Lacking skill(s)/qualification(s)',
    })
    expect((out.created_at as Date).toISOString()).toBe('2024-03-04T09:15:22.481Z')
    expect(out.applied_at).toEqual(out.created_at)
    expect((out.updated_at as Date).toISOString()).toBe('2024-03-21T08:30:00.000Z')
    expect((out.rejected_at as Date).toISOString()).toBe('2024-03-20T16:02:10.004Z')
    expect(out.raw).toBe(app)
  })

  it('uses the question as the answer id, and an empty list for an unanswered question', () => {
    expect(fromGreenhouseApplication(app).answers).toEqual([
      {
        question_id: 'How did you hear about this job?',
        question: 'How did you hear about this job?',
        answers: ['A friend'],
      },
      { question_id: 'Website', question: 'Website', answers: [] },
    ])
  })

  it('turns keyed custom fields into metadata with formats', () => {
    expect(fromGreenhouseApplication(app).metadata).toEqual([
      { id: 'bio', slug: 'bio', extra_data: { name: 'Bio' }, format: 'TEXTAREA', value: 'Likes Rust' },
      {
        id: 'salary_expectation',
        slug: 'salary_expectation',
        extra_data: { name: 'Salary expectation' },
        format: 'CURRENCY',
        value: { value: 90000, currency: 'EUR' },
      },
      { id: 'empty_one', slug: 'empty_one', extra_data: { name: 'Empty' }, format: 'TEXT', value: null },
    ])
  })

  it('gives a prospect with several jobs no job_id and no user_id without a recruiter', () => {
    const prospect = {
      ...app,
      prospect: true,
      recruiter: null,
      jobs: [{ id: 1 }, { id: 2 }],
      status: 'active',
    }
    const out = fromGreenhouseApplication(prospect as GreenhouseApplication)
    expect(out.job_id).toBeUndefined()
    expect(out.user_id).toBeUndefined()
  })

  it('gives a prospect, who has not applied yet, no applied_at; created_at is still when it was added', () => {
    const out = fromGreenhouseApplication({ ...app, prospect: true } as GreenhouseApplication)
    expect(out.applied_at).toBeUndefined()
    expect(out.created_at).toEqual(new Date(app.applied_at as string))
  })
})

describe('unifiedStatusOf', () => {
  it.each([
    ['hired', 'Offer', 'HIRED'],
    ['rejected', 'Face to Face', 'REJECTED'],
    ['active', 'Application Review', 'REVIEWING'],
    ['active', 'Preliminary Phone Screen', 'SCREENING'],
    ['active', 'Reference Check', 'BACKGROUND_CHECK'],
    ['active', 'Offer', 'OFFERED'],
    ['active', 'Face to Face', undefined],
    ['active', 'Take Home Test', undefined],
    ['converted', undefined, undefined],
  ])('%s at %s is %s', (status, stage, expected) => {
    expect(unifiedStatusOf({ status, current_stage: stage ? { id: 1, name: stage } : null })).toBe(expected)
  })
})

describe('fromGreenhouseOffer', () => {
  it('reads an accepted offer: resolved_at is accepted_at, the dates are their UTC days', () => {
    expect(
      fromGreenhouseOffer({
        id: 1142785,
        created_at: '2024-03-10T12:00:00.000Z',
        updated_at: '2024-03-12T12:00:00.000Z',
        sent_at: '2024-03-11',
        resolved_at: '2024-03-12T11:59:59.000Z',
        starts_at: '2024-04-01',
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
    expect(fromGreenhouseOffer({ id: 1, status: 'unresolved', sent_at: '2024-03-11' }).status).toBe('SENT')
    expect(fromGreenhouseOffer({ id: 1, status: 'unresolved', sent_at: null }).status).toBe('CREATED')
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

describe('planPages', () => {
  it('asks for one page when one page size holds the window', () => {
    expect(planPages(0, 100)).toEqual({ perPage: 100, page: 1, skip: 0 })
    expect(planPages(25, 25)).toEqual({ perPage: 25, page: 2, skip: 0 })
    // 10..34 fits in the first page of 35.
    expect(planPages(10, 25)).toEqual({ perPage: 35, page: 1, skip: 10 })
  })

  it('falls back to pages of 500 from the one holding offset', () => {
    expect(planPages(1200, 600)).toEqual({ perPage: 500, page: 3, skip: 200 })
    expect(planPages(0, 1000)).toEqual({ perPage: 500, page: 1, skip: 0 })
  })

  it('always covers the window from its first row', () => {
    for (const [offset, limit] of [
      [0, 1],
      [7, 3],
      [499, 2],
      [99_999, 1000],
      [333, 333],
    ] as const) {
      const plan = planPages(offset, limit)
      expect((plan.page - 1) * plan.perPage + plan.skip).toBe(offset)
      expect(plan.perPage).toBeLessThanOrEqual(500)
      expect(plan.skip).toBeLessThan(plan.perPage)
    }
  })
})
