/** A command-line option that must be a whole number; undefined when it was not given. */
export function wholeNumberArg(name: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined
  if (!/^\d+$/.test(value)) throw new Error(`--${name} must be a whole number, got '${value}'`)
  return Number(value)
}

/** Closes a standalone emulator on SIGINT or SIGTERM, then exits. */
export function closeOnSignals(emulator: { close(): Promise<void> }): void {
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.on(signal, () => {
      void emulator.close().then(() => process.exit(0))
    })
  }
}
