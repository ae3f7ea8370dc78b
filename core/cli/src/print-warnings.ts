/** Prints what the experiment's plugins warn about to stderr, one `warning: ...` line each. */
export function printWarnings(warnings: readonly string[]): void {
  for (const warning of warnings) process.stderr.write(`warning: ${warning}\n`);
}
