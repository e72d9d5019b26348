// The GraphiQL page of @fw/graphql. Bundled with React and graphql by scripts/build-playground.mjs
// into dist/playground/, so the playground works with no internet (no CDN anywhere).
import { createElement } from 'react';
import { createRoot } from 'react-dom/client';
import { GraphiQL } from 'graphiql';
import { getOperationAST, parse } from 'graphql';
import { createClient } from 'graphql-sse';
import 'graphiql/graphiql.css';
import './page.css';

// The page is served at the GraphQL path itself, so the endpoint is the page's own path.
const endpoint = window.location.pathname;

// GraphiQL reads the operation name from its parsed copy of the editor, which can lag behind the
// text it sends: a document with one operation is sent with that operation's own name.
function withOwnName(params) {
  let document;
  try {
    document = parse(params.query);
  } catch {
    return { params, operation: undefined }; // the endpoint answers the syntax error
  }
  const operations = document.definitions.filter((definition) => definition.kind === 'OperationDefinition');
  if (operations.length === 1) {
    const only = operations[0];
    return { params: { ...params, operationName: only.name ? only.name.value : undefined }, operation: only };
  }
  return { params, operation: getOperationAST(document, params.operationName || undefined) || undefined };
}

// Subscriptions run over GraphQL-over-SSE (graphql-sse's client, an event stream per
// subscription) on the same path: same origin, so the page's CSP (connect-src 'self') allows it, and
// the headers editor's headers (an authorization) go with the request. GraphiQL's stop button
// returns the iterator, which closes the stream.
async function fetcher(sent, options) {
  const { params, operation } = withOwnName(sent);
  if (operation !== undefined && operation.operation === 'subscription') {
    const client = createClient({ url: endpoint, retryAttempts: 0, credentials: 'same-origin', headers: (options && options.headers) || {} });
    const results = client.iterate(params);
    return {
      [Symbol.asyncIterator]() {
        return this;
      },
      next: () => results.next(),
      async return() {
        await results.return();
        client.dispose();
        return { done: true, value: undefined };
      },
    };
  }
  const response = await fetch(endpoint, {
    method: 'POST',
    credentials: 'same-origin',
    headers: {
      accept: 'application/graphql-response+json, application/json',
      'content-type': 'application/json',
      ...(options && options.headers),
    },
    body: JSON.stringify(params),
  });
  const type = response.headers.get('content-type') || '';
  if (type.includes('json')) return response.json();
  return { errors: [{ message: `HTTP ${response.status}: ${await response.text()}` }] };
}

// A browser opening `/graphql?query=...` starts with that query in the editor.
const initialQuery = new URLSearchParams(window.location.search).get('query') || undefined;

const container = document.getElementById('graphiql');
// The endpoint's `playground.defaultQuery`, when it has one: the editor opens on it instead of
// GraphiQL's welcome text (unless the URL or the browser's saved editor says otherwise).
const defaultQuery = container.dataset.defaultQuery;
container.textContent = '';
createRoot(container).render(
  createElement(GraphiQL, {
    fetcher,
    query: initialQuery,
    defaultQuery,
    defaultEditorToolsVisibility: true,
    shouldPersistHeaders: false,
  }),
);
