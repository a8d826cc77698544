export { DEFAULT_CONTENT_OWNER, DEFAULT_SUBJECT } from './data/seed.js'
export { startYoutubeEmulator, type YoutubeEmulator, type YoutubeEmulatorOptions } from './emulator.js'
