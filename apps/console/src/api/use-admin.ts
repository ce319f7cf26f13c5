import { useCallback, useEffect, useState } from 'preact/hooks';
import { admin } from './client.js';

export interface Loaded<T> {
  data: T | undefined;
  error: string | undefined;
  loading: boolean;
  reload: () => void;
}

/** GETs an admin path and reloads when it changes; `null` waits. */
export function useAdmin<T>(path: string | null, refreshMs?: number): Loaded<T> {
  const [data, setData] = useState<T>();
  const [error, setError] = useState<string>();
  const [loading, setLoading] = useState(false);
  const [tick, setTick] = useState(0);
  const reload = useCallback(() => setTick((t) => t + 1), []);

  useEffect(() => {
    if (path === null) return;
    let live = true;
    setLoading(true);
    admin<T>('GET', path)
      .then((answer) => live && (setData(answer), setError(undefined)))
      .catch((e: Error) => live && setError(e.message))
      .finally(() => live && setLoading(false));
    return () => {
      live = false;
    };
  }, [path, tick]);

  useEffect(() => {
    if (!refreshMs) return;
    const timer = setInterval(() => document.visibilityState === 'visible' && reload(), refreshMs);
    return () => clearInterval(timer);
  }, [refreshMs, reload]);

  return { data, error, loading, reload };
}
