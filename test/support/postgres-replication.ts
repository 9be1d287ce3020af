// A real PostgreSQL primary with one streaming standby on loopback, reached through one address (a
// FaultProxy) that moves to the standby when it is promoted: what a Kubernetes Service or the DNS
// name of a managed PostgreSQL does. Its failover is the fault a soak injects: the primary's
// machine dies (every process SIGKILLed at once), the standby is promoted, the address moves, and
// a new standby is built from the new primary. Each server runs from the distribution's binaries
// as the `postgres` OS user (PostgreSQL refuses root), with its data directory and log in one
// temporary directory, on ports from freePort; every wait is polled within a bound.
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import {
  chownSync,
  closeSync,
  existsSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import pg from 'pg';
import { type FaultProxy, startFaultProxy } from './fault-proxy.ts';
import { freePort } from './process.ts';
import { pollUntil } from './redis-topologies.ts';

const run = promisify(execFile);
const host = '127.0.0.1';
const binaries = ['initdb', 'pg_ctl', 'pg_basebackup', 'postgres'];

/** The directory with PostgreSQL's server binaries: Debian's newest /usr/lib/postgresql/<version>/bin, else PATH. */
const binDir = (() => {
  const debian = existsSync('/usr/lib/postgresql')
    ? readdirSync('/usr/lib/postgresql')
        .sort((a, b) => Number(b) - Number(a))
        .map((version) => `/usr/lib/postgresql/${version}/bin`)
    : [];
  const onPath = (process.env.PATH ?? '').split(':').filter(Boolean);
  return [...debian, ...onPath].find((dir) => binaries.every((binary) => existsSync(join(dir, binary))));
})();

/** Whom the servers run as: ourselves, or the `postgres` OS user when we are root. */
const runAs = (() => {
  if (process.getuid?.() !== 0) return {};
  const line = readFileSync('/etc/passwd', 'utf8')
    .split('\n')
    .find((entry) => entry.startsWith('postgres:'));
  if (!line) return undefined;
  const [, , uid, gid] = line.split(':');
  return { uid: Number(uid), gid: Number(gid) };
})();

/** Why a replicated PostgreSQL cannot run here, or false. */
export const needsPostgresBinaries: string | false = !existsSync('/proc/self/stat')
  ? 'needs Linux (/proc)'
  : !binDir
    ? `needs PostgreSQL's ${binaries.join(', ')} (Debian: /usr/lib/postgresql/<version>/bin)`
    : !runAs
      ? 'runs as root and needs a `postgres` OS user to run PostgreSQL as'
      : false;

export type Replication = 'sync' | 'async';

export interface ReplicatedPostgres {
  replication: Replication;
  /** The one address clients use; its other faults (refuse, hold, stall, cut) still apply. */
  proxy: FaultProxy;
  /** postgresql://postgres@127.0.0.1:<proxy port>/<database, postgres by default>. */
  url(database?: string): string;
  /** What runs, e.g. "PostgreSQL 15, a primary and a synchronous streaming standby". */
  describe: string;
  /**
   * The primary's machine dies: every process of it (postmaster, backends, WAL sender) is SIGKILLed
   * at once; the standby is promoted (accepting writes), the address moves to it, and a new standby
   * is built from it and streams (in sync mode, as its synchronous standby again). With `lagMs`, the
   * standby first catches up, then falls behind for that long before the kill, as under load: WAL
   * written meanwhile never reaches it, so with sync replication those commits wait (never
   * acknowledged) and with async they are acknowledged and then lost. `lagging` is called (and
   * awaited) once the standby is held, before the lag runs. Resolves with a line of timings.
   */
  failover(options?: { lagMs?: number; lagging?: () => void | Promise<void> }): Promise<string>;
  /** Stops both servers, removes their directories and closes the proxy. */
  stop(): Promise<void>;
}

interface Server {
  name: string;
  port: number;
  dir: string;
  child: ChildProcess;
  /** The tail of its log. */
  output(): string;
  exited: Promise<void>;
}

/** One SQL statement on one server directly (not through the proxy), on a connection of its own. */
async function sql<Row extends pg.QueryResultRow>(port: number, text: string, values: unknown[] = []): Promise<Row[]> {
  const client = new pg.Client({
    host,
    port,
    user: 'postgres',
    database: 'postgres',
    ssl: false,
    connectionTimeoutMillis: 5_000,
    query_timeout: 10_000,
  });
  client.on('error', () => {});
  try {
    await client.connect();
    return (await client.query<Row>(text, values)).rows;
  } finally {
    await client.end().catch(() => {});
  }
}

/** The process ids of a server: its postmaster and every process it started (read from /proc). */
function processesOf(postmaster: number): number[] {
  const children: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      // "pid (comm) state ppid …": the command may hold spaces and parentheses, so read after the last ')'.
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const [, ppid] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(ppid) === postmaster) children.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return [postmaster, ...children];
}

