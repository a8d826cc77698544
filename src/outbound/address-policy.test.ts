import { describe, expect, it } from 'vitest'
import { allowedEndpoint, guardedLookup, outboundUrlProblem, refusedReason } from './address-policy.js'

describe('refusedReason', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['::1', 'loopback'],
    ['0.0.0.0', 'loopback'],
    ['10.1.2.3', 'private'],
    ['172.20.0.1', 'private'],
    ['192.168.1.1', 'private'],
    ['fd00::1', 'private'],
    ['169.254.169.254', 'link-local'],
    ['fe80::1', 'link-local'],
    ['::ffff:10.0.0.1', 'private'],
    ['198.18.0.1', 'private'],
    ['198.19.255.254', 'private'],
    ['fec0::1', 'private'],
    ['64:ff9b:1::a00:1', 'private'],
    // IPv6 forms that carry an IPv4 address: judged by that address.
    ['64:ff9b::a9fe:a9fe', 'link-local'],
    ['64:ff9b::127.0.0.1', 'loopback'],
    ['2002:a9fe:a9fe::1', 'link-local'],
    ['2002:7f00:1::', 'loopback'],
    ['::127.0.0.1', 'loopback'],
    ['::a00:1', 'private'],
    ['::ffff:169.254.169.254', 'link-local'],
  ])('refuses %s (%s) unless allowed', (ip, range) => {
    expect(refusedReason(ip, [])).toContain(range)
    expect(refusedReason(ip, [range as 'loopback'])).toBeUndefined()
  })

  it('lets public addresses through and never multicast', () => {
    expect(refusedReason('93.184.216.34', [])).toBeUndefined()
    expect(refusedReason('2606:2800:220:1::1', [])).toBeUndefined()
    expect(refusedReason('224.0.0.1', ['loopback', 'private', 'link-local'])).toMatch(/multicast/)
    expect(refusedReason('64:ff9b::5db8:d822', [])).toBeUndefined()
    expect(refusedReason('2002:5db8:d822::1', [])).toBeUndefined()
    expect(refusedReason('192.0.2.1', ['loopback', 'private', 'link-local'])).toMatch(/reserved/)
  })

  it('lets an allowed endpoint through on its port only, in any form of its address', () => {
    const allowed = [allowedEndpoint('127.0.0.1:8123')!, allowedEndpoint('[0:0::1]:8123')!]
    expect(refusedReason('127.0.0.1', allowed, 8123)).toBeUndefined()
    expect(refusedReason('::ffff:127.0.0.1', allowed, 8123)).toBeUndefined()
    expect(refusedReason('::1', allowed, 8123)).toBeUndefined()
    expect(refusedReason('127.0.0.1', allowed, 8124)).toContain('loopback')
    expect(refusedReason('127.0.0.2', allowed, 8123)).toContain('loopback')
    expect(refusedReason('127.0.0.1', allowed)).toContain('loopback')
  })
})

describe('allowedEndpoint', () => {
  it('takes a literal address and a port, nothing else', () => {
    expect(allowedEndpoint('127.0.0.1:80')).toBe('127.0.0.1:80')
    expect(allowedEndpoint('[::FFFF:7f00:1]:80')).toBe('[::ffff:7f00:1]:80')
    for (const wrong of [
      'localhost:80',
      '127.0.0.1',
      '127.0.0.1:0',
      '127.0.0.1:65536',
      '::1:80',
      'loopback:1',
    ])
      expect(allowedEndpoint(wrong), wrong).toBeUndefined()
  })
})

