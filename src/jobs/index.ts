export { InProcessJobQueue } from './in-process-queue.js'
export { type JobHandler, type JobQueue, type JobSignals, JobStop } from './job-queue.js'
export { PgBossJobQueue, type PgBossQueueOptions } from './pg-boss-queue.js'
export { Ticker } from './ticker.js'
