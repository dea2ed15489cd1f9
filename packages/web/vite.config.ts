import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

/** The product bundle only: `index.html` → `dist/`. Test harnesses live outside `src/ui`. */
export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: '/',
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    target: 'es2022',
    sourcemap: false,
    reportCompressedSize: false,
    // The main chunk holds React, the markdown pipeline and the contract (zod); grammars and diffs load lazily.
    chunkSizeWarningLimit: 800,
  },
});
