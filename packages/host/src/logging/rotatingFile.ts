import {
  closeSync,
  existsSync,
  fchmodSync,
  fstatSync,
  mkdirSync,
  openSync,
  renameSync,
  rmSync,
  writeSync,
} from 'node:fs';
import { dirname } from 'node:path';

export interface RotatingFileOptions {
  /** The live file, e.g. `DATA/logs/host.log`; older ones are `host.1.log` (newest) … `host.<keep>.log`. */
  path: string;
  /** Rotate before a write would take the live file past this many bytes. */
  maxBytes: number;
  /** Rotated files kept besides the live one. */
  keep: number;
}

/**
 * A size-rotated, synchronously written log file. Written by hand rather than with pino-roll because the
 * live file keeps one name across rotations and restarts (`tail -f logs/host.log` always works, old files
 * shift to `.1`, `.2`, …) and because a synchronous write means a record is on disk before the host goes on,
 * so a crash never loses the lines that explain it.
 */
export class RotatingFile {
  readonly #options: RotatingFileOptions;
  #fd: number;
  #size: number;

  constructor(options: RotatingFileOptions) {
    this.#options = options;
    mkdirSync(dirname(options.path), { recursive: true, mode: 0o700 });
    this.#fd = openSync(options.path, 'a', 0o600);
    const stats = fstatSync(this.#fd);
    // The open mode only applies to a new file: a log an older version left 0644 is narrowed here.
    if ((stats.mode & 0o077) !== 0) fchmodSync(this.#fd, stats.mode & 0o700);
    this.#size = stats.size;
  }

  write(line: string): void {
    const bytes = Buffer.byteLength(line);
    if (this.#size > 0 && this.#size + bytes > this.#options.maxBytes) this.#rotate();
    writeSync(this.#fd, line);
    this.#size += bytes;
  }

  close(): void {
    if (this.#fd >= 0) closeSync(this.#fd);
    this.#fd = -1;
  }

  #rotate(): void {
    closeSync(this.#fd);
    const { path, keep } = this.#options;
    const numbered = (index: number) => path.replace(/(\.log)?$/, `.${index}.log`);
    rmSync(numbered(keep), { force: true });
    for (let index = keep - 1; index >= 1; index -= 1) {
      if (existsSync(numbered(index))) renameSync(numbered(index), numbered(index + 1));
    }
    if (keep > 0) renameSync(path, numbered(1));
    else rmSync(path, { force: true });
    this.#fd = openSync(path, 'a', 0o600);
    this.#size = 0;
  }
}
