/**
 * Umami's traffic channels for `/metrics?type=channel`, in the order its query tries them: a pageview with
 * neither referrer nor query is `direct`; paid-ad click ids or paid UTM values make `paidAds`; UTM media
 * and referrer domains make referral, affiliate, sms, search, social, email, shopping and video (search,
 * social, shopping and video prefixed `paid` when utm_medium looks paid, else `organic`); another site's
 * referrer is `referral`; anything else (an internal referrer) has no channel. Matches are
 * case-insensitive substrings (`ilike '%…%'`). Source, lists included:
 * umami-software/umami@v3.1.0:src/queries/sql/getChannelMetrics.ts and src/lib/constants.ts
 * (SOCIAL_DOMAINS, SEARCH_DOMAINS, SHOPPING_DOMAINS, EMAIL_DOMAINS, VIDEO_DOMAINS, PAID_AD_PARAMS).
 */
const SOCIAL = [
  'bsky.app',
  'facebook.com',
  'fb.com',
  'ig.com',
  'instagram.com',
  'linkedin.',
  'news.ycombinator.com',
  'pinterest.',
  'reddit.',
  'snapchat.',
  't.co',
  'threads.net',
  'tiktok.',
  'twitter.com',
  'x.com',
]
const SEARCH = [
  'baidu.com',
  'bing.com',
  'chatgpt.com',
  'duckduckgo.com',
  'ecosia.org',
  'google.',
  'msn.com',
  'perplexity.ai',
  'search.brave.com',
  'yandex.',
]
const SHOPPING = [
  'alibaba.com',
  'aliexpress.com',
  'amazon.',
  'bestbuy.com',
  'ebay.com',
  'etsy.com',
  'newegg.com',
  'target.com',
  'walmart.com',
]
const EMAIL = ['gmail.', 'hotmail.', 'mail.yahoo.', 'outlook.', 'proton.me', 'protonmail.']
const VIDEO = ['twitch.', 'youtube.']
const PAID_AD_PARAMS = [
  'ad_id=',
  'aid=',
  'dclid=',
  'epik=',
  'fbclid=',
  'gclid=',
  'li_fat_id=',
  'msclkid=',
  'ob_click_id=',
  'pc_id=',
  'rdt_cid=',
  'scid=',
  'ttclid=',
  'twclid=',
  'utm_medium=cpc',
  'utm_medium=paid',
  'utm_medium=paid_social',
  'utm_source=google',
]

export interface ChannelInput {
  readonly referrerDomain: string
  readonly urlQuery: string
  readonly utmMedium: string
  readonly utmSource: string
  readonly hostname: string
}

const has = (value: string, part: string) => value.toLowerCase().includes(part.toLowerCase())
const any = (value: string, parts: readonly string[]) => parts.some((p) => has(value, p))

/** The channel of one pageview, or null when Umami gives it none. */
export function channelOf(e: ChannelInput): string | null {
  const { referrerDomain: ref, urlQuery: query, utmMedium: medium, utmSource: source } = e
  // `utm_medium LIKE 'p%' OR … '%ppc%' OR '%retargeting%' OR '%paid%'` (case-sensitive LIKE).
  const prefix =
    medium.startsWith('p') ||
    medium.includes('ppc') ||
    medium.includes('retargeting') ||
    medium.includes('paid')
      ? 'paid'
      : 'organic'
  if (ref === '' && query === '') return 'direct'
  if (any(query, PAID_AD_PARAMS)) return 'paidAds'
  if (any(medium, ['referral', 'app', 'link'])) return 'referral'
  if (has(medium, 'affiliate')) return 'affiliate'
  if (has(medium, 'sms') || has(source, 'sms')) return 'sms'
  if (any(ref, SEARCH) || has(medium, 'organic')) return `${prefix}Search`
  if (any(ref, SOCIAL)) return `${prefix}Social`
  if (any(ref, EMAIL) || has(medium, 'mail')) return 'email'
  if (any(ref, SHOPPING) || has(medium, 'shop')) return `${prefix}Shopping`
  if (any(ref, VIDEO) || has(medium, 'video')) return `${prefix}Video`
  if (ref !== e.hostname.replace(/^www./, '') && ref !== '') return 'referral'
  return null
}
