import { type TObject, Type } from '@sinclair/typebox'
import { Metadata, type ObjectModel, OpenEnum } from './common.js'
import { ALL_OPS, b, base, d, defineModel, n, s } from './define.js'

export const EVENT_TYPES = [
  'PAGE_VIEW',
  'SCREEN_VIEW',
  'CLICK',
  'FORM_SUBMIT',
  'PURCHASE',
  'SIGN_UP',
  'LOGIN',
  'LOGOUT',
  'SEARCH',
  'VIDEO_PLAY',
  'VIDEO_COMPLETE',
  'FILE_DOWNLOAD',
  'SCROLL',
  'SESSION_START',
  'FIRST_VISIT',
  'CUSTOM',
] as const
export type EventType = (typeof EVENT_TYPES)[number]

export const GENDERS = ['MALE', 'FEMALE', 'INTERSEX', 'TRANS', 'NON_BINARY'] as const

export const METRIC_TYPES = [
  'USERS',
  'NEW_USERS',
  'SESSIONS',
  'PAGE_VIEWS',
  'UNIQUE_PAGE_VIEWS',
  'SCREENS',
  'EVENTS',
  'AVERAGE_SESSION_DURATION',
  'PAGES_PER_SESSION',
  'BOUNCE_RATE',
  'ENGAGEMENT_RATE',
  'EVENTS_PER_SESSION',
  'CONVERSIONS',
  'CONVERSION_RATE',
  'GOAL_COMPLETIONS',
  'GOAL_VALUE',
  'TRANSACTIONS',
  'REVENUE',
  'AVERAGE_ORDER_VALUE',
  'ECOMMERCE_CONVERSION_RATE',
  'SESSIONS_BY_SOURCE',
  'USERS_BY_SOURCE',
  'CONVERSIONS_BY_SOURCE',
  'VIDEO_VIEWS',
  'WATCH_TIME',
  'AVERAGE_VIEW_DURATION',
  'AVERAGE_VIEW_PERCENTAGE',
  'LIKES',
  'DISLIKES',
  'COMMENTS',
  'SHARES',
  'SUBSCRIBERS_GAINED',
  'SUBSCRIBERS_LOST',
] as const
export type MetricType = (typeof METRIC_TYPES)[number]

export const DIMENSIONS = [
  'DATE',
  'HOUR',
  'DAY_OF_WEEK',
  'WEEK',
  'MONTH',
  'YEAR',
  'PAGE',
  'PAGE_TITLE',
  'EVENT_NAME',
  'SOURCE',
  'MEDIUM',
  'CAMPAIGN',
  'COUNTRY',
  'CITY',
  'DEVICE_TYPE',
  'BROWSER',
  'OS',
  'USER_TYPE',
  'LANDING_PAGE',
  'VIDEO',
] as const
export type Dimension = (typeof DIMENSIONS)[number]

export const AnalyticsProperty = Type.Object(
  base({ name: s(), timezone: s(), currency: s(), industry: s(), parent_id: s() }),
  { $id: 'AnalyticsProperty', additionalProperties: false },
)

export const AnalyticsEvent = Type.Object(
  base({
    name: s(),
    event_type: Type.Optional(OpenEnum(EVENT_TYPES, 'The kind of event.')),
    visitor_id: s(),
    property_id: s(),
    session_id: s(),
    page_url: s(),
    page_title: s(),
    page_referrer: s(),
    device: s(),
    browser: s(),
    os: s(),
    country: s(),
    country_code: s(),
    region: s(),
    city: s(),
    metadata: Type.Optional(Metadata),
    value: n(),
    currency: s(),
    utm_source: s(),
    utm_medium: s(),
    utm_campaign: s(),
    utm_term: s(),
    utm_content: s(),
  }),
  { $id: 'AnalyticsEvent', additionalProperties: false },
)

