import { builtSidecarState } from '../process/sidecarEntry.ts';

let ensured: Promise<void> | undefined;

/**
 * Process-level tests run the built entry, as hosts do. When it is missing or older than its sources it is
 * rebuilt first (once per test process, in about a fifth of a second), so a test never runs a stale bundle
 * and a developer never has to remember the build between an edit and a test run.
 */
export function ensureSidecarBuilt(): Promise<void> {
  ensured ??= (async () => {
    const state = await builtSidecarState();
    if (state.fresh) return;
    const { buildSidecar } = await import('../../scripts/build.ts');
    await buildSidecar();
  })();
  return ensured;
}
