import { SeededRandom } from '../kit/index.js'
import { type ArchivingRowLimits, DEFAULT_ARCHIVING_ROW_LIMITS } from './archiving.js'
import { addDays, localDay } from './calendar.js'
import { DEVICES, hex16, PAGES, PLACES, REFERRERS, TIMEZONES } from './data.js'

/**
 * A site as `SitesManager` returns it: a database row, every scalar a string
 * (matomo-org/matomo@f09912cb:plugins/SitesManager/Model.php getSiteFromId, fetchRow).
 */
export type MatomoSiteRecord = Record<string, string>

export interface MatomoActionRecord {
  type: string
  url?: string
  pageTitle?: string
  timestamp: number
  [key: string]: unknown
}

/** A visit as `Live.getLastVisitsDetails` returns it (mixed strings and numbers, as Matomo does). */
export interface MatomoVisitRecord {
  idSite: string
  idVisit: string
  visitorId: string
  userId: string | null
  firstActionTimestamp: number
  lastActionTimestamp: number
  actionDetails: MatomoActionRecord[]
  [key: string]: unknown
}

export interface MatomoStateOptions {
  readonly seed: number
  readonly sites: number
  readonly visitsPerSite: number
  readonly tokens: readonly string[]
  /** Tokens of users with view access to the listed sites only; other tokens are super users'. */
  readonly viewTokens?: Readonly<Record<string, readonly string[]>>
  readonly untilMs: number
  /** `datatable_archiving_maximum_rows_*` overrides (config/config.ini.php [General]). */
  readonly archivingLimits?: Partial<ArchivingRowLimits>
  /** The token user's language (Personal settings); reports answer in it unless `language` is given. */
  readonly userLanguage?: string
}

const dateTime = (ms: number) => new Date(ms).toISOString().slice(0, 19).replace('T', ' ')

export class MatomoState {
  readonly sites = new Map<string, MatomoSiteRecord>()
  private readonly visits = new Map<string, MatomoVisitRecord[]>()
  private readonly tokens: Set<string>
  private readonly revoked = new Set<string>()
  private nextSite = 1
  private nextVisit = 1
  private readonly random: SeededRandom
  /** First and after-last day covering every seeded visit in any site timezone (for report windows). */
  readonly firstDay: string
  readonly dayAfterLast: string
  readonly orderIds = new Set<string>()
  readonly archivingLimits: ArchivingRowLimits
  readonly userLanguage: string

  constructor(options: MatomoStateOptions) {
    this.random = new SeededRandom(options.seed)
    this.archivingLimits = { ...DEFAULT_ARCHIVING_ROW_LIMITS, ...options.archivingLimits }
    this.userLanguage = options.userLanguage ?? 'en'
    this.tokens = new Set([...options.tokens, ...Object.keys(options.viewTokens ?? {})])
    for (const [token, sites] of Object.entries(options.viewTokens ?? {})) {
      this.viewAccess.set(token, new Set(sites))
    }
    const untilS = Math.floor(options.untilMs / 1000)
    const fromS = untilS - 30 * 86_400
    for (let i = 0; i < options.sites; i++) {
      const site = this.addSite(
        {
          siteName: `Acme ${i + 1}`,
          'urls[0]': `https://site${i + 1}.example`,
          timezone: TIMEZONES[i % TIMEZONES.length] as string,
          currency: i % 2 === 0 ? 'USD' : 'EUR',
          group: i === 0 ? 'Main' : '',
        },
        dateTime((fromS - 86_400 * (options.sites - i)) * 1000),
      )
      this.seedVisits(site.idsite as string, options.visitsPerSite, fromS, untilS)
    }
    this.firstDay = addDays(new Date(fromS * 1000).toISOString().slice(0, 10), -1)
    this.dayAfterLast = addDays(new Date(untilS * 1000).toISOString().slice(0, 10), 2)
  }

  /** Sites a restricted token may view; super-user tokens are absent. */
  private readonly viewAccess = new Map<string, ReadonlySet<string>>()

