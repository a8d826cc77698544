import type { AuthField } from '../../integrations/types.js'
import { escapeHtml, integrationHeader, page } from './html.js'

export interface KeyFormOptions {
  readonly integrationName: string
  readonly color?: string
  readonly fields: readonly AuthField[]
  /** Where the form posts (the page's own address). */
  readonly action: string
  /** Where "Cancel" goes (the failure redirect, or a hosted result page). */
  readonly cancelUrl: string
  readonly error?: string
  /** Non-secret values to keep after a failed attempt (a region); secrets are never echoed. */
  readonly values?: Readonly<Record<string, string>>
  readonly lang?: string
}

function fieldInput(f: AuthField, value: string | undefined): string {
  const id = `f_${f.name}`
  const required = f.required ? ' required' : ''
  const hint = f.description ? `<span class="hint">${escapeHtml(f.description)}</span>` : ''
  const label = `<label for="${id}">${escapeHtml(f.label)}${hint}</label>`
  if (f.options) {
    const options = f.options
      .map((o) => `<option${o === value ? ' selected' : ''}>${escapeHtml(o)}</option>`)
      .join('')
    return `${label}<select id="${id}" name="${escapeHtml(f.name)}"${required}>${options}</select>`
  }
  const type = f.secret ? 'password' : 'text'
  const shown = !f.secret && value ? ` value="${escapeHtml(value)}"` : ''
  return `${label}<input id="${id}" name="${escapeHtml(f.name)}" type="${type}" autocomplete="off" spellcheck="false"${shown}${required}>`
}

/** The hosted page of an API-key provider: the integration's own fields, verified on submit. */
export function keyFormPage(o: KeyFormOptions): string {
  const error = o.error ? `<div class="error" role="alert">${escapeHtml(o.error)}</div>` : ''
  const fields = o.fields.map((f) => fieldInput(f, o.values?.[f.name])).join('')
  const body = `${integrationHeader(o.integrationName, o.color, `Connect your ${o.integrationName} account`)}
${error}
<form method="post" action="${escapeHtml(o.action)}">${fields}
<div class="actions"><a class="secondary" href="${escapeHtml(o.cancelUrl)}">Cancel</a><button type="submit">Connect</button></div>
</form>`
  return page({ title: `Connect ${o.integrationName}`, body, ...(o.lang ? { lang: o.lang } : {}) })
}
