/**
 * Issue 13's "performance within the same ratios" for the new categories: the unified CRM contact list
 * (HubSpot, 100 contacts, five fields) against a minimal Node gateway making the same HubSpot request, on a
 * replay of HubSpot's recorded answer, each in its own process (as the analytics list in gateway.ts).
 */
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { DEFAULT_HUBSPOT_TOKEN, startHubspotEmulator } from '../emulators/hubspot/index.js'
import { cpuLine, fmt, get, profiled, provision, ratio, type Section, serverEnv } from './gateway.js'
import { compare, type LoadResult } from './load.js'
import { freePort, startProcess, startUnigate } from './processes.js'
import { startRecorder, startReplay } from './replay.js'

const CRM_QUERY = 'limit=100&fields=id,created_at,first_name,last_name,emails'

export async function benchCrmList(): Promise<Section> {
  const replayPort = await freePort()
  const replayUrl = `http://127.0.0.1:${replayPort}`
  const env = serverEnv({ UNIGATE_DATA_DIR: mkdtempSync(join(tmpdir(), 'unigate-bench-crm-')) })
  const recordings = join(mkdtempSync(join(tmpdir(), 'unigate-bench-crm-replay-')), 'recordings.json')
  const stops: (() => Promise<void>)[] = []
  try {
    // Record: the emulator answers once, through the recording proxy on the replay's port.
    const emulator = await startHubspotEmulator({ seed: 1, contacts: 300 })
    const recorder = await startRecorder(replayPort, emulator.url)
    const ws = await provision(env, replayUrl, { type: 'hubspot', token: DEFAULT_HUBSPOT_TOKEN })
    const auth = { authorization: `Bearer ${ws.apiKey}` }
    const listPath = `/crm/${ws.connectionId}/contact?${CRM_QUERY}`
    const recording = await startUnigate(env)
    const probe = await get(`${recording.url}${listPath}`, auth)
    await recording.stop()
    await recorder.close()
    await emulator.close()
    if (probe.status !== 200 || (JSON.parse(probe.body.toString()) as unknown[]).length !== 100)
      throw new Error(`CRM contact list probe answered ${probe.status}`)
    const lists = recorder.recordings.filter(
      (r) => r.method === 'GET' && r.url.startsWith('/crm/v3/objects/contacts?'),
    )
    if (lists.length !== 1) throw new Error(`the CRM list made ${lists.length} HubSpot list calls, not one`)
    recorder.save(recordings)

    const replay = await startReplay(recordings, replayPort)
    stops.push(replay.stop)
    const minimal = await startProcess(
      process.execPath,
      [...profiled('minimal-crm-gateway'), 'bench/baselines/minimal-crm-gateway.mjs'],
      { UPSTREAM: replayUrl, UPSTREAM_PATH: lists[0]!.url, UPSTREAM_AUTH: `Bearer ${DEFAULT_HUBSPOT_TOKEN}` },
    )
    stops.push(minimal.stop)
    const unigate = await startUnigate(env, profiled('unigate-crm'))
    stops.push(unigate.stop)
    const [base, ours] = (await compare([
      { name: 'minimal Node gateway (baseline)', url: `${minimal.url}/contacts`, pid: minimal.child.pid },
      { name: 'Unigate', url: `${unigate.url}${listPath}`, headers: auth, pid: unigate.child.pid },
    ])) as [LoadResult, LoadResult]
    return {
      title: `unified CRM list (HubSpot): GET /crm/{connection}/contact?${CRM_QUERY}`,
      rows: [base, ours],
      lines: [
        `Unigate / minimal gateway: **${fmt(ratio(ours, base))}** (target >= 0.90x)${cpuLine(base, ours)}`,
      ],
    }
  } finally {
    for (const stop of stops.reverse()) await stop().catch(() => undefined)
  }
}
