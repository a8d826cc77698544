import { describe, expect, it } from 'vitest'
import {
  credentialsFromTokens,
  grantedPermissions,
  msUntilExpiry,
  parseTokenResponse,
  TokenEndpointError,
} from './token-set.js'

const now = new Date('2026-01-01T00:00:00.000Z')

describe('token endpoint answers', () => {
  it('read a success, with expires_in as a number or a string', () => {
    expect(parseTokenResponse(200, { access_token: 'a', expires_in: '3599', token_type: 'Bearer' })).toEqual({
      access_token: 'a',
      expires_in: 3599,
      token_type: 'Bearer',
    })
  })

  it('read a lifetime no Date can hold, a negative or zero one, or blank text, as none given', () => {
    for (const expires_in of [1e300, '1e400', -60, 'soon', 0, '', ' ']) {
      const tokens = parseTokenResponse(200, { access_token: 'a', expires_in })
      expect(tokens).toEqual({ access_token: 'a' })
      expect(credentialsFromTokens(tokens, {}, now).expiry_date).toBeUndefined()
    }
  })

  it('turn an OAuth error into a TokenEndpointError that says whether to re-authorize or wait', () => {
    const grant = (() => {
      try {
        parseTokenResponse(400, {
          error: 'invalid_grant',
          error_description: 'Token has been expired or revoked.',
        })
      } catch (err) {
        return err as TokenEndpointError
      }
    })()
    expect(grant).toBeInstanceOf(TokenEndpointError)
    expect(grant?.isInvalidGrant).toBe(true)
    expect(grant?.message).toBe('invalid_grant: Token has been expired or revoked.')
    expect(() => parseTokenResponse(503, 'Service Unavailable')).toThrow(TokenEndpointError)
    try {
      parseTokenResponse(503, 'Service Unavailable')
    } catch (err) {
      expect((err as TokenEndpointError).isTransient).toBe(true)
      expect((err as TokenEndpointError).isInvalidGrant).toBe(false)
    }
  })

  it("read HubSpot's refusal of an unknown refresh token as a dead grant", () => {
    try {
      parseTokenResponse(400, {
        status: 'BAD_REFRESH_TOKEN',
        message: 'missing or invalid refresh token',
        correlationId: 'c',
      })
      expect.unreachable()
    } catch (err) {
      expect((err as TokenEndpointError).isInvalidGrant).toBe(true)
      expect((err as TokenEndpointError).message).toBe('BAD_REFRESH_TOKEN: missing or invalid refresh token')
    }
  })

  it('refuse a 200 without an access token', () => {
    expect(() => parseTokenResponse(200, {})).toThrow(/invalid_response/)
  })
})

describe('credentials after a refresh', () => {
  const previous = {
    access_token: 'old',
    refresh_token: 'r1',
    api_url: 'http://emu',
    expiry_date: 'x',
    refresh_error: 'invalid_grant',
  }

  it('keep the old refresh token when the provider sends none', () => {
    const c = credentialsFromTokens({ access_token: 'new', expires_in: 60 }, previous, now)
    expect(c).toEqual({
      access_token: 'new',
      refresh_token: 'r1',
      api_url: 'http://emu',
      expiry_date: '2026-01-01T00:01:00.000Z',
    })
  })

  it('take a rotated refresh token', () => {
    expect(
      credentialsFromTokens({ access_token: 'new', refresh_token: 'r2' }, previous, now).refresh_token,
    ).toBe('r2')
  })

  it('know how long a token has left', () => {
    expect(msUntilExpiry({ expiry_date: '2026-01-01T00:01:00.000Z' }, now.getTime())).toBe(60_000)
    expect(msUntilExpiry({}, now.getTime())).toBeUndefined()
  })
})

describe('granted permissions', () => {
  const map = { a_read: ['s1'], a_write: ['s2'], b_write: [] }

  it('drop permissions whose scopes the user did not grant', () => {
    expect(grantedPermissions(['a_read', 'a_write', 'b_write'], map, 's1 openid')).toEqual([
      'a_read',
      'b_write',
    ])
  })

  it('keep everything when the provider does not say', () => {
    expect(grantedPermissions(['a_read', 'a_write'], map, undefined)).toEqual(['a_read', 'a_write'])
  })
})
