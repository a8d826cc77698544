export { type Ga4Emulator, type Ga4EmulatorOptions, startGa4Emulator } from './emulator.js'
export type { CollectedEvent } from './measurement.js'
