import { z } from 'zod';

// zod compiles object parsers with `new Function` unless told not to, and its probe for whether it may is
// reported as a violation of the host's `script-src 'self'` (no 'unsafe-eval') even though the error is
// caught. Imported first by main.tsx, so it is set before any contract parse.
z.config({ jitless: true });