  /** Whether the token's user has at least view access to the site (a super user has it everywhere). */
  canView(token: string | undefined, idSite: string): boolean {
    const sites = token === undefined ? undefined : this.viewAccess.get(token)
    return sites === undefined || sites.has(idSite)
  }

  /** Whether the token's user is a super user (may add sites, use the GDPR tools everywhere). */
  isSuperUser(token: string | undefined): boolean {
    return token !== undefined && !this.viewAccess.has(token)
  }

  isValidToken(token: string | undefined): boolean {
    return token !== undefined && this.tokens.has(token) && !this.revoked.has(token)
  }

  revokeToken(token: string): void {
    this.revoked.add(token)
  }

  restoreToken(token: string): void {
    this.revoked.delete(token)
  }

  /**
   * SitesManager.addSite: settings not given take their defaults, timezone UTC and currency USD unless
   * the instance's defaults were changed (matomo-org/matomo@f09912cb:plugins/SitesManager/API.php addSite,
   * getDefaultTimezone, getDefaultCurrency; plugins/WebsiteMeasurable/MeasurableSettings.php: ecommerce 0,
   * sitesearch 1, keep_url_fragment '0', exclude_unknown_urls false; type 'website'); creator_login is
   * the calling user's login, a super user "admin" here.
   */
  addSite(params: Readonly<Record<string, string>>, created = dateTime(Date.now())): MatomoSiteRecord {
    const id = String(this.nextSite++)
    const site: MatomoSiteRecord = {
      idsite: id,
      name: params.siteName ?? '',
      main_url: params['urls[0]'] ?? '',
      ts_created: created,
      ecommerce: params.ecommerce ?? '0',
      sitesearch: params.siteSearch ?? '1',
      sitesearch_keyword_parameters: '',
      sitesearch_category_parameters: '',
      timezone: params.timezone ?? 'UTC',
      currency: params.currency ?? 'USD',
      exclude_unknown_urls: '0',
      excluded_ips: params.excludedIps ?? '',
      excluded_parameters: params.excludedQueryParameters ?? '',
      excluded_user_agents: '',
      group: params.group ?? '',
      type: params.type ?? 'website',
      keep_url_fragment: '0',
      creator_login: 'admin',
    }
    this.sites.set(id, site)
    this.visits.set(id, [])
    return site
  }

  deleteSite(id: string): void {
    this.sorted.delete(id)
    this.sites.delete(id)
    this.visits.delete(id)
  }

  deleteVisit(idSite: string, idVisit: string): MatomoVisitRecord | undefined {
    const list = this.visits.get(idSite)
    const at = list?.findIndex((v) => v.idVisit === idVisit) ?? -1
    if (!list || at < 0) return undefined
    const [removed] = list.splice(at, 1)
    this.sorted.delete(idSite)
    return removed
  }

  /** Sorted views, rebuilt after a change, so large seeded sites are not re-sorted on every request. */
  private readonly sorted = new Map<string, readonly MatomoVisitRecord[]>()
  private readonly visitCounts = new Map<string, number>()

  /**
   * The site's visits newest first by last action time, then by idvisit, as Live returns them by default
   * (matomo-org/matomo@f09912cb:plugins/Live/Model.php makeLogVisitsQueryString: ORDER BY
   * visit_last_action_time, idvisit, both DESC unless `filter_sort_order=asc`). The view is rebuilt after
   * every change (`refresh`), so a visit that gets an action moves to the front, as in Matomo, where a
   * tracked action sets visit_last_action_time to its time, never earlier than it was
   * (plugins/CoreHome/Columns/VisitLastActionTime.php onExistingVisit). Do not mutate.
   */
  visitsOf(idSite: string): readonly MatomoVisitRecord[] {
    let view = this.sorted.get(idSite)
    if (!view) {
      view = [...(this.visits.get(idSite) ?? [])].sort(
        (a, b) => b.lastActionTimestamp - a.lastActionTimestamp || Number(b.idVisit) - Number(a.idVisit),
      )
      this.sorted.set(idSite, view)
    }
    return view
  }

