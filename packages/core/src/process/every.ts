/**
 * Runs `task` every `everyMs`, never two at once (a slow round makes the next one wait its turn
 * rather than pile up), without keeping the process alive. A failed round is reported and the
 * next one runs as planned. Returns the function that stops it.
 */
export function every(everyMs: number, task: () => Promise<unknown>, onError: (error: Error) => void): () => void {
  let running = false;
  const timer = setInterval(() => {
    if (running) return;
    running = true;
    task()
      .catch(onError)
      .finally(() => (running = false));
  }, everyMs);
  timer.unref();
  return () => clearInterval(timer);
}
