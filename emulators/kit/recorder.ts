/** One request as an emulator received it, so a test can assert exactly what a connector sent. */
export interface RecordedRequest {
  readonly method: string
  /** Path without the query string. */
  readonly path: string
  readonly query: Readonly<Record<string, string | string[]>>
  readonly headers: Readonly<Record<string, string | string[] | undefined>>
  /** The parsed body (JSON), or the raw text when it was not JSON; undefined without a body. */
  readonly body: unknown
  /** ISO-8601 time of arrival. */
  readonly time: string
}

/** Keeps the most recent requests; the bound keeps a long benchmark run from growing without limit. */
export class RequestRecorder {
  private entries: RecordedRequest[] = []

  constructor(private readonly maxEntries = 10_000) {}

  record(request: RecordedRequest): void {
    this.entries.push(request)
    if (this.entries.length > this.maxEntries) this.entries.splice(0, this.entries.length - this.maxEntries)
  }

  all(): RecordedRequest[] {
    return [...this.entries]
  }

  clear(): void {
    this.entries = []
  }
}
