/** How long a store test waits for something that takes milliseconds when it works. */
export const testDeadlineMs = 5_000;

/**
 * `promise`, or a failure naming `what` once `ms` passed: a store that never settles fails its test in
 * seconds with what it was waiting for, instead of holding the file until the runner's 240 s limit. A real
 * timer, unref'd and cleared, so it neither follows a test's fake clock nor keeps the process alive.
 */
export async function within<T>(what: string, promise: Promise<T>, ms = testDeadlineMs): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`gave up after ${ms} ms waiting for ${what}`)), ms);
    timer.unref?.();
  });
  try {
    return await Promise.race([promise, deadline]);
  } finally {
    clearTimeout(timer);
  }
}
