/**
 * Which methods each registered path answers, so a request with another
 * method gets 405 and an `Allow` header instead of a 404 that says the path
 * does not exist. Paths are fastify's: `:name` matches one segment, `*` the rest.
 *
 * @example
 * const methods = new RouteMethods();
 * methods.add('POST', '/api/runs/:runId/succeed');
 * methods.allowed('/api/runs/01J/succeed') // ['POST']
 */
export class RouteMethods {
  readonly #routes: Array<{ pattern: RegExp; methods: Set<string> }> = [];
  readonly #byUrl = new Map<string, Set<string>>();

  add(method: string | readonly string[], url: string): void {
    let methods = this.#byUrl.get(url);
    if (!methods) {
      methods = new Set();
      this.#byUrl.set(url, methods);
      const source = url
        .split('/')
        .map((segment) => (segment.startsWith(':') ? '[^/]+' : segment === '*' ? '.*' : segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
        .join('/');
      this.#routes.push({ pattern: new RegExp(`^${source}$`), methods });
    }
    for (const m of typeof method === 'string' ? [method] : method) methods.add(m.toUpperCase());
  }

  /** The methods some route answers at this path (without query), sorted; empty when none does. */
  allowed(path: string): string[] {
    const out = new Set<string>();
    for (const route of this.#routes) if (route.pattern.test(path)) for (const m of route.methods) out.add(m);
    return [...out].sort();
  }
}
