export { createStreamProjector, type StreamProjector, type StreamProjectorOptions } from './streamProjector.ts';
