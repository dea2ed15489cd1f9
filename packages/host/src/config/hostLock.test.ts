import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { chmod, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { Worker } from 'node:worker_threads';
import {
  acquireHostLock,
  HostAlreadyRunningError,
  type HostLockInfo,
  hostLockPath,
  processIsAlive,
  readHostLock,
  readLockFile,
  takeAwayStale,
} from './hostLock.ts';

async function withDataDir(run: (dataDir: string) => Promise<void>): Promise<void> {
  const parent = await mkdtemp(join(tmpdir(), 'outrigger-lock-'));
  try {
    await run(join(parent, 'data'));
  } finally {
    await rm(parent, { recursive: true, force: true });
  }
}

async function fileOf(dataDir: string): Promise<HostLockInfo> {
  return JSON.parse(await readFile(hostLockPath(dataDir), 'utf8')) as HostLockInfo;
}

/** The pid of a process that has exited and been reaped: dead. */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', ''], { stdio: 'ignore' });
  await new Promise((resolve) => child.once('exit', resolve));
  assert.ok(child.pid !== undefined && !processIsAlive(child.pid));
  return child.pid;
}

/** A live process that is not this one (a host of another process, for the lock's purpose). */
async function withLiveProcess(run: (pid: number) => Promise<void>): Promise<void> {
  const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  try {
    assert.ok(child.pid !== undefined);
    await run(child.pid);
  } finally {
    child.kill('SIGKILL');
    await exited;
  }
}

/**
 * Runs `run` while a thread of its own reads `file` as fast as it can, truly in parallel (a reader on this
 * thread would only ever look between two steps of a write, never inside one); counts the reads that parsed as
 * JSON and those that did not (an empty or half-written file).
 */
async function readInParallel(file: string, run: () => Promise<void>): Promise<{ whole: number; broken: number }> {
  const flags = new Int32Array(new SharedArrayBuffer(12)); // [stop, whole reads, broken reads]
  const reader = new Worker(
    `const { workerData: { file, flags } } = require('node:worker_threads');
     const { readFileSync } = require('node:fs');
     while (Atomics.load(flags, 0) === 0) {
       let text;
       try { text = readFileSync(file, 'utf8'); } catch { continue; }
       try { JSON.parse(text); Atomics.add(flags, 1, 1); } catch { Atomics.add(flags, 2, 1); }
     }`,
    { eval: true, workerData: { file, flags } },
  );
  const exited = new Promise((resolve) => reader.once('exit', resolve));
  try {
    await run();
  } finally {
    Atomics.store(flags, 0, 1);
    await exited;
  }
  return { whole: Atomics.load(flags, 1), broken: Atomics.load(flags, 2) };
}

test('acquire creates DATA/host.json exclusively, 0600, with the pid and no URL yet; a second acquire is refused', async () => {
  await withDataDir(async (dataDir) => {
    const before = Date.now();
    const lock = await acquireHostLock(dataDir);
    try {
      assert.equal((await stat(dataDir)).mode & 0o777, 0o700, 'a missing data directory is made owner-only');
      assert.equal((await stat(hostLockPath(dataDir))).mode & 0o777, 0o600);
      const info = await fileOf(dataDir);
      assert.deepEqual(Object.keys(info).sort(), ['baseUrl', 'pid', 'startedAt', 'version']);
      assert.deepEqual({ ...info, startedAt: 0 }, { pid: process.pid, baseUrl: null, startedAt: 0, version: 1 });
      assert.ok(info.startedAt >= before);
      assert.deepEqual(lock.info, info);
      assert.deepEqual(await readHostLock(dataDir), info);
      await assert.rejects(acquireHostLock(dataDir), (error: unknown) => {
        assert.ok(error instanceof HostAlreadyRunningError);
        assert.deepEqual([error.pid, error.baseUrl, error.dataDir], [process.pid, null, dataDir]);
        assert.equal(
          error.message,
          `another Outrigger host (pid ${process.pid}) is starting on this data directory (${dataDir}); ` +
            'stop it first, or pass another --data-dir',
        );
        return true;
      });
      assert.deepEqual(await fileOf(dataDir), info, 'a refused acquire changes nothing');
      assert.deepEqual(await readdir(dataDir), ['host.json'], 'no temporary file is left');
    } finally {
      await lock.release();
    }
  });
});

