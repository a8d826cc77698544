import { ProviderError } from '../errors.js'

/**
 * The longest text Unigate copies from one provider value into every record that shares it: a looked-up
 * name (a Greenhouse source), a visit's place and device on each of its actions (Matomo). Real ones are
 * short (Matomo keeps such visit columns in VARCHAR(255) and smaller); a connection's api_url may name a
 * server of its creator's, whose one long text was copied into hundreds of records: a source name of 800,000
 * characters shared by 500 applications made a 400 MB answer and an 8 s hold, and a city of 400,000 on a
 * visit of 1,000 actions the same (a security review, reproduced).
 */
export const SHARED_TEXT_LENGTH = 2048

/** `text` when it is at most SHARED_TEXT_LENGTH characters; a 502 naming the provider and the field if not. */
export function sharedText<T extends string | null | undefined>(text: T, provider: string, what: string): T {
  if (typeof text === 'string' && text.length > SHARED_TEXT_LENGTH) {
    throw new ProviderError(
      502,
      `${provider} answered a ${what} of ${text.length} characters, copied into every record that shares it; ` +
        `Unigate copies at most ${SHARED_TEXT_LENGTH}; not read`,
    )
  }
  return text
}
