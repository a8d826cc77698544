import { describe, expect, it } from 'vitest'
import { ConnectionBusyError } from '../errors.js'
import { CallerLeftError, ConnectionLimiter } from './connection-limiter.js'

describe('ConnectionLimiter', () => {
  it('runs up to the limit per key, queues up to the bound, refuses beyond, and hands slots over in order', async () => {
    const limiter = new ConnectionLimiter({ concurrency: 2, queue: 1 })
    const first = await limiter.acquire('a')
    await limiter.acquire('a')
    const order: string[] = []
    const queued = limiter.acquire('a').then((release) => {
      order.push('queued ran')
      return release
    })
    expect(limiter.load('a')).toEqual({ active: 2, waiting: 1 })
    expect([limiter.full('a'), limiter.full('b')]).toEqual([true, false])
    await expect(limiter.acquire('a')).rejects.toBeInstanceOf(ConnectionBusyError)
    await expect(limiter.acquire('a')).rejects.toThrow(/UNIGATE_PROVIDER_CONNECTION_CONCURRENCY=2/)
    // Another key is not affected by a saturated one.
    const other = await limiter.acquire('b')
    expect(order).toEqual([])
    first()
    first()
    const third = await queued
    expect(order).toEqual(['queued ran'])
    expect(limiter.load('a')).toEqual({ active: 2, waiting: 0 })
    third()
    other()
    expect(limiter.load('b')).toEqual({ active: 0, waiting: 0 })
  })

  it('forgets a key once its last call is done', async () => {
    const limiter = new ConnectionLimiter({ concurrency: 1, queue: 0 })
    const release = await limiter.acquire('a')
    await expect(limiter.acquire('a')).rejects.toBeInstanceOf(ConnectionBusyError)
    release()
    const again = await limiter.acquire('a')
    expect(limiter.load('a')).toEqual({ active: 1, waiting: 0 })
    again()
    expect(limiter.load('a')).toEqual({ active: 0, waiting: 0 })
  })

  it('names the workspace settings when it bounds workspaces', async () => {
    const limiter = new ConnectionLimiter({ concurrency: 1, queue: 0 }, 'workspace')
    const release = await limiter.acquire('ws_1')
    await expect(limiter.acquire('ws_1')).rejects.toThrow(
      'this workspace already has 1 provider calls running and 0 waiting, its limit ' +
        '(UNIGATE_PROVIDER_WORKSPACE_CONCURRENCY=1, UNIGATE_PROVIDER_WORKSPACE_QUEUE=0); retry later',
    )
    release()
  })

  it('takes a waiting call out of the queue once its caller has gone: the slot passes to the next', async () => {
    const limiter = new ConnectionLimiter({ concurrency: 1, queue: 2 })
    const first = await limiter.acquire('a')
    let goes: (() => void) | undefined
    const gone = limiter.acquire('a', { callerGone: (leave) => (goes = leave) })
    const next = limiter.acquire('a')
    expect(limiter.load('a')).toEqual({ active: 1, waiting: 2 })
    goes!()
    await expect(gone).rejects.toBeInstanceOf(CallerLeftError)
    expect(limiter.load('a')).toEqual({ active: 1, waiting: 1 })
    first()
    const second = await next
    // Leaving after the slot was granted changes nothing.
    goes!()
    expect(limiter.load('a')).toEqual({ active: 1, waiting: 0 })
    second()
    expect(limiter.load('a')).toEqual({ active: 0, waiting: 0 })
  })

  it('gives up waiting at the deadline with the error the caller names', async () => {
    const limiter = new ConnectionLimiter({ concurrency: 1, queue: 1 })
    const first = await limiter.acquire('a')
    const late = limiter.acquire('a', { until: Date.now() + 50, expired: () => new Error('too late') })
    await expect(late).rejects.toThrow('too late')
    expect(limiter.load('a')).toEqual({ active: 1, waiting: 0 })
    first()
    expect(limiter.load('a')).toEqual({ active: 0, waiting: 0 })
    // A call granted before its deadline keeps its slot past it.
    const held = await limiter.acquire('a', { until: Date.now() + 20, expired: () => new Error('too late') })
    await new Promise((r) => setTimeout(r, 40))
    expect(limiter.load('a')).toEqual({ active: 1, waiting: 0 })
    held()
  })
})
