import { createHmac } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import {
  LEVER_CALL_MAX_AGE_MS,
  LEVER_CALL_MAX_SKEW_MS,
  leverApplicationPushes,
  leverCallIsSigned,
} from './native-webhooks.js'

// The verification Lever's documentation gives (#securing-webhooks): hex HMAC-SHA256 of token + triggeredAt.
const sign = (key: string, token: string, at: number) =>
  createHmac('sha256', key).update(`${token}${at}`).digest('hex')

const call = (body: Record<string, unknown>) => ({ headers: {}, body, rawBody: JSON.stringify(body) })

describe('leverCallIsSigned', () => {
  const keys = JSON.stringify({ candidateStageChange: 'stage-key', candidateDeleted: 'delete-key' })
  const token = 'be58f711f349c7780e4579cd7c63341ac6f881e4dccc3154'
  const at = 1431454330072

  it('accepts a call signed with the key of the Lever webhook for its event', () => {
    const signature = sign('stage-key', token, at)
    expect(
      leverCallIsSigned(call({ event: 'candidateStageChange', token, triggeredAt: at, signature }), keys, at),
    ).toBe(true)
  })

  it('refuses another key, another event, a changed time, and missing parts', () => {
    const signature = sign('stage-key', token, at)
    expect(
      leverCallIsSigned(call({ event: 'candidateDeleted', token, triggeredAt: at, signature }), keys, at),
    ).toBe(false)
    expect(
      leverCallIsSigned(call({ event: 'applicationCreated', token, triggeredAt: at, signature }), keys, at),
    ).toBe(false)
    expect(
      leverCallIsSigned(
        call({ event: 'candidateStageChange', token, triggeredAt: at + 1, signature }),
        keys,
        at,
      ),
    ).toBe(false)
    expect(leverCallIsSigned(call({ event: 'candidateStageChange', token, triggeredAt: at }), keys, at)).toBe(
      false,
    )
    expect(
      leverCallIsSigned(
        call({ event: 'candidateStageChange', token, triggeredAt: at, signature: 'short' }),
        keys,
        at,
      ),
    ).toBe(false)
    expect(
      leverCallIsSigned(call({ event: 'candidateStageChange', token, triggeredAt: at, signature }), 'x', at),
    ).toBe(false)
  })

  it('refuses a signed call triggered too long ago or too far ahead, and accepts one inside the window', () => {
    const body = {
      event: 'candidateStageChange',
      token,
      triggeredAt: at,
      signature: sign('stage-key', token, at),
    }
    expect(leverCallIsSigned(call(body), keys, at + LEVER_CALL_MAX_AGE_MS)).toBe(true)
    expect(leverCallIsSigned(call(body), keys, at + LEVER_CALL_MAX_AGE_MS + 1)).toBe(false)
    expect(leverCallIsSigned(call(body), keys, at - LEVER_CALL_MAX_SKEW_MS)).toBe(true)
    expect(leverCallIsSigned(call(body), keys, at - LEVER_CALL_MAX_SKEW_MS - 1)).toBe(false)
  })

  it('remembers the token as long as the call would be admitted', () => {
    const body = { event: 'candidateStageChange', token, triggeredAt: String(at), signature: 'x' }
    expect(leverApplicationPushes.callToken?.(call(body))).toEqual({
      token,
      keepUntilMs: at + LEVER_CALL_MAX_AGE_MS,
    })
  })
})

describe('what a Lever call names as changed', () => {
  const push = (event: 'created' | 'updated' | 'deleted') => ({ event, credentials: {}, settings: {} })
  const named = (event: string) => call({ event, data: { opportunityId: 'opp-1', contactId: 'c-1' } })

  it("names the opportunity of a call of the webhook's event, to be read back (deleted: checked gone, then delivered as its id)", () => {
    expect(leverApplicationPushes.records(named('candidateStageChange'), push('updated'))).toEqual({
      ids: ['opp-1'],
      removed: false,
    })
    expect(leverApplicationPushes.records(named('candidateDeleted'), push('deleted'))).toEqual({
      ids: ['opp-1'],
      removed: true,
    })
  })

  it("names nothing for a call of another event than the webhook's", () => {
    expect(leverApplicationPushes.records(named('candidateDeleted'), push('updated'))).toEqual({
      ids: [],
      removed: true,
    })
    expect(leverApplicationPushes.records(named('applicationCreated'), push('updated'))).toMatchObject({
      ids: [],
    })
  })
})
