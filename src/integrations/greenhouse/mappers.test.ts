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
  it('maps ids to strings; created_at is both created_at and applied_at (v3 has no applied_at)', () => {
    const out = fromGreenhouseApplication(app)
    expect(out).toMatchObject({
      id: '48206132',
      candidate_id: '39151004',
      job_id: '107761',
      user_id: '92120',
      status: 'REJECTED',
      original_status: 'rejected',
      original_substatus: 'Phone Interview',
    })
    expect((out.created_at as Date).toISOString()).toBe('2024-03-04T09:15:22.481Z')
    expect(out.applied_at).toEqual(out.created_at)
    expect((out.updated_at as Date).toISOString()).toBe('2024-03-21T08:30:00.000Z')
    expect((out.rejected_at as Date).toISOString()).toBe('2024-03-20T16:02:10.004Z')
    expect(out.rejected_reason).toBeUndefined()
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

  it('turns custom fields keyed by name_key into metadata with formats', () => {
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

  it('gives a prospect no job_id (its jobs are prospective_job_ids) and no user_id without a recruiter', () => {
    const out = fromGreenhouseApplication({
      ...app,
      prospect: true,
      job_id: null,
      prospective_job_ids: [1, 2],
      recruiter_id: null,
      status: 'in_process',
      stage_name: null,
    })
    expect(out.job_id).toBeUndefined()
    expect(out.user_id).toBeUndefined()
    expect(out.status).toBeUndefined()
  })

  it('gives a prospect, who has not applied yet, no applied_at; created_at is still when it was added', () => {
    const out = fromGreenhouseApplication({ ...app, prospect: true } as GreenhouseApplication)
    expect(out.applied_at).toBeUndefined()
    expect(out.created_at).toEqual(new Date(app.created_at as string))
  })
})

describe('source and rejected_reason', () => {
  it('are the looked-up names of source_id and rejection_reason_id; unknown or null ids give none', () => {
    const names = {
      sources: new Map([[7, 'Indeed']]),
      rejectionReasons: new Map([[8, 'Lacking skill(s)/qualification(s)']]),
    }
    const out = fromGreenhouseApplication({ ...app, source_id: 7, rejection_reason_id: 8 }, names)
    expect(out.source).toBe('Indeed')
    expect(out.rejected_reason).toBe('Lacking skill(s)/qualification(s)')
    const none = fromGreenhouseApplication({ ...app, source_id: 99, rejection_reason_id: null }, names)
    expect(none.source).toBeUndefined()
    expect(none.rejected_reason).toBeUndefined()
  })
})

describe('unifiedStatusOf', () => {
  it.each([
    ['hired', 'Offer', 'HIRED'],
    ['rejected', 'Face to Face', 'REJECTED'],
    ['in_process', 'Application Review', 'REVIEWING'],
    ['in_process', 'Preliminary Phone Screen', 'SCREENING'],
    ['in_process', 'Reference Check', 'BACKGROUND_CHECK'],
    ['in_process', 'Offer', 'OFFERED'],
    ['in_process', 'Face to Face', undefined],
    ['converted', undefined, undefined],
  ])('%s at %s is %s', (status, stage, expected) => {
    expect(unifiedStatusOf({ status, stage_name: stage ?? null })).toBe(expected)
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
        starts_on: '2024-04-01',
        status: 'Accepted',
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

  it('tells a sent created offer from a draft, and passes deprecated through', () => {
    expect(fromGreenhouseOffer({ id: 1, status: 'created', sent_on: '2024-03-11' }).status).toBe('SENT')
    expect(fromGreenhouseOffer({ id: 1, status: 'Created', sent_on: null }).status).toBe('CREATED')
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
