// Type-level tests of the route meta @fw/openapi declares, checked by tsc (the package's typecheck):
// each @ts-expect-error line must be an error, or the typecheck fails.
import { withMeta, type Next } from '@fw/core';
import '../src/index.js';

const passOn = () => (_ctx: unknown, next: Next): Promise<void> => next();

// @ts-expect-error summary is a string
withMeta(passOn(), { summary: 42 });
// @ts-expect-error errors are statuses, or descriptions by status
withMeta(passOn(), { errors: { 409: 404 } });
withMeta(passOn(), { summary: 'Archive a book', errors: { 409: 'Already archived' } });