/** Gone: no such process, or a zombie nobody reaps (this machine's init may not). */
function gone(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z');
  } catch {
    return true;
  }
}

function signal(pids: number[], name: NodeJS.Signals): void {
  for (const pid of pids) {
    try {
      process.kill(pid, name);
    } catch {
      // already gone
    }
  }
}

/**
 * Every process of a server SIGKILLed together, as when its machine dies; returns their ids. All of
 * them, not the postmaster alone: a backend left alive would go on committing for a moment without
 * it, which no dead machine does. The postmaster is stopped first so that it forks nothing between
 * the listing and the kill.
 */
function killAll(server: Server): number[] {
  const postmaster = server.child.pid as number;
  signal([postmaster], 'SIGSTOP');
  const pids = processesOf(postmaster);
  signal(pids, 'SIGKILL');
  return pids;
}

/**
 * A SIGKILLed postmaster leaves its small System V shared memory segment behind, which a clean
 * shutdown removes, as would the next start in its directory, which never comes: one more per
 * failover, until the machine restarts. Found by the key and id in the postmaster.pid it left (a
 * clean shutdown leaves none), it is removed only if nothing is attached to it any more.
 */
async function releaseSharedMemory(dir: string): Promise<void> {
  try {
    const [key, id] = (readFileSync(join(dir, 'postmaster.pid'), 'utf8').split('\n')[6] ?? '').trim().split(/\s+/);
    const segment = readFileSync('/proc/sysvipc/shm', 'utf8')
      .split('\n')
      .map((line) => line.trim().split(/\s+/))
      .find(([segmentKey, segmentId]) => segmentKey === key && segmentId === id);
    if (id && segment?.[6] === '0') await run('ipcrm', ['-m', id], { ...runAs, timeout: 5_000 });
  } catch {
    // no postmaster.pid (a clean shutdown), no /proc/sysvipc or no ipcrm: nothing to do
  }
}

/** The servers of one replicated PostgreSQL and their directory; SIGKILLed if this process exits first. */
class Servers {
  readonly dir = mkdtempSync(join(tmpdir(), 'devplat-postgres-'));
  readonly all: Server[] = [];
  private count = 0;
  private readonly onExit = () => {
    for (const each of this.all) if (each.child.exitCode === null && each.child.signalCode === null) killAll(each);
    rmSync(this.dir, { recursive: true, force: true });
  };

  constructor() {
    if (runAs?.uid !== undefined) chownSync(this.dir, runAs.uid, runAs.gid);
    process.once('exit', this.onExit);
  }

  /** A PostgreSQL binary as the servers' user, without our PG* variables; throws with its output. */
  async run(binary: string, args: string[], timeoutMs = 60_000): Promise<void> {
    try {
      await run(join(binDir as string, binary), args, {
        ...runAs,
        cwd: this.dir,
        env: { PATH: process.env.PATH, HOME: this.dir, LC_ALL: 'C' },
        timeout: timeoutMs,
      });
    } catch (error) {
      const { stdout, stderr } = error as { stdout?: string; stderr?: string };
      throw new Error(`${binary} ${args.join(' ')} failed: ${(error as Error).message}\n${stdout}\n${stderr}`);
    }
  }

  /** A fresh name and port, and the data directory under ours for them. */
  async next(): Promise<{ name: string; port: number; dir: string }> {
    this.count += 1;
    const name = `node${this.count}`;
    return { name, port: await freePort(), dir: join(this.dir, name) };
  }

