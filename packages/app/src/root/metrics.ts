// `@fw/metrics`'s functions on the root entry, loaded on first use (see ../internal/lazy.ts); when
// `@fw/metrics` or @opentelemetry/api is not installed, the first call names the packages to install.
import type * as T from '@fw/metrics';
import { lazyFunction } from '../internal/lazy.js';
import { loadMetrics as load } from '../internal/optional.js';

/** `@fw/metrics`'s `metricsPlugin`, loaded on first use. */
export const metricsPlugin: typeof T.metricsPlugin = lazyFunction('metricsPlugin', () => load().metricsPlugin);
