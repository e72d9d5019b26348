// Slow, obviously-correct reference resolvers for the two matching rules in use, so the
// benchmark can check each router against its own documented rule before timing it.

function matches(patternSegments, pathSegments) {
  if (patternSegments.length !== pathSegments.length) return false;
  for (let i = 0; i < patternSegments.length; i++) {
    const p = patternSegments[i];
    if (p.startsWith(':')) {
      if (pathSegments[i] === '') return false;
    } else if (p !== pathSegments[i]) return false;
  }
  return true;
}

/** 'registration': an exact static route first, then the first registered dynamic route. */
function byRegistration(candidates) {
  return candidates.find((c) => !c.dynamic) ?? candidates[0];
}

/** 'specificity': at the first segment where two routes differ, the static one wins. */
function bySpecificity(candidates) {
  return [...candidates].sort((a, b) => {
    for (let i = 0; i < a.segments.length; i++) {
      const pa = a.segments[i].startsWith(':');
      const pb = b.segments[i].startsWith(':');
      if (pa !== pb) return pa ? 1 : -1;
    }
    return a.id - b.id;
  })[0];
}

/** Builds a reference resolver: (method, path, rule) → { id, params, candidates } or null. */
export function referenceResolver(routes) {
  const compiled = routes.map(([method, pattern], id) => ({
    id,
    method,
    pattern,
    segments: pattern.split('/').slice(1),
    dynamic: pattern.includes('/:'),
  }));
  return (method, path, rule) => {
    const pathSegments = path.split('/').slice(1);
    const candidates = compiled.filter((c) => c.method === method && matches(c.segments, pathSegments));
    if (candidates.length === 0) return null;
    const best = rule === 'specificity' ? bySpecificity(candidates) : byRegistration(candidates);
    const params = {};
    best.segments.forEach((s, i) => {
      if (s.startsWith(':')) params[s.slice(1)] = pathSegments[i];
    });
    return { id: best.id, params, candidates: candidates.map((c) => c.id) };
  };
}
