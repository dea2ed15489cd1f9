import { once } from 'node:events';
import type { Readable, Writable } from 'node:stream';
import { LineSplitter } from './lineSplitter.ts';
import type { LineHandlers, LineTransport, LineTransportEnd } from './lineTransport.ts';

export type StdioLineTransportOptions = {
  /** Lines to read: the sidecar's stdin, or a child sidecar's stdout. */
  input: Readable;
  /** Lines to write: the sidecar's stdout, or a child sidecar's stdin. */
  output: Writable;
  maxLineBytes?: number;
  /**
   * Collects the lines sent during one turn of the event loop and writes them with one write, after the
   * I/O callbacks of that turn (`setImmediate`). Each write to a pipe wakes its reader, so a burst of events
   * written one by one makes the reader's process and ours change places on the CPU once per line. Same
   * bytes, same order; `close()` writes what is collected first.
   */
  coalesceWrites?: boolean;
};

/**
 * Lines over a pair of streams. `close()` stops reading, flushes what was sent and ends the
 * output (which, for a host, is the sidecar's EOF); the process's own stdout is flushed, never ended.
 * A failing stream never throws: writing to a peer that has gone (`EPIPE`) or a read error closes the
 * transport with a `failed` end that carries the error, and later sends are dropped.
 */
export function createStdioLineTransport(options: StdioLineTransportOptions): LineTransport {
  const { input, output } = options;
  let handlers: LineHandlers | undefined;
  let closed = false;
  let outputFailed = false;
  let closeNotified = false;
  let splitter: LineSplitter | undefined;
  let collected: string[] = [];
  let flushScheduled = false;

  const write = (text: string) => {
    if (outputFailed || output.writableEnded || output.destroyed) return;
    output.write(text);
  };
  const flushCollected = () => {
    flushScheduled = false;
    if (collected.length === 0) return;
    const text = collected.join('');
    collected = [];
    write(text);
  };

  const notifyClose = (end: LineTransportEnd) => {
    if (closeNotified) return;
    closeNotified = true;
    detach();
    handlers?.onClose(end);
  };
  const onData = (chunk: Buffer | string) => splitter?.push(chunk);
  const onEnd = () => {
    splitter?.end();
    notifyClose({ kind: 'input_ended' });
  };
  const onInputError = (error: Error) => fail('input', error);
  // Stays attached for good: a stream may report more than one failure (a queued write, then the end).
  const onOutputError = (error: Error) => fail('output', error);
  /** Nothing more is read; after a failed write nothing more is written either (what is still sent is dropped). */
  const fail = (stream: 'input' | 'output', error: Error) => {
    if (stream === 'output') {
      outputFailed = true;
      closed = true;
    }
    input.pause();
    notifyClose({ kind: 'failed', stream, error });
  };
  const detach = () => {
    input.off('data', onData);
    input.off('end', onEnd);
    input.off('close', onEnd);
    input.off('error', onInputError);
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
      output.on('error', onOutputError);
      input.on('data', onData);
      input.on('end', onEnd);
      input.on('close', onEnd);
      input.on('error', onInputError);
    },
    send(line) {
      if (closed) return;
      if (!options.coalesceWrites) {
        write(`${line}\n`);
        return;
      }
      collected.push(`${line}\n`);
      if (!flushScheduled) {
        flushScheduled = true;
        setImmediate(flushCollected);
      }
    },
    async close() {
      if (closed) return;
      flushCollected();
      closed = true;
      detach();
      input.pause();
      if (!outputFailed) await flush(output);
      notifyClose({ kind: 'closed' });
    },
  };
}

async function flush(output: Writable): Promise<void> {
  if (output.destroyed || output.writableFinished || output.errored) return;
  let finished: Promise<unknown> | undefined;
  if (output === process.stdout || output === process.stderr) {
    if (output.writableNeedDrain) finished = once(output, 'drain');
  } else {
    if (!output.writableEnded) output.end();
    finished = Promise.race([once(output, 'finish'), once(output, 'close')]);
  }
  // `once` rejects when the stream fails meanwhile; the error listener reports that failure.
  await finished?.catch(() => undefined);
}