  private seedVisits(idSite: string, count: number, fromS: number, untilS: number): void {
    const r = this.random.fork(Number(idSite))
    const visitors = Array.from({ length: Math.max(1, Math.ceil(count / 3)) }, () => hex16(r))
    for (let i = 0; i < count; i++) {
      const visitorId = r.pick(visitors)
      const start = r.int(fromS, untilS - 3600)
      this.insertVisit(this.newVisit(r, idSite, visitorId, start, r.int(1, 6)))
    }
  }

  /**
   * A seeded visit with `actions` actions, 5 to 90 seconds apart. Live's visit fields come from database
   * rows, strings, except the timestamps it computes (matomo-org/matomo@f09912cb:plugins/Live/
   * VisitorDetails.php firstActionTimestamp strtotime, plugins/CoreHome/VisitorDetails.php); the values
   * themselves are made-up data.
   */
  newVisit(
    r: SeededRandom,
    idSite: string,
    visitorId: string,
    start: number,
    actions: number,
  ): MatomoVisitRecord {
    const site = this.sites.get(idSite) as MatomoSiteRecord
    const place = r.pick(PLACES)
    const device = r.pick(DEVICES)
    const ref = r.pick(REFERRERS)
    const refName = r.pick(ref.names)
    const details: MatomoActionRecord[] = []
    let t = start
    for (let i = 0; i < actions; i++) {
      details.push(this.randomAction(r, site, t, i === 0))
      t += r.int(5, 90)
    }
    // The JavaScript tracker sends the page view's pv_id with the actions that follow it; conversions
    // show the converting action's, none here (plugins/Actions/Columns/IdPageview.php,
    // plugins/Goals/VisitorDetails.php).
    let pageView = ''
    for (const a of details) {
      if (a.type === 'action') pageView = String(a.idpageview)
      else a.idpageview = a.type === 'goal' || a.type === 'ecommerceOrder' ? null : pageView
    }
    const visit: MatomoVisitRecord = {
      idSite,
      idVisit: String(this.nextVisit++),
      visitIp: `10.0.${r.int(0, 255)}.0`,
      visitorId,
      fingerprint: hex16(r),
      actionDetails: details,
      goalConversions: 0,
      siteCurrency: site.currency,
      serverDate: '',
      firstActionTimestamp: start,
      lastActionTimestamp: start,
      userId: null,
      visitorType: 'new',
      visitConverted: '0',
      visitCount: '1',
      visitDuration: '0',
      actions: '0',
      interactions: '0',
      referrerType: ref.type,
      referrerTypeName: ref.typeName,
      referrerName: refName,
      referrerKeyword: ref.type === 'search' ? 'Keyword not defined' : '',
      referrerUrl: ref.url,
      languageCode: place.code === 'fr' ? 'fr-fr' : place.code === 'de' ? 'de-de' : 'en-us',
      deviceType: device.deviceType,
      deviceBrand: 'Generic',
      deviceModel: 'Generic',
      operatingSystem: `${device.os} ${device.osVersion}`,
      operatingSystemName: device.os,
      operatingSystemCode: device.osCode,
      browser: `${device.browser} 124.0`,
      browserName: device.browser,
      browserCode: device.browserCode,
      browserVersion: '124.0',
      continent: place.continent,
      country: place.country,
      countryCode: place.code,
      region: place.region,
      city: place.city,
      resolution: '1440x900',
      campaignName: ref.type === 'campaign' ? refName : '',
      campaignSource: ref.type === 'campaign' ? 'newsletter' : '',
      campaignMedium: ref.type === 'campaign' ? 'email' : '',
      campaignKeyword: '',
      campaignContent: '',
    }
    this.refresh(visit)
    return visit
  }

