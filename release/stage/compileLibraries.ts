import { readdirSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import ts from 'typescript';
import { REPOSITORY_DIR, workspacePath } from '../workspace.ts';

/** The libraries published as JavaScript with declarations, by folder under `packages/`. */
export const LIBRARY_FOLDERS = ['protocol', 'host-api'] as const;
export type LibraryFolder = (typeof LIBRARY_FOLDERS)[number];

/** A library's published modules: its sources without tests and the test-only `testing/` folder. */
export function librarySources(folder: LibraryFolder): string[] {
  const src = workspacePath(folder, 'src');
  return readdirSync(src, { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.ts') && !file.endsWith('.test.ts'))
    .filter((file) => !file.split(sep).includes('testing'))
    .map((file) => join(src, file))
    .sort();
}

/**
 * Compiles the libraries with the repository's own compiler options into `outDir/<folder>/src/…`: JavaScript
 * whose `.ts` imports are rewritten to `.js`, and `.d.ts` beside it. One program for all of them, so that
 * host-api's imports of `@outrigger/protocol` type-check against the same sources and stay bare specifiers in
 * the output (the installed `@outrigger/protocol` answers them). Throws with every diagnostic on an error.
 */
export function compileLibraries(outDir: string): void {
  const configPath = join(REPOSITORY_DIR, 'tsconfig.json');
  const config = ts.readConfigFile(configPath, ts.sys.readFile);
  const parsed = ts.parseJsonConfigFileContent(config.config, ts.sys, REPOSITORY_DIR);
  const options: ts.CompilerOptions = {
    ...parsed.options,
    noEmit: false,
    allowImportingTsExtensions: false,
    rewriteRelativeImportExtensions: true,
    declaration: true,
    sourceMap: false,
    rootDir: join(REPOSITORY_DIR, 'packages'),
    outDir,
  };
  const rootNames = LIBRARY_FOLDERS.flatMap(librarySources);
  const program = ts.createProgram({ rootNames, options });
  const emitted = program.emit();
  const diagnostics = [...ts.getPreEmitDiagnostics(program), ...emitted.diagnostics];
  if (diagnostics.length > 0) {
    const host: ts.FormatDiagnosticsHost = {
      getCanonicalFileName: (name) => name,
      getCurrentDirectory: () => REPOSITORY_DIR,
      getNewLine: () => '\n',
    };
    throw new Error(`the libraries do not compile:\n${ts.formatDiagnostics(diagnostics, host)}`);
  }
  const stray = program
    .getSourceFiles()
    .map((file) => relative(REPOSITORY_DIR, file.fileName))
    .filter((file) => !file.split(sep).includes('node_modules') && !file.endsWith('.d.ts'))
    .filter((file) => !rootNames.includes(join(REPOSITORY_DIR, file)));
  if (stray.length > 0) throw new Error(`a published module imports an unpublished one: ${stray.join(', ')}`);
}
