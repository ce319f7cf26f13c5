/**
 * The api's shutdown, seen from a waiting request: once `stopWaiting()` is called every
 * pending wait ends and answers 202 with its job link (the job itself goes on in a worker).
 */
export function createLifecycle() {
  const controller = new AbortController();
  return {
    signal: controller.signal,
    stopWaiting: () => controller.abort(),
  };
}

export type Lifecycle = ReturnType<typeof createLifecycle>;
