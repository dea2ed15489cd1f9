import { fileURLToPath } from 'node:url';

/**
 * Where the installed package keeps what the repository builds in each package's own folder. The release
 * (`release/stageOutrigger.ts`) bundles the CLI into `dist/` and puts the sidecar's bundle in `sidecar/` and
 * the web UI in `web/` beside it; from the repository's sources every package finds its own, so these are
 * unset.
 */
const BUNDLED = !import.meta.url.endsWith('.ts');

export interface PackageLayout {
  readonly sidecarEntry?: string;
  readonly webDist?: string;
}

export const PACKAGE_LAYOUT: PackageLayout = BUNDLED
  ? {
      sidecarEntry: fileURLToPath(new URL('../sidecar/main.js', import.meta.url)),
      webDist: fileURLToPath(new URL('../web/', import.meta.url)),
    }
  : {};
