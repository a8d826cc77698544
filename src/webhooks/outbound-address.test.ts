import { describe, expect, it } from 'vitest'
import { guardedLookup, hookUrlProblem, refusedReason } from './outbound-address.js'

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
  ])('refuses %s (%s) unless allowed', (ip, range) => {
    expect(refusedReason(ip, [])).toContain(range)
    expect(refusedReason(ip, [range as 'loopback'])).toBeUndefined()
  })

  it('lets public addresses through and never multicast', () => {
    expect(refusedReason('93.184.216.34', [])).toBeUndefined()
    expect(refusedReason('2606:2800:220:1::1', [])).toBeUndefined()
    expect(refusedReason('224.0.0.1', ['loopback', 'private', 'link-local'])).toMatch(/multicast/)
  })
})

describe('hookUrlProblem', () => {
  it('wants http(s)', () => {
    expect(hookUrlProblem('ftp://example.com/x', [])).toMatch(/http/)
    expect(hookUrlProblem('not a url', [])).toMatch(/not a URL/)
    expect(hookUrlProblem('https://example.com/hook', [])).toBeUndefined()
  })

  it('refuses literal internal addresses and localhost at save time', () => {
    expect(hookUrlProblem('http://127.0.0.1:9/x', [])).toMatch(/loopback/)
    expect(hookUrlProblem('http://localhost:9/x', [])).toMatch(/loopback/)
    expect(hookUrlProblem('http://[::1]:9/x', [])).toMatch(/loopback/)
    expect(hookUrlProblem('http://169.254.169.254/latest', [])).toMatch(/link-local/)
    expect(hookUrlProblem('http://127.0.0.1:9/x', ['loopback'])).toBeUndefined()
  })

  it('refuses credentials in the URL', () => {
    expect(hookUrlProblem('https://u:p@example.com/', [])).toMatch(/credentials/)
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
})
