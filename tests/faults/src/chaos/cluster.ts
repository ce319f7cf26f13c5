import { setTimeout as sleep } from 'node:timers/promises';
import type { AppProcess } from '@relay/testkit';
import type { Stack } from '@relay/e2e';
import { KNOBS } from '../knobs.js';

/**
 * The relay's processes a chaos run kills, restarts and pauses: two workers and a second api
 * process (the stack's own api runs in this process and stays, so checks always have a door).
 */
export class Cluster {
  private paused = new Set<number>();

  private constructor(
    private readonly stack: Stack,
    readonly workers: AppProcess[],
    public api: AppProcess,
  ) {}

  static async start(stack: Stack) {
    const [worker, api] = await Promise.all([stack.spawn('worker', KNOBS.worker), stack.spawn('api', KNOBS.api)]);
    return new Cluster(stack, [stack.worker, worker], api);
  }

  bases = () => [this.stack.url, this.api.ready.url!];

  /** A new process takes the place of the old one, which is killed (SIGKILL) or asked to stop (SIGTERM). */
  async replace(app: 'worker' | 'api', which: number, signal: 'SIGKILL' | 'SIGTERM') {
    if (app === 'api') {
      const next = await this.stack.spawn('api', KNOBS.api);
      const old = this.api;
      this.api = next;
      await old.stop(signal);
      return;
    }
    const next = await this.stack.spawn('worker', KNOBS.worker);
    const old = this.workers[which]!;
    this.workers[which] = next;
    if (which === 0) this.stack.worker = next;
    await old.stop(signal);
  }

  /** SIGSTOP, then SIGCONT after `ms`: the pause's length is the fault itself, not a wait for something. */
  async pause(pid: number, ms: number) {
    process.kill(pid, 'SIGSTOP');
    this.paused.add(pid);
    try {
      await sleep(ms);
    } finally {
      this.resume(pid);
    }
  }

  private resume(pid: number) {
    if (!this.paused.delete(pid)) return;
    try {
      process.kill(pid, 'SIGCONT');
    } catch {
      // gone meanwhile
    }
  }

  /** Wakes whatever a failed run left paused, so the stack can be stopped. */
  resumeAll() {
    for (const pid of [...this.paused]) this.resume(pid);
  }
}
