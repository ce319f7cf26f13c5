/**
 * The clock a chaos run goes by: answers its clients received. A step waits for so many more
 * answers, so a slow machine stretches the run instead of changing what happens in it.
 */
export class Answers {
  count = 0;
  readonly statuses: Record<string, number> = {};
  private waiters: Array<{ at: number; go: () => void }> = [];

  record(status: string) {
    this.count += 1;
    this.statuses[status] = (this.statuses[status] ?? 0) + 1;
    const due = this.waiters.filter((w) => this.count >= w.at);
    this.waiters = this.waiters.filter((w) => this.count < w.at);
    for (const w of due) w.go();
  }

  /**
   * Resolves once `n` more answers came back. If none comes for `stallMs` the relay stopped
   * answering altogether: that is a failure of the run (liveness), not a wait to stretch.
   */
  more(n: number, stallMs = 120_000): Promise<void> {
    const at = this.count + n;
    if (n <= 0) return Promise.resolve();
    return new Promise((resolve, reject) => {
      let seen = this.count;
      const watch = setInterval(() => {
        if (this.count === seen) {
          clearInterval(watch);
          this.waiters = this.waiters.filter((w) => w.at !== at || w.go !== go);
          reject(new Error(`no answer for ${stallMs / 1000} s (waiting for ${at - this.count} more)`));
        }
        seen = this.count;
      }, stallMs);
      const go = () => {
        clearInterval(watch);
        resolve();
      };
      this.waiters.push({ at, go });
    });
  }
}
