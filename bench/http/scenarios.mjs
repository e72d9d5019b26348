// The HTTP scenarios. Each server implements the ones it can (see servers/*.mjs) and names them
// when it announces itself; the harness runs every scenario on every server that serves it.
// To add one: append it here and implement it in the servers that should run it.
//   request: what wrk sends (method/headers/body go into a generated wrk Lua script);
//   expect:  what the pre-check requires once before loading (status and JSON body);
//   sameAs:  the scenario it should cost the same as (the "within 10%" targets).
export const scenarios = [
  {
    name: 'static',
    label: 'static JSON: GET /json → {"hello":"world"}',
    request: { method: 'GET', path: '/json' },
    expect: { status: 200, json: { hello: 'world' } },
  },
  {
    name: 'param',
    label: ':param route: GET /users/:id → {"id":"12345"}',
    request: { method: 'GET', path: '/users/12345' },
    expect: { status: 200, json: { id: '12345' } },
    sameAs: 'static',
  },
  {
    name: 'mw3',
    label: 'static JSON behind 3 route middleware (each `await next()`): GET /mw/json',
    request: { method: 'GET', path: '/mw/json' },
    expect: { status: 200, json: { hello: 'world' } },
    sameAs: 'static',
  },
];
