// The routers compared by the router benchmark. Each entry builds its router from the route
// table and returns two functions:
//   lookup(method, path) → the router's own native result (what its framework would use), timed;
//   resolve(method, path) → { id, params } or null, used once to check every router agrees.
// `rule` is the router's documented choice when several routes match one path (see reference.mjs):
// 'registration' (exact static first, then the first registered dynamic route: the fw spec, hono)
// or 'specificity' (static segment beats param, segment by segment: find-my-way).
// To add a router: append an entry here; run.mjs picks it up. `--add FILE` loads more from a module
// exporting `routers` in the same shape.
// hono's RegExpRouter is not here: it rejects this table (UnsupportedPathError on `/gists/:id`,
// next to `/gists/starred` etc.), so hono's default SmartRouter falls back to its TrieRouter.
import { Router } from '@fw/core';
import FindMyWay from 'find-my-way';
import { TrieRouter } from 'hono/router/trie-router';

// The matcher is not part of @fw/core's API: its build puts a copy beside its entries, for this
// benchmark only (`dist/internal/matcher.js`, named by no export).
const { TrieMatcher } = await import(new URL('./internal/matcher.js', import.meta.resolve('@fw/core')).href);

/**
 * fw's two entries, built on the given `Router` and `TrieMatcher`: the workspace build here, or a
 * copy of another build's `dist` loaded with `--add` (a before/after in one run), e.g.
 *   import { fwRouters } from '/work/main/bench/router/routers.mjs';
 *   import { Router } from '/tmp/old/dist/index.js';
 *   import { TrieMatcher } from '/tmp/old/dist/internal/matcher.js'; // dist/plugin.js in builds before it moved
 *   export const routers = fwRouters({ Router, TrieMatcher }, 'old');
 */
export function fwRouters({ Router, TrieMatcher }, tag = '') {
  const suffix = tag === '' ? '' : `-${tag}`;
  const note = tag === '' ? '' : ` (${tag})`;
  return [
    {
      name: `fw-trie${suffix}`,
      rule: 'registration',
      label: `@fw/core TrieMatcher.match${note}`,
      build(routes) {
        const m = new TrieMatcher();
        routes.forEach(([method, path], id) => m.add(method, path, id));
        return {
          lookup: (method, path) => m.match(method, path),
          resolve(method, path) {
            const r = m.match(method, path);
            return r === null ? null : { id: r.value, params: { ...r.params } };
          },
        };
      },
    },
    {
      name: `fw-router${suffix}`,
      rule: 'registration',
      label: `@fw/core Router.findRoute${note}`,
      build(routes) {
        const router = new Router();
        const ids = new Map();
        routes.forEach(([method, path], id) => {
          const handler = () => undefined;
          ids.set(handler, id);
          router.route({ method, path, handler });
        });
        return {
          lookup: (method, path) => router.findRoute(method, path),
          resolve(method, path) {
            const r = router.findRoute(method, path);
            return r ? { id: ids.get(r.route.handler), params: { ...r.params } } : null;
          },
        };
      },
    },
  ];
}

export const routers = [
  ...fwRouters({ Router, TrieMatcher }),
  {
    name: 'find-my-way',
    rule: 'specificity',
    label: 'find-my-way find',
    build(routes) {
      const fmw = FindMyWay();
      routes.forEach(([method, path], id) => fmw.on(method, path, () => undefined, { id }));
      return {
        lookup: (method, path) => fmw.find(method, path),
        resolve(method, path) {
          const r = fmw.find(method, path);
          return r === null ? null : { id: r.store.id, params: { ...r.params } };
        },
      };
    },
  },
  {
    name: 'hono-trie',
    rule: 'registration',
    label: 'hono TrieRouter.match',
    build(routes) {
      const r = new TrieRouter();
      routes.forEach(([method, path], id) => r.add(method, path, id));
      return {
        lookup: (method, path) => r.match(method, path),
        resolve(method, path) {
          const [matches] = r.match(method, path);
          if (matches.length === 0) return null;
          const [id, params] = matches[0];
          return { id, params: { ...params } };
        },
      };
    },
  },
];
