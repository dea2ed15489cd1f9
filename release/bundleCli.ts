import { build, type Plugin } from 'esbuild';
import { REPOSITORY_DIR } from './workspace.ts';

/** Loaded through the package layout from the sidecar's own bundle (bin/commands/sidecar.ts), never bundled twice. */
const LEFT_TO_THE_LAYOUT = ['@outrigger/claude-sdk-sidecar/main'];

/** Our workspace packages go into the bundle; every other package stays a dependency of the installed package. */
const thirdPartyExternal: Plugin = {
  name: 'third-party-external',
  setup(context) {
    context.onResolve({ filter: /^[^./]/ }, (args) => {
      if (args.path.startsWith('node:')) return { path: args.path, external: true };
      if (LEFT_TO_THE_LAYOUT.includes(args.path)) return { path: args.path, external: true };
      if (args.path.startsWith('@outrigger/')) return undefined;
      return { path: args.path, external: true };
    });
  },
};

export interface CliBundle {
  /** The packages the bundle imports and leaves to `node_modules`, by name. */
  readonly externalPackages: readonly string[];
  readonly bytes: number;
}

/**
 * The CLI, the host and the demo model in `outDir`: `outrigger.js` (the bin: a Node version check that any
 * Node can run), `cli.js` and the chunks its lazily loaded commands split into.
 */
export async function bundleCli(outDir: string): Promise<CliBundle> {
  const cli = await build({
    absWorkingDir: REPOSITORY_DIR,
    entryPoints: { cli: 'bin/outrigger.ts' },
    outdir: outDir,
    bundle: true,
    splitting: true,
    platform: 'node',
    format: 'esm',
    target: 'node22.18',
    plugins: [thirdPartyExternal],
    // Whitespace and syntax only: names stay readable in stack traces without source maps.
    minifyWhitespace: true,
    minifySyntax: true,
    metafile: true,
    logLevel: 'warning',
  });
  const launcher = await build({
    absWorkingDir: REPOSITORY_DIR,
    entryPoints: { outrigger: 'release/launcher/outriggerLauncher.ts' },
    outdir: outDir,
    bundle: true,
    platform: 'node',
    format: 'esm',
    // It must run, and explain, on a Node far older than the one the CLI needs.
    target: 'node16',
    external: ['./cli.js'],
    metafile: true,
    logLevel: 'warning',
  });
  const outputs = [...Object.values(cli.metafile.outputs), ...Object.values(launcher.metafile.outputs)];
  const externalPackages = new Set<string>();
  for (const output of Object.values(cli.metafile.outputs)) {
    for (const imported of output.imports) {
      if (!imported.external || imported.path.startsWith('node:') || LEFT_TO_THE_LAYOUT.includes(imported.path))
        continue;
      externalPackages.add(packageNameOf(imported.path));
    }
  }
  return {
    externalPackages: [...externalPackages].sort(),
    bytes: outputs.reduce((sum, output) => sum + output.bytes, 0),
  };
}

/** `hono/utils` → `hono`, `@hono/node-server/serve-static` → `@hono/node-server`. */
export function packageNameOf(specifier: string): string {
  const segments = specifier.split('/');
  return specifier.startsWith('@') ? segments.slice(0, 2).join('/') : (segments[0] ?? specifier);
}
