import type { DeliveredRecord } from './change-detection.js'

export type DeliveryType = 'INITIAL-PARTIAL' | 'INITIAL-COMPLETE' | 'VIRTUAL' | 'NATIVE'

export interface DeliveryPage {
  readonly type: DeliveryType
  readonly records: readonly DeliveredRecord[]
}

/**
 * Cuts changes into deliveries of at most `pageMaxLimit` records. An initial backfill is typed
 * INITIAL-PARTIAL except its last page, INITIAL-COMPLETE; that last page is sent even when empty, so a
 * receiver always learns the backfill is over. Other changes produce no delivery when there are none.
 */
export function deliveryPages(
  records: readonly DeliveredRecord[],
  pageMaxLimit: number,
  kind: 'initial' | 'VIRTUAL' | 'NATIVE',
): DeliveryPage[] {
  const size = Math.max(1, Math.floor(pageMaxLimit))
  const chunks: DeliveredRecord[][] = []
  for (let i = 0; i < records.length; i += size) chunks.push(records.slice(i, i + size))
  if (kind !== 'initial') return chunks.map((chunk) => ({ type: kind, records: chunk }))
  if (chunks.length === 0) chunks.push([])
  return chunks.map((chunk, i) => ({
    type: i === chunks.length - 1 ? 'INITIAL-COMPLETE' : 'INITIAL-PARTIAL',
    records: chunk,
  }))
}
