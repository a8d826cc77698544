/** `AnalyticsProperties` -> `analytics_properties`; `listUnifiedConnections` -> `list_unified_connections`. */
export function snakeCase(name: string): string {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .replace(/[^A-Za-z0-9]+/g, '_')
    .toLowerCase()
}

/** `cn_eu_abc…` -> `eu`: connection ids carry the region they were created in. */
export function regionOfConnectionId(id: string): string | undefined {
  return /^cn_([a-z]{2})_/.exec(id)?.[1]
}