test('a lock whose pid is alive in another process is refused, with its URL in the message', async () => {
  await withDataDir(async (dataDir) => {
    await withLiveProcess(async (pid) => {
      const theirs = { pid, baseUrl: 'http://127.0.0.1:7777', startedAt: 1, version: 1 };
      await acquireHostLock(dataDir).then((lock) => lock.release());
      await writeFile(hostLockPath(dataDir), JSON.stringify(theirs), { mode: 0o600 });
      await assert.rejects(acquireHostLock(dataDir), (error: unknown) => {
        assert.ok(error instanceof HostAlreadyRunningError);
        assert.equal(
          error.message,
          `another Outrigger host (pid ${pid}) serves this data directory (${dataDir}) at http://127.0.0.1:7777; ` +
            'stop it first, or pass another --data-dir',
        );
        return true;
      });
      assert.deepEqual(await readHostLock(dataDir), theirs);
      assert.deepEqual(await fileOf(dataDir), theirs);
    });
  });
});

test('EPERM (a live process of another user) counts as alive; ESRCH as dead', () => {
  const failing = (code: string) => () => {
    throw Object.assign(new Error(code), { code });
  };
  assert.equal(processIsAlive(12345, failing('EPERM')), true);
  assert.equal(processIsAlive(12345, failing('ESRCH')), false);
  assert.equal(
    processIsAlive(12345, () => undefined),
    true,
  );
});

test('a stale lock (its pid dead) is taken over, and leaves nothing beside the new one', async () => {
  await withDataDir(async (dataDir) => {
    await acquireHostLock(dataDir).then((lock) => lock.release());
    const stale = { pid: await deadPid(), baseUrl: 'http://127.0.0.1:7777', startedAt: 1, version: 1 };
    await writeFile(hostLockPath(dataDir), JSON.stringify(stale));
    assert.equal(await readHostLock(dataDir), undefined, 'a client sees no host behind a stale lock');
    const lock = await acquireHostLock(dataDir);
    try {
      assert.equal((await fileOf(dataDir)).pid, process.pid);
      assert.equal((await stat(hostLockPath(dataDir))).mode & 0o777, 0o600);
      assert.deepEqual(await readdir(dataDir), ['host.json']);
    } finally {
      await lock.release();
    }
  });
});

test('a lock with this pid that this process does not hold (a restarted container) is stale', async () => {
  await withDataDir(async (dataDir) => {
    await acquireHostLock(dataDir).then((lock) => lock.release());
    await writeFile(
      hostLockPath(dataDir),
      JSON.stringify({ pid: process.pid, baseUrl: null, startedAt: 5, version: 1 }),
    );
    assert.equal(await readHostLock(dataDir), undefined);
    const lock = await acquireHostLock(dataDir);
    await lock.release();
    assert.deepEqual(await readdir(dataDir), []);
  });
});

test('a corrupt or unreadable lock file is stale: taken over, and no client believes it', async () => {
  for (const content of [
    '',
    '{"pid":',
    'null',
    '[]',
    '{"pid":0,"startedAt":1,"version":1}',
    '{"pid":-1,"startedAt":1,"version":1}',
    '{"pid":"1","startedAt":1,"version":1}',
  ]) {
    await withDataDir(async (dataDir) => {
      await acquireHostLock(dataDir).then((lock) => lock.release());
      await writeFile(hostLockPath(dataDir), content);
      assert.equal(await readHostLock(dataDir), undefined, JSON.stringify(content));
      const lock = await acquireHostLock(dataDir);
      assert.equal((await fileOf(dataDir)).pid, process.pid, JSON.stringify(content));
      await lock.release();
    });
  }
  if (process.getuid?.() !== 0) {
    await withDataDir(async (dataDir) => {
      await acquireHostLock(dataDir).then((lock) => lock.release());
      await writeFile(hostLockPath(dataDir), '{}', { mode: 0o000 });
      await chmod(hostLockPath(dataDir), 0o000);
      const lock = await acquireHostLock(dataDir);
      assert.equal((await fileOf(dataDir)).pid, process.pid, 'an unreadable file is taken over');
      await lock.release();
    });
  }
});

