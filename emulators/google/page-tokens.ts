import { invalidArgument } from './errors.js'

/**
 * Google page tokens are opaque, bound to the listing they came from, and refused anywhere else: "When
 * paginating, all other parameters provided to `List…` must match the call that provided the page token"
 * (googleapis/googleapis@99b25248:google/analytics/admin/v1beta/analytics_admin.proto, page_token; https://google.aip.dev/158).
 */
export function encodePageToken(listing: string, offset: number): string {
  return Buffer.from(JSON.stringify({ l: listing, o: offset })).toString('base64url')
}

export function decodePageToken(token: unknown, listing: string): number {
  if (token === undefined || token === '') return 0
  try {
    const parsed = JSON.parse(Buffer.from(String(token), 'base64url').toString('utf8')) as {
      l?: string
      o?: number
    }
    if (parsed.l === listing && typeof parsed.o === 'number' && parsed.o >= 0) return parsed.o
  } catch {
    // falls through to the refusal below
  }
  throw invalidArgument('The page token is invalid or does not match the request.')
}
