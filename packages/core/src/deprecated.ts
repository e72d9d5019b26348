/**
 * Root exports kept while packages move to `@fw/core/plugin`; the next release removes them.
 */
import * as plugin from './plugin.js';

/** @deprecated Import from `@fw/core/plugin`. */
export const createAssetHandler: typeof plugin.createAssetHandler = plugin.createAssetHandler;
/** @deprecated Import from `@fw/core/plugin`. */
export const sendHtmlPage: typeof plugin.sendHtmlPage = plugin.sendHtmlPage;
/** @deprecated Import from `@fw/core/plugin`. */
export type StaticAsset = plugin.StaticAsset;
/** @deprecated Import from `@fw/core/plugin`. */
export const parseJSON: typeof plugin.parseJSON = plugin.parseJSON;
/** @deprecated Import from `@fw/core/plugin`. */
export type ParseJSONOptions = plugin.ParseJSONOptions;
/** @deprecated Import from `@fw/core/plugin`. */
export const escapeLogText: typeof plugin.escapeLogText = plugin.escapeLogText;
/** @deprecated Import from `@fw/core/plugin`. */
export const formatLogValue: typeof plugin.formatLogValue = plugin.formatLogValue;
/** @deprecated Import from `@fw/core/plugin`. */
export const parseQuery: typeof plugin.parseQuery = plugin.parseQuery;
/** @deprecated Import from `@fw/core/plugin` (for benchmarks; not part of the user API). */
export const TrieMatcher: typeof plugin.TrieMatcher = plugin.TrieMatcher;
/** @deprecated Import from `@fw/core/plugin`. */
export type TrieMatcher<T> = plugin.TrieMatcher<T>;
/** @deprecated Import from `@fw/core/plugin`. */
export type Matcher<T> = plugin.Matcher<T>;
/** @deprecated Import from `@fw/core/plugin`. */
export type MatchResult<T> = plugin.MatchResult<T>;
/** @deprecated Import from `@fw/core/plugin`. */
export type Plugin = plugin.Plugin;
/** @deprecated Import from `@fw/core/plugin`. */
export type ContextSettings = plugin.ContextSettings;