export const AnalyticsSession = Type.Object(
  base({
    property_id: s(),
    visitor_id: s(),
    start_at: d(),
    end_at: d(),
    duration_seconds: n(),
    landing_page: s(),
    exit_page: s(),
    page_views: n(),
    events_count: n(),
    source: s(),
    medium: s(),
    campaign: s(),
    device: s(),
    browser: s(),
    os: s(),
    country: s(),
    city: s(),
    is_bounce: b(),
    is_conversion: b(),
  }),
  { $id: 'AnalyticsSession', additionalProperties: false },
)

export const AnalyticsVisitor = Type.Object(
  base({
    property_id: s(),
    email: s(),
    name: s(),
    age: n(),
    gender: Type.Optional(OpenEnum(GENDERS, 'Gender.')),
    country: s(),
    country_code: s(),
    city: s(),
    language: s(),
    timezone: s(),
    first_seen_at: d(),
    last_seen_at: d(),
    total_sessions: n(),
    total_page_views: n(),
    total_events: n(),
    metadata: Type.Optional(Metadata),
  }),
  { $id: 'AnalyticsVisitor', additionalProperties: false },
)

export const AnalyticsReportMetric = Type.Object(
  {
    value: n(),
    type: Type.Optional(OpenEnum(METRIC_TYPES, 'Metric.')),
    dimension: Type.Optional(OpenEnum(DIMENSIONS, 'Dimension the value is broken down by.')),
    dimension_value: s(),
  },
  { $id: 'AnalyticsReportMetrics', additionalProperties: false },
)

export const AnalyticsReport = Type.Object(
  base({
    property_id: s(),
    start_at: d(),
    end_at: d(),
    metrics: Type.Optional(Type.Array(AnalyticsReportMetric)),
  }),
  { $id: 'AnalyticsReport', additionalProperties: false },
)

function model(
  objectType: string,
  path: string,
  singular: string,
  plural: string,
  schema: TObject,
  operations: ObjectModel['operations'],
  filters: ObjectModel['filters'],
  personalFields: string[] = [],
  closedEnums: Record<string, readonly string[]> = {},
): ObjectModel {
  return defineModel({
    objectType,
    category: 'analytics',
    path,
    singular,
    plural,
    schema,
    operations,
    filters,
    personalFields,
    closedEnums,
  })
}

export const ANALYTICS_MODELS: readonly ObjectModel[] = [
  model(
    'analytics_property',
    'property',
    'AnalyticsProperty',
    'AnalyticsProperties',
    AnalyticsProperty,
    ALL_OPS,
    {
      parent_id: 'string',
    },
  ),
  model(
    'analytics_event',
    'event',
    'AnalyticsEvent',
    'AnalyticsEvents',
    AnalyticsEvent,
    ['list', 'get', 'create'],
    {
      property_id: 'string',
      session_id: 'string',
      visitor_id: 'string',
      type: 'string',
      start_gte: 'date',
      end_lt: 'date',
    },
    [],
    { event_type: EVENT_TYPES },
  ),
  model(
    'analytics_session',
    'session',
    'AnalyticsSession',
    'AnalyticsSessions',
    AnalyticsSession,
    ['list', 'get'],
    {
      property_id: 'string',
      visitor_id: 'string',
      medium: 'string',
      source: 'string',
      start_gte: 'date',
      end_lt: 'date',
    },
  ),
  model(
    'analytics_visitor',
    'visitor',
    'AnalyticsVisitor',
    'AnalyticsVisitors',
    AnalyticsVisitor,
    ALL_OPS,
    { property_id: 'string' },
    ['email', 'name', 'age', 'gender', 'city'],
    { gender: GENDERS },
  ),
  model('analytics_report', 'report', 'AnalyticsReport', 'AnalyticsReports', AnalyticsReport, ['list'], {
    property_id: 'string',
    type: 'string',
    dimension: 'string',
    start_gte: 'date',
    end_lt: 'date',
  }),
]
