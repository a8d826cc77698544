import { describe, expect, it } from 'vitest'
import { ChangeNotifier } from './change-notifier.js'

describe('the change notifier without PostgreSQL (one process)', () => {
  it("tells this process's subscribers of the kind that changed, and no others", async () => {
    const notifier = new ChangeNotifier()
    const heard: string[] = []
    notifier.subscribe('connection', {
      invalidate: (id) => heard.push(`connection ${id}`),
      invalidateAll: () => heard.push('connection *'),
    })
    notifier.subscribe('api_key', {
      invalidate: (id) => heard.push(`api_key ${id}`),
      invalidateAll: () => heard.push('api_key *'),
    })
    await notifier.start()
    await notifier.publish('connection', 'conn_1')
    await notifier.publish('workspace', 'ws_1')
    expect(heard).toEqual(['connection conn_1'])
    expect(notifier.listening).toBe(true)
    await notifier.close()
  })
})