  /** Starts the server in `dir` on `port`; resolves once it accepts connections (a standby: reads). */
  async start(name: string, port: number, dir: string): Promise<Server> {
    // Everything a server needs but its role, on its command line: it outranks postgresql.conf and
    // postgresql.auto.conf, which a base backup copies from the primary.
    const settings = {
      port,
      listen_addresses: host,
      unix_socket_directories: this.dir,
      cluster_name: name,
      wal_level: 'replica',
      max_wal_senders: 5,
      max_replication_slots: 5,
      hot_standby: 'on',
      shared_buffers: '16MB',
      synchronous_commit: 'on',
      // A lag (a held WAL sender) of any length: the receiver would otherwise give up on the silent
      // sender after 60 s and connect to a new one, which ends the lag.
      wal_receiver_timeout: 0,
      logging_collector: 'off',
    };
    const args = ['-D', dir, ...Object.entries(settings).flatMap(([key, value]) => ['-c', `${key}=${value}`])];
    // Its log goes to a file beside its directory, kept until stop() for what a failure shows.
    const log = join(this.dir, `${name}.log`);
    const fd = openSync(log, 'a');
    const child = spawn(join(binDir as string, 'postgres'), args, {
      ...runAs,
      cwd: this.dir,
      env: { PATH: process.env.PATH, HOME: this.dir, LC_ALL: 'C' },
      stdio: ['ignore', fd, fd],
    });
    closeSync(fd);
    const output = () => (existsSync(log) ? readFileSync(log, 'utf8').slice(-2_000) : '');
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    const server = { name, port, dir, child, output, exited };
    this.all.push(server);
    await pollUntil(
      `PostgreSQL ${name} on port ${port} accepting connections`,
      async () => {
        if (child.exitCode !== null) throw new Error(`exited ${child.exitCode}: ${output()}`);
        return (await sql(port, 'SELECT 1')).length === 1;
      },
      60_000,
    );
    return server;
  }

