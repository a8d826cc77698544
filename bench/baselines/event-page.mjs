// The least mapping of a HogQL event page to the four listed fields, shared by the list baselines so they
// do the same work: columns as the unified list selects them (uuid, event, distinct_id, timestamp, ...).
const TYPES = { $pageview: 'PAGE', $screen: 'SCREEN', $identify: 'IDENTIFY', $autocapture: 'TRACK' }

export function eventPage(results) {
  return results.map((row) => ({
    id: row[0],
    name: row[1],
    event_type: TYPES[row[1]] ?? 'TRACK',
    created_at: new Date(row[3]).toISOString(),
  }))
}
