import { mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { type BrowserContext, chromium } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { verifyRedirectSig } from '../src/authorization/index.js'
import { type AuthServer, freePort, startAuthServer } from './support/auth-server.js'
import { configureGoogleApp, GA4, type GoogleSetup, startGoogle } from './support/google-oauth.js'

const CHROMIUM = '/usr/bin/chromium'
const ARTIFACTS = join(process.cwd(), 'test-artifacts')

/** The customer's own page: it embeds the component, and is where the user comes back to. */
function customerSite(port: number, scriptUrl: string): Server {
  return createServer((req, res) => {
    res.setHeader('content-type', 'text/html; charset=utf-8')
    if (req.url?.startsWith('/connected')) {
      res.end('<!doctype html><title>Connected</title><h1 id="done">Thanks, your account is connected</h1>')
      return
    }
    res.end(`<!doctype html><html><head><meta charset="utf-8"><title>Acme settings</title>
<style>body{font-family:system-ui,sans-serif;max-width:760px;margin:40px auto;padding:0 16px;color:#1c2330}</style></head>
<body><h1>Connect your analytics</h1><p>Pick the tool your team uses.</p>
<script src="${scriptUrl}"></script><div id="integrations"></div></body></html>`)
  }).listen(port, '127.0.0.1')
}

describe.skipIf(process.env.CI ? false : !(await import('node:fs')).existsSync(CHROMIUM))(
  'the embeddable component in headless Chromium',
  () => {
    let s: AuthServer
    let g: GoogleSetup
    let site: Server
    let siteUrl: string
    let context: BrowserContext
    let profile: string
    beforeAll(async () => {
      g = await startGoogle()
      s = await startAuthServer('sqlite')
      await configureGoogleApp(s, g)
      const port = await freePort()
      siteUrl = `http://127.0.0.1:${port}`
      await s.api('PATCH', '/unified/workspace', { allowed_redirect_origins: [siteUrl] })
      const script = new URL(`${s.url}/docs/unified.js`)
      for (const [k, v] of Object.entries({
        wid: s.workspaceId,
        did: 'integrations',
        cat: 'analytics',
        uid: 'customer-42',
        surl: `${siteUrl}/connected`,
        furl: `${siteUrl}/failed`,
      }))
        script.searchParams.set(k, v)
      site = customerSite(port, script.toString())
      profile = mkdtempSync(join(tmpdir(), 'unigate-chromium-'))
      context = await chromium.launchPersistentContext(profile, {
        executablePath: CHROMIUM,
        headless: true,
        viewport: { width: 900, height: 700 },
        args: [
          '--headless',
          '--no-sandbox',
          '--disable-gpu',
          '--disable-quic',
          '--no-first-run',
          '--disable-background-networking',
          '--disable-component-update',
          '--disable-sync',
        ],
      })
      mkdirSync(ARTIFACTS, { recursive: true })
    }, 60_000)
    afterAll(async () => {
      await context?.close()
      site?.close()
      rmSync(profile, { recursive: true, force: true })
      await s?.close()
      await g?.close()
    })

    it('renders the integrations, walks through consent, and hands back a connection that reads data at once', async () => {
      const page = await context.newPage()
      const consoleErrors: string[] = []
      page.on('console', (m) => {
        // Browsers ask every host for a favicon; none of these servers has one.
        if (m.type() === 'error' && !m.location().url.endsWith('/favicon.ico')) consoleErrors.push(m.text())
      })
      await page.goto(siteUrl)
      const tile = page.locator(`a.unified_vendor[data-type="${GA4}"]`)
      await tile.waitFor()
      expect(await page.locator('.unified_vendor').count()).toBeGreaterThan(1)
      expect(await tile.locator('.unified_vendor_name').textContent()).toBe('Google Analytics 4')
      const box = await tile.boundingBox()
      expect(box?.width).toBeGreaterThan(150)
      await page.screenshot({ path: join(ARTIFACTS, 'embed-component.png'), fullPage: true })

      await tile.click()
      await page.waitForURL((u) => u.href.startsWith(g.accounts.authorizeUrl))
      await page.screenshot({ path: join(ARTIFACTS, 'embed-consent.png') })
      await page.click('#allow')
      await page.waitForURL((u) => u.href.startsWith(`${siteUrl}/connected`))
      await page.locator('#done').waitFor()
      await page.screenshot({ path: join(ARTIFACTS, 'embed-success.png') })

      const back = new URL(page.url())
      const q = Object.fromEntries(back.searchParams)
      expect(q.type).toBe(GA4)
      expect(
        verifyRedirectSig(
          s.secret,
          { id: q.id!, state: q.state ?? '', nonce: q.nonce!, type: q.type! },
          q.sig!,
        ),
      ).toBe(true)
      const conn = await s.api<{ external_xref?: string }>('GET', `/unified/connection/${q.id}`)
      expect(conn.body.external_xref).toBe('customer-42')
      const properties = await s.api<unknown[]>('GET', `/analytics/${q.id}/property`)
      expect(properties.status).toBe(200)
      expect(properties.body.length).toBeGreaterThan(0)
      expect(consoleErrors).toEqual([])
    }, 60_000)
  },
)
