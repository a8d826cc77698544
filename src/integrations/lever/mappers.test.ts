import { describe, expect, it } from 'vitest'
import fixture from './fixtures/opportunity.json' with { type: 'json' }
import { fromLeverOffer, fromLeverOpportunity, type LeverLookups } from './mappers.js'
import type { LeverOpportunity } from './types.js'

const opportunity = fixture as unknown as LeverOpportunity
const HIRED = 'reason-hired'
const WITHDREW = 'reason-withdrew'
const lookups: LeverLookups = {
  stages: new Map([
    [
      'b1b0e2a4-9d4f-4c1b-8f3e-7a6d5c4b3a21',
      { id: 'b1b0e2a4-9d4f-4c1b-8f3e-7a6d5c4b3a21', text: 'Recruiter screen' },
    ],
    ['offer', { id: 'offer', text: 'Offer' }],
    ['lead-new', { id: 'lead-new', text: 'New lead' }],
    ['onsite', { id: 'onsite', text: 'On-site interview' }],
  ]),
  reasons: new Map([
    [HIRED, { id: HIRED, text: 'Hired', type: 'hired' }],
    [WITHDREW, { id: WITHDREW, text: 'Withdrew', type: 'non-hired' }],
  ]),
}

describe('fromLeverOpportunity', () => {
  it('maps an active opportunity: contact as candidate, posting as job, owner as user, ms times', () => {
    const out = fromLeverOpportunity(opportunity, lookups)
    expect(out).toMatchObject({
      id: '5c86dbd7-8e0a-4d4e-9f4b-2f1f3c9c1a10',
      candidate_id: '0c5b7f1e-3a55-4c1c-9a7e-6d2f8b1e4c22',
      job_id: '3a2b1c0d-9e8f-4a7b-b6c5-d4e3f2a1b0c9',
      user_id: '9e1d2c3b-4a5f-4e6d-8c7b-1a2b3c4d5e6f',
      source: 'LinkedIn',
      status: 'SCREENING',
      original_status: 'Recruiter screen',
    })
    expect(out.created_at).toEqual(new Date(1714471200000))
    expect(out.updated_at).toEqual(new Date(1714557600123))
    expect(out.applied_at).toEqual(new Date(1714471200000))
    expect(out.hired_at).toBeUndefined()
    expect(out.raw).toBe(opportunity)
  })

  it('reads archived opportunities by their reason type, hired or not', () => {
    const hired = fromLeverOpportunity(
      { ...opportunity, stage: 'offer', archived: { archivedAt: 1714600000000, reason: HIRED } },
      lookups,
    )
    expect(hired).toMatchObject({ status: 'HIRED', original_status: 'Offer', original_substatus: 'Hired' })
    expect(hired.hired_at).toEqual(new Date(1714600000000))
    expect(hired.rejected_at).toBeUndefined()
    const withdrew = fromLeverOpportunity(
      { ...opportunity, archived: { archivedAt: 1714600000000, reason: WITHDREW } },
      lookups,
    )
    expect(withdrew).toMatchObject({ status: 'REJECTED', rejected_reason: 'Withdrew' })
    expect(withdrew.rejected_at).toEqual(new Date(1714600000000))
    const unknownReason = fromLeverOpportunity(
      { ...opportunity, archived: { archivedAt: 1, reason: 'gone' } },
      lookups,
    )
    expect(unknownReason.status).toBeUndefined()
    expect(unknownReason.original_substatus).toBe('gone')
  })

  it('leaves status out for a stage name that means no unified status, and job_id out without one posting', () => {
    expect(fromLeverOpportunity({ ...opportunity, stage: 'onsite' }, lookups).status).toBeUndefined()
    expect(fromLeverOpportunity({ ...opportunity, stage: 'lead-new' }, lookups).status).toBe('NEW')
    expect(fromLeverOpportunity({ ...opportunity, applications: [] }, lookups).job_id).toBeUndefined()
    // Without expand=applications, applications are bare ids: no posting to read.
    expect(fromLeverOpportunity({ ...opportunity, applications: ['app-1'] }, lookups).job_id).toBeUndefined()
  })
})

describe('fromLeverOffer', () => {
  it.each([
    ['draft', 'CREATED'],
    ['approval-sent', 'CREATED'],
    ['approved', 'CREATED'],
    ['sent', 'SENT'],
    ['sent-manually', 'SENT'],
    ['opened', 'SENT'],
    ['signed', 'ACCEPTED'],
    ['denied', 'denied'],
  ])('%s is %s', (status, expected) => {
    expect(fromLeverOffer({ id: 'o', status }).status).toBe(expected)
  })

  it('reads the sent and signed documents as sent_at and accepted_at', () => {
    expect(
      fromLeverOffer({
        id: 'o1',
        createdAt: 1714000000000,
        status: 'signed',
        creator: 'u1',
        sentDocument: { uploadedAt: 1714100000000 },
        signedDocument: { uploadedAt: 1714200000000 },
      }),
    ).toEqual({
      id: 'o1',
      created_at: new Date(1714000000000),
      status: 'ACCEPTED',
      creator_user_id: 'u1',
      sent_at: new Date(1714100000000),
      accepted_at: new Date(1714200000000),
    })
  })
})
