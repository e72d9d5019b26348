// The GraphiQL page of @fw/graphql. Bundled with React and graphql by scripts/build-playground.mjs
// into dist/playground/, so the playground works with no internet (no CDN anywhere).
import { createElement } from 'react';
import { createRoot } from 'react-dom/client';
import { GraphiQL } from 'graphiql';
import 'graphiql/graphiql.css';
import './page.css';

// The page is served at the GraphQL path itself, so the endpoint is the page's own path.
const endpoint = window.location.pathname;

async function fetcher(params, options) {
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
container.textContent = '';
createRoot(container).render(
  createElement(GraphiQL, {
    fetcher,
    query: initialQuery,
    defaultEditorToolsVisibility: true,
    shouldPersistHeaders: false,
  }),
);
