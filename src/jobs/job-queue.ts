/**
 * Runs work in the background. A job names a kind (`webhook-poll`) and a subject (a webhook id); the
 * handler looks up everything else in the database, so a job is only a wake-up call and losing one loses
 * no data: the webhooks module re-enqueues whatever the database says is due.
 */
export type JobHandler = (subject: string) => Promise<void>

export interface JobQueue {
  /** Which implementation runs the jobs (for logs and tests). */
  readonly kind: 'in-process' | 'pg-boss'
  /** Registers what runs for a kind of job; call before start(). */
  handle(kind: string, handler: JobHandler): void
  /**
   * Asks for `kind` to run for `subject` soon. A job already waiting for the same kind and subject absorbs
   * this one, so asking often is cheap.
   */
  enqueue(kind: string, subject: string): Promise<void>
  start(): Promise<void>
  /** Takes no more jobs and waits for the running ones to finish. */
  stop(): Promise<void>
}
