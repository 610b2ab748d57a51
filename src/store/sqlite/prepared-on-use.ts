/**
 * An object of statements (or anything costly to make) each made the first time it is read, then kept: a command
 * uses a few of a store's statements, and preparing all of them on every open was a tenth of a cold `status`'s
 * start. A statement is read only to run it, so it is never prepared while another one iterates (which
 * better-sqlite3 refuses, as it refuses to run one then).
 *
 * @example
 * const st = preparedOnUse({ head: () => db.prepare('SELECT max(position) FROM events').pluck() });
 * st.head.get(); // prepared here
 */
export function preparedOnUse<T extends object>(makers: { readonly [K in keyof T]: () => T[K] }): T {
  const made = {} as T;
  for (const key of Object.keys(makers) as Array<keyof T>) {
    Object.defineProperty(made, key, {
      configurable: true,
      enumerable: true,
      get() {
        const value = makers[key]();
        Object.defineProperty(made, key, { value, enumerable: true });
        return value;
      },
    });
  }
  return made;
}
