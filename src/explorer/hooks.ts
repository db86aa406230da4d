/**
 * How pages read the node: `useResource` loads once per page (and again each time the node
 * comes back after being unreachable), `usePoll` repeats a read while the page is open.
 */
import { createContext } from 'preact';
import { useContext, useEffect, useRef, useState } from 'preact/hooks';
import { NodeError, RouteAbsent, Unreachable, type NodeApi } from './api.js';

const isNodeAnswerOrAbsence = (e: unknown): boolean => e instanceof NodeError || e instanceof RouteAbsent || e instanceof Unreachable;

export const ApiContext = createContext<NodeApi | undefined>(undefined);

export function useApi(): NodeApi {
  const api = useContext(ApiContext);
  if (api === undefined) throw new Error('useApi outside ApiContext');
  return api;
}

/** The connection state; re-renders on change. */
export function useConnection(): { readonly online: boolean; readonly epoch: number } {
  const api = useApi();
  const [, setTick] = useState(0);
  useEffect(() => api.connection.subscribe(() => setTick((t) => t + 1)), [api]);
  return { online: api.connection.online, epoch: api.connection.epoch };
}

export type Resource<T> = { readonly state: 'loading' } | { readonly state: 'ok'; readonly value: T } | { readonly state: 'error'; readonly error: unknown };

/**
 * The value of `load`, run when `deps` change and after each reconnection. While a reload
 * runs the previous value stays (no flicker): pages are mounted afresh for each route, so
 * within one the deps only move forward (a new height, another page of a list).
 */
export function useResource<T>(load: (api: NodeApi) => Promise<T>, deps: readonly unknown[]): Resource<T> {
  const api = useApi();
  const { epoch } = useConnection();
  const [resource, setResource] = useState<Resource<T>>({ state: 'loading' });
  const depsKey = JSON.stringify(deps);
  useEffect(() => {
    let current = true;
    load(api).then(
      (value) => current && setResource({ state: 'ok', value }),
      (error: unknown) => {
        if (!isNodeAnswerOrAbsence(error)) reportError(error);
        if (current) setResource({ state: 'error', error });
      },
    );
    return () => {
      current = false;
    };
    // depsKey stands for deps; load is a fresh closure each render.
  }, [api, depsKey, epoch]);
  return resource;
}

/**
 * Runs `tick` now and then `intervalMs` after each run ends, while the component lives.
 * A failing run waits for the next; while the node is away the ticks pause (the connection
 * probes for it) and resume when it answers again.
 */
export function usePoll(tick: (api: NodeApi) => Promise<void>, intervalMs: number, deps: readonly unknown[]): void {
  const api = useApi();
  const tickRef = useRef(tick);
  tickRef.current = tick;
  const depsKey = JSON.stringify(deps);
  useEffect(() => {
    let stopped = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const run = async (): Promise<void> => {
      try {
        if (api.connection.online) await tickRef.current(api);
      } catch (e) {
        // The node being away or refusing shows in the connection state and the page; a bug is reported.
        if (!isNodeAnswerOrAbsence(e)) reportError(e);
      }
      if (!stopped) timer = setTimeout(() => void run(), intervalMs);
    };
    void run();
    return () => {
      stopped = true;
      if (timer !== undefined) clearTimeout(timer);
    };
  }, [api, intervalMs, depsKey]);
}

/** The page clock, ticking every `intervalMs`. */
export function useNow(intervalMs = 1000): number {
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), intervalMs);
    return () => clearInterval(timer);
  }, [intervalMs]);
  return now;
}
