/**
 * Vitest global setup: build the start-up bundle (scripts/bundle.mjs → dist/) from the sources under test, so every
 * CLI and package-entry test runs what users run. Tests that need the TypeScript sources through jiti set
 * TOOLHOST_DIST=0 (test/reliability/faults-startup.test.ts, test/contract/dist.test.ts).
 */
export default async function setup(): Promise<void> {
  // @ts-expect-error a plain-JS build script without types
  const { build } = (await import("../scripts/bundle.mjs")) as { build(): Promise<unknown> };
  await build();
}
