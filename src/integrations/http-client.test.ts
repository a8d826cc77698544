import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import type { ProviderTransport } from '../outbound/index.js'
import { ProviderClient, type ProviderRequest } from './http-client.js'

const client = (baseUrl: string) =>
  new ProviderClient({
    baseUrl,
    authHeaders: {},
    retry: { on: [], afterHeaders: [] },
    timeoutMs: 1000,
    maxRetries: 0,
    maxRetryWaitMs: 0,
    transport: {} as ProviderTransport,
  })

/** What the URL object made of the request, as undici's top-level API would have split it. */
function viaUrl(c: ProviderClient, path: string, base: string | undefined, query: ProviderRequest['query']) {
  const url = c.urlFor(path, base, query)
  return { origin: url.origin, path: url.pathname + url.search }
}

function viaTarget(
  c: ProviderClient,
  path: string,
  base: string | undefined,
  query: ProviderRequest['query'],
) {
  const target = c.targetFor(path, base, query)
  return target instanceof URL || typeof target === 'string'
    ? viaUrl(c, path, base, query)
    : { origin: target.origin, path: target.path }
}

/** Text the URL parser keeps as it is in a path or a query (or nearly: `'` is encoded in a query only). */
const plainPieces = ['a', 'Z', '0', '-', '_', '.', '~', '/', '?', '&', '=', '+', '%', '%2F', '%20', '%zz']
const plainishPieces = ["'", '!', '$', '(', ')', '*', ',', ';', ':', '@', '[', ']', '{', '}', '|', '^', '`']
/** Characters that make URL encode, resolve, cut or drop something. */
const oddPieces = [
  '..',
  '//',
  '#',
  '%2e',
  '%2E',
  ' ',
  '\t',
  '\n',
  '\\',
  '"',
  '<',
  '>',
  'é',
  '日本',
  '😀',
  '\ud800',
  '\u0000',
  '\u007f',
]
const textOf = (from: string[]) =>
  fc.array(fc.constantFrom(...from), { maxLength: 12 }).map((p) => p.join(''))
const text = fc.oneof(
  { weight: 3, arbitrary: textOf(plainPieces) },
  { weight: 2, arbitrary: textOf([...plainPieces, ...plainishPieces]) },
  { weight: 1, arbitrary: textOf([...plainPieces, ...plainishPieces, ...oddPieces]) },
)
const segment = fc.oneof(fc.constantFrom('v1', 'api', 'crm', 'objects', '.', '..', '%2e%2e'), text)
const path = fc.oneof(
  fc.array(segment, { maxLength: 5 }).map((s) => s.join('/')),
  fc.array(segment, { maxLength: 5 }).map((s) => `/${s.join('/')}`),
  text,
)
const bases = [
  'https://api.example.com',
  'https://api.example.com/',
  'https://api.example.com/v3',
  'https://api.example.com/v3/',
  'http://127.0.0.1:8080/api/projects//',
  'https://API.Example.com:443/v1',
  'https://user:pw@api.example.com/v1',
  'https://api.example.com/a b/é',
  'https://api.example.com/v1/../v2',
  'https://api.example.com/v1?fixed=1',
  'ftp://files.example.com/pub',
]
/** The plain bases (the first five) more often, so that most runs check the text join rather than the fallback. */
const base = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...bases.slice(0, 5)) },
  { weight: 1, arbitrary: fc.constantFrom(...bases) },
)
const query = fc.option(
  fc.dictionary(
    fc.oneof(fc.constantFrom('limit', 'after', 'q'), text),
    fc.option(fc.oneof(text, fc.string({ unit: 'binary' }), fc.integer()), { nil: undefined }),
    { maxKeys: 4 },
  ),
  { nil: undefined },
)

describe('ProviderClient.targetFor', () => {
  it('splits every request into the origin and path the URL object gave', () => {
    fc.assert(
      fc.property(
        base,
        fc.option(base, { nil: undefined, freq: 2 }),
        path,
        query,
        (base, otherBase, p, q) => {
          const c = client(base)
          let expected: unknown
          try {
            expected = viaUrl(c, p, otherBase, q)
          } catch (err) {
            expect(() => viaTarget(c, p, otherBase, q)).toThrow(
              (err as Error).constructor as ErrorConstructor,
            )
            return
          }
          expect(viaTarget(c, p, otherBase, q)).toEqual(expected)
        },
      ),
      { numRuns: 5000 },
    )
  })

  it('takes an absolute link on any origin as the URL object did, the base’s own without a parse', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...bases.slice(0, 5)),
        fc.constantFrom(
          'https://api.example.com',
          'https://API.example.com',
          'https://api.example.com:443',
          'https://api.example.com.evil.test',
          'https://api.example.com@evil.test',
          'http://api.example.com',
          'http://127.0.0.1:8080',
        ),
        path,
        query,
        (base, origin, p, q) => {
          const c = client(base)
          const link = `${origin}/${p.replace(/^\/+/, '')}`
          let expected: unknown
          try {
            expected = viaUrl(c, link, undefined, q)
          } catch {
            return
          }
          expect(viaTarget(c, link, undefined, q)).toEqual(expected)
        },
      ),
      { numRuns: 3000 },
    )
  })

  it('splits plain requests without falling back to a URL', () => {
    const c = client('https://api.example.com/crm/v3/')
    expect(c.targetFor('/objects/contacts', undefined, { limit: 100, after: 'a b', x: undefined })).toEqual({
      origin: 'https://api.example.com',
      path: '/crm/v3/objects/contacts?limit=100&after=a+b',
    })
    expect(
      c.targetFor('https://api.example.com/crm/v3/objects?after=x%2Fy', undefined, { limit: 1 }),
    ).toEqual({ origin: 'https://api.example.com', path: '/crm/v3/objects?after=x%2Fy&limit=1' })
    expect(c.targetFor('objects', 'https://ingest.example.com', {})).toEqual({
      origin: 'https://ingest.example.com',
      path: '/objects',
    })
  })
})
