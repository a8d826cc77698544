import { describe, expect, it } from 'vitest'
import { authFieldsOf } from '../integrations/auth-methods.js'
import { INTEGRATIONS } from '../integrations/registry.js'
import type { Credentials, IntegrationDefinition } from '../integrations/types.js'
import { addressProblem, givesOwnAddress, secretsToResupply } from './addresses.js'

/** Credentials with every field of every auth method given, at a public address. */
function full(integration: IntegrationDefinition): Credentials {
  const c: Record<string, string> = {}
  for (const f of authFieldsOf(integration)) {
    c[f.name] =
      f.options?.[0] ?? (f.name.endsWith('_url') ? 'https://one.example.com/api' : `${f.name}-value`)
  }
  return c
}

const secretNames = (i: IntegrationDefinition) =>
  authFieldsOf(i)
    .filter((f) => f.secret)
    .map((f) => f.name)

describe('secretsToResupply', () => {
  it.each(INTEGRATIONS.map((i) => [i.type, i] as const))(
    '%s: a new api_url needs every stored secret again',
    (_type, integration) => {
      const current = full(integration)
      if (!('api_url' in current)) return
      const moved = { api_url: 'https://two.example.com/api' }
      expect(secretsToResupply(integration, current, moved)).toEqual(secretNames(integration))
      const all = Object.fromEntries(secretNames(integration).map((n) => [n, 'new']))
      expect(secretsToResupply(integration, current, { ...moved, ...all })).toEqual([])
    },
  )

  it.each(
    INTEGRATIONS.flatMap((i) => {
      const region = authFieldsOf(i).find((f) => f.name === 'region' && f.options && f.options.length > 1)
      return region ? [[i.type, i, region.options!] as const] : []
    }),
  )('%s: another region needs the secrets again', (_type, integration, options) => {
    const current: Record<string, string | undefined> = { ...full(integration), region: options[0]! }
    delete current.api_url
    expect(secretsToResupply(integration, current, { region: options[1]! })).toEqual(
      secretNames(integration).filter((n) => current[n]),
    )
  })

  it('asks nothing when the address stays', () => {
    for (const integration of INTEGRATIONS) {
      const current = full(integration)
      expect(secretsToResupply(integration, current, {})).toEqual([])
      expect(secretsToResupply(integration, current, { api_url: current.api_url })).toEqual([])
    }
  })
})

describe('addressProblem', () => {
  it('names the field of a malformed or refused address, and accepts a public one', () => {
    for (const integration of INTEGRATIONS) {
      const c = full(integration)
      if (!('api_url' in c)) continue
      expect(addressProblem(integration, c, [])).toBeUndefined()
      expect(addressProblem(integration, { ...c, api_url: 'not a url' }, [])).toContain('auth.api_url')
      expect(addressProblem(integration, { ...c, api_url: 'http://10.1.2.3/' }, [])).toContain('auth.api_url')
      expect(addressProblem(integration, { ...c, api_url: 'http://10.1.2.3/' }, ['private'])).toBeUndefined()
    }
  })
})

describe('givesOwnAddress', () => {
  it('is true exactly when a *_url field is given, for every integration', () => {
    for (const integration of INTEGRATIONS) {
      const urls = authFieldsOf(integration).filter((f) => !f.secret && f.name.endsWith('_url'))
      const without = Object.fromEntries(
        Object.entries(full(integration)).filter(([name]) => !name.endsWith('_url')),
      )
      expect(givesOwnAddress(integration, without), integration.type).toBe(false)
      for (const field of urls) {
        expect(
          givesOwnAddress(integration, { ...without, [field.name]: 'https://mine.example.com' }),
          `${integration.type}.${field.name}`,
        ).toBe(true)
      }
    }
  })
})
