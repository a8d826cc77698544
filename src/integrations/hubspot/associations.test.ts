import { describe, expect, it } from 'vitest'
import { ApiError } from '../../errors.js'
import type { HandlerContext } from '../types.js'
import { readAssociatedIds } from './associations.js'

/** A context whose client answers the given batch bodies in turn and records what was asked. */
function contextAnswering(...answers: unknown[]) {
  const asked: unknown[] = []
  const ctx = {
    client: {
      json: async (req: { body: unknown }) => {
        asked.push(req.body)
        return answers.shift()
      },
    },
  } as unknown as HandlerContext
  return { ctx, asked }
}

describe('HubSpot association batch reads', () => {
  it('follows each contact’s paging cursor and keeps ids as strings', async () => {
    const { ctx, asked } = contextAnswering(
      {
        status: 'COMPLETE',
        results: [{ from: { id: '1' }, to: [{ toObjectId: 10 }], paging: { next: { after: 'c1' } } }],
        errors: [{ category: 'OBJECT_NOT_FOUND', subCategory: 'crm.associations.NO_ASSOCIATIONS_FOUND' }],
      },
      { status: 'COMPLETE', results: [{ from: { id: '1' }, to: [{ toObjectId: 11 }] }] },
    )
    const ids = await readAssociatedIds(ctx, ['1', '2'], 'deals')
    expect(ids).toEqual(
      new Map([
        ['1', ['10', '11']],
        ['2', []],
      ]),
    )
    expect(asked).toEqual([{ inputs: [{ id: '1' }, { id: '2' }] }, { inputs: [{ id: '1', after: 'c1' }] }])
  })

  it('fails naming the contact when the batch reports an error other than "no associations"', async () => {
    const { ctx } = contextAnswering({
      status: 'COMPLETE',
      results: [],
      errors: [
        {
          category: 'RATE_LIMITS',
          message: 'You have reached your secondly limit.',
          context: { fromObjectId: ['7'] },
        },
      ],
    })
    const err = await readAssociatedIds(ctx, ['7'], 'companies').catch((e: unknown) => e)
    expect(err).toBeInstanceOf(ApiError)
    expect((err as ApiError).statusCode).toBe(502)
    expect((err as ApiError).message).toContain('companies of contact 7')
  })
})
