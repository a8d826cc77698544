/** The auth endpoint's query as received, with the names other clients use folded in. */
export interface RawAuthQuery {
  readonly success_redirect?: string
  readonly failure_redirect?: string
  /** REACTAUTH and some widgets send these names. */
  readonly success_url?: string
  readonly failure_url?: string
  readonly external_xref?: string
  readonly scopes?: readonly string[]
  readonly state?: string
  readonly env?: string
  readonly environment?: string
  readonly redirect?: string
  readonly lang?: string
}

export interface AuthQuery {
  readonly successRedirect?: string
  readonly failureRedirect?: string
  readonly externalXref?: string
  readonly scopes?: readonly string[]
  readonly state?: string
  readonly environment: string
  readonly redirect: boolean
  readonly lang?: string
}

function present(v: string | undefined): string | undefined {
  return v === undefined || v === '' ? undefined : v
}

/** `redirect` is `1`/`true` to redirect; empty, `0` or `false` answers the URL as text. */
export function normalizeAuthQuery(q: RawAuthQuery): AuthQuery {
  const success = present(q.success_redirect) ?? present(q.success_url)
  const failure = present(q.failure_redirect) ?? present(q.failure_url)
  const xref = present(q.external_xref)
  const state = present(q.state)
  const lang = present(q.lang)
  return {
    ...(success ? { successRedirect: success } : {}),
    ...(failure ? { failureRedirect: failure } : {}),
    ...(xref ? { externalXref: xref } : {}),
    ...(q.scopes && q.scopes.length > 0 ? { scopes: q.scopes } : {}),
    ...(state ? { state } : {}),
    environment: present(q.env) ?? present(q.environment) ?? 'Production',
    redirect: q.redirect === '1' || q.redirect === 'true',
    ...(lang ? { lang } : {}),
  }
}