test('a lock of a version this code does not know still refuses while its pid lives; clients ignore it', async () => {
  await withDataDir(async (dataDir) => {
    await withLiveProcess(async (pid) => {
      await acquireHostLock(dataDir).then((lock) => lock.release());
      await writeFile(hostLockPath(dataDir), JSON.stringify({ pid, startedAt: 1, version: 2, listen: {} }));
      await assert.rejects(acquireHostLock(dataDir), HostAlreadyRunningError);
      assert.equal(await readHostLock(dataDir), undefined);
    });
  });
});

test('announce writes the URL whole (a reader never sees half a file), 0600, and leaves no temporary file', async () => {
  await withDataDir(async (dataDir) => {
    const lock = await acquireHostLock(dataDir);
    try {
      const reads = await readInParallel(hostLockPath(dataDir), async () => {
        for (let port = 1; port <= 300; port += 1) await lock.announce(`http://127.0.0.1:${port}`);
      });
      assert.ok(reads.whole > 0, 'the reader saw the file');
      assert.equal(reads.broken, 0, 'reads of an empty or half-written file');
      const info = await fileOf(dataDir);
      assert.deepEqual(info, { ...lock.info, baseUrl: 'http://127.0.0.1:300' });
      assert.deepEqual(await readHostLock(dataDir), info);
      assert.equal((await stat(hostLockPath(dataDir))).mode & 0o777, 0o600);
      assert.deepEqual(await readdir(dataDir), ['host.json']);
    } finally {
      await lock.release();
    }
    await assert.rejects(lock.announce('http://127.0.0.1:1'), /was released/);
  });
});

test('release removes the file only while it is still ours, and again is nothing', async () => {
  await withDataDir(async (dataDir) => {
    const lock = await acquireHostLock(dataDir);
    await lock.release();
    await lock.release();
    assert.deepEqual(await readdir(dataDir), []);

    const mine = await acquireHostLock(dataDir);
    await withLiveProcess(async (pid) => {
      // Someone replaced it (by hand, or a host of a pid namespace we cannot see): not ours to remove.
      const theirs = { pid, baseUrl: null, startedAt: mine.info.startedAt, version: 1 };
      await writeFile(hostLockPath(dataDir), JSON.stringify(theirs));
      await mine.release();
      assert.deepEqual(await fileOf(dataDir), theirs);
      const other = { pid: process.pid, baseUrl: null, startedAt: mine.info.startedAt + 1, version: 1 };
      await writeFile(hostLockPath(dataDir), JSON.stringify(other));
      const again = await acquireHostLock(dataDir);
      await again.release();
      assert.deepEqual(await readdir(dataDir), []);
    });
    // A released lock no longer holds the directory for this process: a new acquire gets it.
    const next = await acquireHostLock(dataDir);
    await next.release();
  });
});

test('concurrent acquires in one process, on a fresh or a stale lock: exactly one wins, the others are refused', async () => {
  for (const start of ['fresh', 'stale'] as const) {
    await withDataDir(async (dataDir) => {
      if (start === 'stale') {
        await acquireHostLock(dataDir).then((lock) => lock.release());
        await writeFile(
          hostLockPath(dataDir),
          JSON.stringify({ pid: await deadPid(), baseUrl: null, startedAt: 1, version: 1 }),
        );
      }
      const results = await Promise.allSettled(Array.from({ length: 8 }, () => acquireHostLock(dataDir)));
      const won = results.filter((result) => result.status === 'fulfilled');
      const refused = results.filter((result) => result.status === 'rejected');
      assert.equal(won.length, 1, start);
      for (const result of refused) assert.ok(result.reason instanceof HostAlreadyRunningError, String(result.reason));
      assert.deepEqual(await fileOf(dataDir), won[0]?.value.info);
      assert.deepEqual(await readdir(dataDir), ['host.json'], 'no temporary or stale file is left');
      await won[0]?.value.release();
    });
  }
});