describe('outboundUrlProblem', () => {
  it('wants http(s)', () => {
    expect(outboundUrlProblem('hook_url', 'ftp://example.com/x', [])).toMatch(/http/)
    expect(outboundUrlProblem('hook_url', 'not a url', [])).toMatch(/not a URL/)
    expect(outboundUrlProblem('hook_url', 'https://example.com/hook', [])).toBeUndefined()
  })

  it('refuses literal internal addresses and localhost at save time', () => {
    expect(outboundUrlProblem('hook_url', 'http://127.0.0.1:9/x', [])).toMatch(/loopback/)
    expect(outboundUrlProblem('hook_url', 'http://localhost:9/x', [])).toMatch(/loopback/)
    expect(outboundUrlProblem('hook_url', 'http://[::1]:9/x', [])).toMatch(/loopback/)
    expect(outboundUrlProblem('hook_url', 'http://169.254.169.254/latest', [])).toMatch(/link-local/)
    expect(outboundUrlProblem('hook_url', 'http://127.0.0.1:9/x', ['loopback'])).toBeUndefined()
    expect(outboundUrlProblem('hook_url', 'http://127.0.0.1:9/x', ['127.0.0.1:9'])).toBeUndefined()
    expect(outboundUrlProblem('hook_url', 'http://localhost:9/x', ['127.0.0.1:9'])).toBeUndefined()
    expect(outboundUrlProblem('hook_url', 'http://127.0.0.1/x', ['127.0.0.1:80'])).toBeUndefined()
    expect(outboundUrlProblem('hook_url', 'http://127.0.0.1:10/x', ['127.0.0.1:9'])).toMatch(/loopback/)
  })

  it('wants https where asked, except for an allowed literal address', () => {
    const httpsOnly = { httpsOnly: true }
    expect(outboundUrlProblem('authorize_url', 'http://idp.example.com/a', [], httpsOnly)).toMatch(/https/)
    expect(outboundUrlProblem('authorize_url', 'https://idp.example.com/a', [], httpsOnly)).toBeUndefined()
    expect(
      outboundUrlProblem('authorize_url', 'http://127.0.0.1:9/a', ['loopback'], httpsOnly),
    ).toBeUndefined()
    expect(outboundUrlProblem('authorize_url', 'http://127.0.0.1:9/a', [], httpsOnly)).toMatch(/loopback/)
  })

  it('refuses credentials in the URL', () => {
    expect(outboundUrlProblem('hook_url', 'https://u:p@example.com/', [])).toMatch(/credentials/)
  })
})

describe('guardedLookup', () => {
  it('refuses a name that resolves to a guarded address, and passes it when allowed', async () => {
    const resolve = (allowed: ('loopback' | 'private' | 'link-local')[]) =>
      new Promise<string>((done) => {
        guardedLookup(allowed)('localhost', {}, (err, address) => done(err ? err.message : String(address)))
      })
    expect(await resolve([])).toMatch(/refused/)
    expect(await resolve(['loopback'])).toMatch(/^(127\.0\.0\.1|::1)$/)
  })

  it('names the range a name resolves into, never the address: a saved internal name would reveal it', async () => {
    const refusal = await new Promise<string>((done) => {
      guardedLookup([])('localhost', {}, (err) => done(err ? err.message : 'passed'))
    })
    expect(refusal).toBe(
      'refused to connect to localhost: an address localhost resolves to is in a loopback range; ' +
        'the operator can allow it with UNIGATE_OUTBOUND_ALLOW_ADDRESSES=loopback',
    )
    expect(refusedReason('::ffff:10.1.2.3', [], undefined, 'db.internal')).toBe(
      'an address db.internal resolves to carries an IPv4 address that is in a private range; ' +
        'the operator can allow it with UNIGATE_OUTBOUND_ALLOW_ADDRESSES=private',
    )
    // A literal address is the caller's own words: it is named.
    expect(refusedReason('::ffff:10.1.2.3', [])).toMatch(
      /^::ffff:10\.1\.2\.3 carries 10\.1\.2\.3 is in a private range/,
    )
  })

  it('passes a name resolving to an allowed endpoint only for a lookup of its port', async () => {
    const resolve = (port: number) =>
      new Promise<string>((done) => {
        guardedLookup(['127.0.0.1:8123', allowedEndpoint('[::1]:8123')!], port)(
          'localhost',
          {},
          (err, address) => done(err ? err.message : String(address)),
        )
      })
    expect(await resolve(8123)).toMatch(/^(127\.0\.0\.1|::1)$/)
    expect(await resolve(8124)).toMatch(/refused/)
  })
})