  /** Ends every server (fast shutdown, then SIGKILL after 10 s) and removes the directory. */
  async stop(): Promise<void> {
    await Promise.all(
      this.all.map(async (each) => {
        if (each.child.exitCode !== null || each.child.signalCode !== null) return;
        signal(processesOf(each.child.pid as number), 'SIGCONT'); // a process a fault froze must see the signal
        each.child.kill('SIGINT'); // fast shutdown: SIGTERM would wait for every client to leave
        const timer = setTimeout(() => killAll(each), 10_000);
        await each.exited;
        clearTimeout(timer);
      }),
    );
    for (const each of this.all) await releaseSharedMemory(each.dir);
    process.off('exit', this.onExit);
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/**
 * A primary and one streaming standby, the proxy at the primary; ready: the standby streams (in sync
 * mode, as the primary's synchronous standby).
 */
export async function startReplicatedPostgres({
  replication,
}: {
  replication: Replication;
}): Promise<ReplicatedPostgres> {
  if (needsPostgresBinaries) throw new Error(needsPostgresBinaries);
  const servers = new Servers();
  let proxy: FaultProxy | undefined;
  try {
    const first = await servers.next();
    await servers.run('initdb', [
      '-D',
      first.dir,
      '-U',
      'postgres',
      '--auth=trust', // local and 127.0.0.1 connections, replication ones too (initdb's pg_hba.conf)
      '--encoding=UTF8',
      '--locale=C',
      '--no-sync',
      '--no-instructions',
    ]);
    let primary = await servers.start(first.name, first.port, first.dir);
    let standby = await attachStandby(servers, primary, replication);
    const [{ version } = { version: '?' }] = await sql<{ version: number | string }>(
      primary.port,
      "SELECT current_setting('server_version_num')::int / 10000 AS version",
    );
    proxy = await startFaultProxy({ port: primary.port });
    const started = proxy;

    return {
      replication,
      proxy: started,
      url: (database = 'postgres') => `postgresql://postgres@${host}:${started.port}/${database}`,
      describe:
        replication === 'sync'
          ? `PostgreSQL ${version}, a primary and a synchronous streaming standby (after a failover, the new primary runs without one until its new standby streams)`
          : `PostgreSQL ${version}, a primary and an asynchronous streaming standby`,
      async failover({ lagMs, lagging } = {}) {
        const dead = primary;
        const promoted = standby;
        let held: number | undefined;
        try {
          if (lagMs !== undefined) {
            // A clean start for the lag: the standby has everything written so far, then falls behind.
            const [{ lsn } = { lsn: '0/0' }] = await sql<{ lsn: string }>(
              dead.port,
              'SELECT pg_current_wal_lsn() AS lsn',
            );
            await pollUntil(`standby ${promoted.name} flushed the primary's WAL up to ${lsn}`, async () => {
              const rows = await sql(
                dead.port,
                'SELECT 1 FROM pg_stat_replication WHERE application_name = $1 AND flush_lsn >= $2::pg_lsn',
                [promoted.name, lsn],
              );
              return rows.length === 1;
            });
            // The primary's WAL sender is held, not the standby's receiver: WAL it had sent would sit
            // in the kernel's socket buffers, reach the standby after the kill (only the processes
            // die here, not the machine), and nothing would be lost. Held in the sender, the WAL
            // written meanwhile dies with the primary, as on a standby behind a dead machine.
            const [sender] = await sql<{ pid: number }>(
              dead.port,
              'SELECT pid FROM pg_stat_replication WHERE application_name = $1',
              [promoted.name],
            );
            if (!sender) throw new Error(`no WAL sender on ${dead.name} for ${promoted.name}`);
            held = sender.pid;
            process.kill(held, 'SIGSTOP');
            await lagging?.();
            await sleep(lagMs);
          }
          const killedAt = Date.now();
          const pids = killAll(dead);
          held = undefined; // died with the primary
          await pollUntil(`every process of ${dead.name} gone`, async () => pids.every(gone), 10_000);

          await servers.run('pg_ctl', ['promote', '-w', '-t', '60', '-D', promoted.dir], 70_000);
          await pollUntil(`${promoted.name} out of recovery, accepting writes`, async () => {
            const [row] = await sql<{ recovering: boolean }>(promoted.port, 'SELECT pg_is_in_recovery() AS recovering');
            return row?.recovering === false;
          });
          const promotedMs = Date.now() - killedAt;
          started.moveTo(promoted.port);
          const movedMs = Date.now() - killedAt;
          primary = promoted;
          // Until this resolves the new primary has no standby at all: what it acknowledges meanwhile
          // is on one server only (in sync mode too: it names no synchronous standby yet).
          standby = await attachStandby(servers, primary, replication);
          const streamingMs = Date.now() - killedAt;
          return (
            `${dead.name} (${pids.length} processes) SIGKILLed${lagMs === undefined ? '' : ` after its standby lagged ${lagMs} ms`}; ` +
            `${promoted.name} promoted at +${promotedMs} ms, address moved at +${movedMs} ms, ` +
            `new ${replication === 'sync' ? 'synchronous' : 'asynchronous'} standby ${standby.name} streaming at +${streamingMs} ms`
          );
        } catch (error) {
          throw withOutputs(error, servers);
        } finally {
          if (held !== undefined) signal([held], 'SIGCONT');
        }
      },
      async stop() {
        await started.close();
        await servers.stop();
      },
    };
  } catch (error) {
    const failed = withOutputs(error, servers);
    await proxy?.close();
    await servers.stop();
    throw failed;
  }
}

/** `error` with what each server wrote last. */
function withOutputs(error: unknown, servers: Servers): Error {
  const outputs = servers.all.map((each) => `--- ${each.name}\n${each.output()}`).join('\n');
  return new Error(`${(error as Error).message}\n${outputs}`);
}

/**
 * A new standby of `primary`: a base backup of it, started, streaming; in sync mode then named the
 * primary's synchronous standby, and resolved once the primary reports it so.
 */
async function attachStandby(servers: Servers, primary: Server, replication: Replication): Promise<Server> {
  const { name, port, dir } = await servers.next();
  await servers.run(
    'pg_basebackup',
    // A fast checkpoint: the default spreads the backup's checkpoint over minutes.
    ['-D', dir, '-h', host, '-p', String(primary.port), '-U', 'postgres', '-X', 'stream', '-R', '--checkpoint=fast'],
    120_000,
  );
  // -R wrote standby.signal and a primary_conninfo without our name into postgresql.auto.conf, which
  // also came with the primary's own ALTER SYSTEM settings: its synchronous_standby_names among them,
  // which this server, once promoted, would wait for. The file is written anew with the connection only.
  writeFileSync(
    join(dir, 'postgresql.auto.conf'),
    `primary_conninfo = 'host=${host} port=${primary.port} user=postgres application_name=${name}'\n`,
  );
  const standby = await servers.start(name, port, dir);
  const reported = async (condition: string) =>
    (
      await sql(
        primary.port,
        `SELECT 1 FROM pg_stat_replication WHERE application_name = $1 AND state = 'streaming' AND ${condition}`,
        [name],
      )
    ).length === 1;
  await pollUntil(`standby ${name} streaming from ${primary.name}`, () => reported('true'));
  if (replication === 'sync') {
    // Set on the primary only, and only now: a promoted server must not wait for a standby that
    // does not exist yet.
    await sql(primary.port, `ALTER SYSTEM SET synchronous_standby_names = '${name}'`);
    await sql(primary.port, 'SELECT pg_reload_conf()');
    await pollUntil(`standby ${name} synchronous for ${primary.name}`, () => reported("sync_state = 'sync'"));
  }
  return standby;
}
