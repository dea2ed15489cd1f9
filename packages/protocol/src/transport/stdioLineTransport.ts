import { once } from 'node:events';
import type { Readable, Writable } from 'node:stream';
import { LineSplitter } from './lineSplitter.ts';
import type { LineHandlers, LineTransport } from './lineTransport.ts';

export type StdioLineTransportOptions = {
  /** Lines to read: the sidecar's stdin, or a child sidecar's stdout. */
  input: Readable;
  /** Lines to write: the sidecar's stdout, or a child sidecar's stdin. */
  output: Writable;
  maxLineBytes?: number;
};

/**
 * Lines over a pair of streams. `close()` stops reading, flushes what was sent and ends the
 * output (which, for a host, is the sidecar's EOF); the process's own stdout is flushed, never ended.
 */
export function createStdioLineTransport(options: StdioLineTransportOptions): LineTransport {
  const { input, output } = options;
  let handlers: LineHandlers | undefined;
  let closed = false;
  let closeNotified = false;
  let splitter: LineSplitter | undefined;

  const notifyClose = () => {
    if (closeNotified) return;
    closeNotified = true;
    detach();
    handlers?.onClose();
  };
  const onData = (chunk: Buffer | string) => splitter?.push(chunk);
  const onEnd = () => {
    splitter?.end();
    notifyClose();
  };
  const detach = () => {
    input.off('data', onData);
    input.off('end', onEnd);
    input.off('close', onEnd);
    input.off('error', onEnd);
  };

  return {
    start(lineHandlers) {
      if (handlers !== undefined) throw new Error('line transport already started');
      handlers = lineHandlers;
      splitter = new LineSplitter({
        onLine: (line) => lineHandlers.onLine(line),
        onOversizedLine: (bytes) => lineHandlers.onOversizedLine?.(bytes),
        maxLineBytes: options.maxLineBytes,
      });
      input.on('data', onData);
      input.on('end', onEnd);
      input.on('close', onEnd);
      input.on('error', onEnd);
    },
    send(line) {
      if (closed || output.writableEnded || output.destroyed) return;
      output.write(`${line}\n`);
    },
    async close() {
      if (closed) return;
      closed = true;
      detach();
      input.pause();
      await flush(output);
      notifyClose();
    },
  };
}

async function flush(output: Writable): Promise<void> {
  if (output.destroyed || output.writableFinished) return;
  const isProcessStream = output === process.stdout || output === process.stderr;
  if (isProcessStream) {
    if (output.writableNeedDrain) await once(output, 'drain');
    return;
  }
  if (!output.writableEnded) output.end();
  await Promise.race([once(output, 'finish'), once(output, 'close')]).catch(() => undefined);
}