test('a takeover removes only the stale file it judged: one replaced in between is put back', async () => {
  await withDataDir(async (dataDir) => {
    await acquireHostLock(dataDir).then((lock) => lock.release());
    await writeFile(
      hostLockPath(dataDir),
      JSON.stringify({ pid: await deadPid(), baseUrl: null, startedAt: 1, version: 1 }),
    );
    // This starter judges the file stale...
    const judged = await readLockFile(hostLockPath(dataDir));
    assert.ok(judged !== undefined);
    // ...while another starter takes the stale file away and wins with its own.
    await takeAwayStale(hostLockPath(dataDir), judged.identity);
    const winner = await acquireHostLock(dataDir);
    try {
      await takeAwayStale(hostLockPath(dataDir), judged.identity);
      assert.deepEqual(await fileOf(dataDir), winner.info, "the winner's lock is still there");
      assert.deepEqual(await readdir(dataDir), ['host.json']);
      await assert.rejects(acquireHostLock(dataDir), HostAlreadyRunningError);
    } finally {
      await winner.release();
    }
  });
});

test('a lock file is never seen half-written: created whole, while another thread reads acquire after acquire', async () => {
  await withDataDir(async (dataDir) => {
    await acquireHostLock(dataDir).then((lock) => lock.release());
    const reads = await readInParallel(hostLockPath(dataDir), async () => {
      for (let cycle = 0; cycle < 500; cycle += 1) await (await acquireHostLock(dataDir)).release();
    });
    assert.ok(reads.whole > 0, 'the reader saw the file');
    assert.equal(reads.broken, 0, 'reads of an empty or half-written file');
  });
});

/** A process that tries to take the lock, prints `won` or `refused`, and holds what it won until its stdin closes. */
function startContender(dataDir: string): { child: ChildProcess; outcome: Promise<string>; exited: Promise<unknown> } {
  const module = new URL('./hostLock.ts', import.meta.url).href;
  const script = `
    const { acquireHostLock, HostAlreadyRunningError } = await import(${JSON.stringify(module)});
    let lock;
    try {
      lock = await acquireHostLock(process.argv[1]);
      process.stdout.write('won\\n');
    } catch (error) {
      process.stdout.write(error instanceof HostAlreadyRunningError ? 'refused\\n' : 'failed ' + error + '\\n');
    }
    process.stdin.resume();
    process.stdin.on('end', async () => { await lock?.release(); process.exit(0); });
  `;
  const child = spawn(process.execPath, ['--input-type=module', '-e', script, dataDir], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  const outcome = new Promise<string>((resolve, reject) => {
    let text = '';
    child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
      text += chunk;
      if (text.includes('\n')) resolve(text.trim());
    });
    void exited.then(() => reject(new Error(`the contender exited before deciding: ${text}`)));
  });
  return { child, outcome, exited };
}

test('contending processes, on a fresh or a stale lock: exactly one wins while the others are refused', async () => {
  for (const start of ['fresh', 'stale'] as const) {
    await withDataDir(async (dataDir) => {
      await acquireHostLock(dataDir).then((lock) => lock.release());
      if (start === 'stale') {
        await writeFile(
          hostLockPath(dataDir),
          JSON.stringify({ pid: await deadPid(), baseUrl: null, startedAt: 1, version: 1 }),
        );
      }
      const contenders = Array.from({ length: 6 }, () => startContender(dataDir));
      try {
        const outcomes = await Promise.all(contenders.map((contender) => contender.outcome));
        assert.deepEqual(
          [...outcomes].sort(),
          ['refused', 'refused', 'refused', 'refused', 'refused', 'won'],
          `${start}: ${outcomes.join(', ')}`,
        );
        const winner = contenders[outcomes.indexOf('won')];
        assert.equal((await fileOf(dataDir)).pid, winner?.child.pid);
      } finally {
        for (const contender of contenders) contender.child.stdin?.end();
        let timer: NodeJS.Timeout | undefined;
        await Promise.race([
          Promise.all(contenders.map((contender) => contender.exited)),
          new Promise((resolve) => {
            timer = setTimeout(resolve, 10_000);
          }),
        ]);
        clearTimeout(timer);
        for (const contender of contenders) if (contender.child.exitCode === null) contender.child.kill('SIGKILL');
        await Promise.all(contenders.map((contender) => contender.exited));
      }
      assert.deepEqual(await readdir(dataDir), [], 'the winner released it, and nothing else is left');
    });
  }
});
