import type { Config } from '../config.js'
import { ApiError } from '../errors.js'
import { regionOfConnectionId } from './names.js'

/** The region a connection lives in and the base address that serves it. */
export function regionAddress(config: Config, connectionId: string): { region: string; baseUrl: string } {
  const region = regionOfConnectionId(connectionId) ?? config.region
  const known = config.regionUrls[region as keyof Config['regionUrls']]
  return {
    region,
    baseUrl: (known ?? (region === config.region ? config.publicUrl : '')).replace(/\/+$/, ''),
  }
}

/**
 * A deployment serves one region. A connection created in another region is not here, so instead of a
 * bare 404 the client is told which address serves it (421 Misdirected Request: the request reached a
 * server that cannot answer for it).
 */
export function checkRegion(config: Config, connectionId: string, path: string): void {
  const region = regionOfConnectionId(connectionId)
  if (!region || region === config.region) return
  const { baseUrl } = regionAddress(config, connectionId)
  // The URL keeps the connection but no other parameter: a token must not be echoed back.
  const url = `${baseUrl}${path}?connection=${encodeURIComponent(connectionId)}`
  const message = baseUrl
    ? `connection ${connectionId} lives in region ${region}; this server serves region ${config.region}. Use ${url}`
    : `connection ${connectionId} lives in region ${region}; this server serves region ${config.region}, and no address is configured for ${region} (UNIGATE_URL_${region.toUpperCase()})`
  throw new ApiError(421, message, {}, { error: 'Misdirected Request', region, ...(baseUrl ? { url } : {}) })
}
