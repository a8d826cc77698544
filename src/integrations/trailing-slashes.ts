const SLASH = 47

/**
 * `text` less its trailing slashes. Not `text.replace(/\/+$/, '')`: that regex tries a run of slashes from
 * each of its slashes and reads the run to its end each time, so a run that is not at the end (an api_url of
 * `https://a/b////…/c`, typed by a caller or on the key page) costs the square of its length on the one event
 * loop every tenant shares (60,000 slashes held it for seconds).
 */
export function withoutTrailingSlashes(text: string): string {
  let end = text.length
  while (end > 0 && text.charCodeAt(end - 1) === SLASH) end--
  return end === text.length ? text : text.slice(0, end)
}
