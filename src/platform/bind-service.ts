/** Each function of `operations` with its first parameter (its dependencies) already given. */
export type BoundService<D, F> = {
  [K in keyof F]: F[K] extends (deps: D, ...args: infer A) => infer R ? (...args: A) => R : never;
};

/**
 * A service bound once to its dependencies: routes then call `service.operation(caller, input)`.
 * The operations themselves stay plain functions `(deps, caller, input)`, easy to read and test.
 */
export function bindService<D, F extends Record<string, (deps: D, ...args: never[]) => unknown>>(
  deps: D,
  operations: F,
): BoundService<D, F> {
  const bound: Record<string, unknown> = {};
  for (const [name, operation] of Object.entries(operations)) {
    bound[name] = (...args: never[]) => operation(deps, ...args);
  }
  return bound as BoundService<D, F>;
}