  private randomAction(
    r: SeededRandom,
    site: MatomoSiteRecord,
    t: number,
    first: boolean,
  ): MatomoActionRecord {
    const page = r.pick(PAGES)
    const url = `${site.main_url}${page.path}`
    const kind = first ? 0 : r.weightedIndex([60, 15, 8, 6, 6, 3, 2])
    switch (kind) {
      case 1:
        return r.chance(0.5)
          ? {
              type: 'event',
              eventCategory: 'Videos',
              eventAction: r.pick(['Play', 'Complete']),
              eventName: 'Intro',
              eventValue: r.int(1, 60),
              url,
              timestamp: t,
            }
          : {
              type: 'event',
              eventCategory: 'Forms',
              eventAction: 'Submit',
              eventName: 'Newsletter',
              url,
              timestamp: t,
            }
      case 2:
        return { type: 'outlink', url: 'https://github.com/acme', timestamp: t }
      case 3:
        return { type: 'download', url: `${site.main_url}/files/guide.pdf`, timestamp: t }
      case 4:
        return { type: 'search', siteSearchKeyword: r.pick(['pricing', 'api', 'export']), url, timestamp: t }
      case 5:
        return { type: 'goal', goalName: 'Signed up', goalId: '1', revenue: 0, url, timestamp: t }
      case 6:
        return { type: 'ecommerceOrder', orderId: hex16(r), revenue: r.int(10, 200), url, timestamp: t }
      default:
        return {
          type: 'action',
          url,
          pageTitle: page.title,
          pageIdAction: String(PAGES.indexOf(page) + 1),
          idpageview: hex16(r).slice(0, 6),
          timeSpent: r.int(3, 120),
          timestamp: t,
        }
    }
  }

  /**
   * Derived visit fields follow the actions, as Matomo's log_visit columns do:
   * - `actions` (visit_total_actions) counts page views, downloads, outlinks, site searches and events,
   *   not conversions (matomo-org/matomo@f09912cb:plugins/Actions/Columns/VisitTotalActions.php);
   * - `interactions` counts page views and site searches (plugins/Actions/Columns/
   *   VisitTotalInteractions.php shouldCountInteraction, getIdActionUrlForEntryAndExitIds);
   * - `visitDuration` (visit_total_time) is 0 for one request (default_time_one_page_visit = 0), then
   *   1 + last - first (plugins/CoreHome/Columns/VisitTotalTime.php; its extra seconds on conversions
   *   are not modelled);
   * - `visitConverted`/`goalConversions` from the conversions (plugins/CoreHome/VisitorDetails.php);
   * - `serverDate` is the last action's day in the site's timezone, `lastActionDateTime` UTC
   *   (plugins/Live/VisitorDetails.php).
   */
  refresh(visit: MatomoVisitRecord): void {
    const details = visit.actionDetails
    const first = details[0]?.timestamp ?? visit.firstActionTimestamp
    const last = details[details.length - 1]?.timestamp ?? first
    const site = this.sites.get(visit.idSite)
    const count = (types: readonly string[]) => details.filter((a) => types.includes(a.type)).length
    visit.firstActionTimestamp = first
    visit.lastActionTimestamp = last
    visit.visitDuration = String(details.length > 1 ? 1 + last - first : 0)
    visit.actions = String(count(['action', 'download', 'outlink', 'search', 'event']))
    visit.interactions = String(count(['action', 'search']))
    visit.events = String(count(['event']))
    const goals = count(['goal', 'ecommerceOrder'])
    visit.goalConversions = goals
    visit.visitConverted = goals > 0 ? '1' : '0'
    visit.serverDate = localDay(last, site?.timezone ?? 'UTC')
    visit.lastActionDateTime = dateTime(last * 1000)
    visit.siteName = site?.name ?? ''
    this.sorted.delete(visit.idSite)
  }

  /**
   * Adds a visit; `visitCount` and `visitorType` say how many visits its visitor had (log_visit
   * visitor_count_visits, visitor_returning: matomo-org/matomo@f09912cb:plugins/CoreHome/VisitorDetails.php
   * getVisitCount, getVisitorReturning; 'returningCustomer' after an order is not modelled).
   */
  insertVisit(visit: MatomoVisitRecord): void {
    const list = this.visits.get(visit.idSite)
    if (!list) return
    const key = `${visit.idSite}:${visit.visitorId}`
    const count = this.visitCounts.get(key) ?? 0
    this.visitCounts.set(key, count + 1)
    visit.visitCount = String(count + 1)
    visit.visitorType = count === 0 ? 'new' : 'returning'
    list.push(visit)
    this.sorted.delete(visit.idSite)
  }

  nextRandom(label: number): SeededRandom {
    return this.random.fork(label)
  }
}
