// `@fw/validate`'s functions on the root entry, loaded on first use (see ../internal/lazy.ts).
import type * as V from '@fw/validate';
import { lazyFunction } from '../internal/lazy.js';
import { loadValidate as load } from '../internal/optional.js';

/** `@fw/validate`'s `createHandler`, loaded on first use. */
export const createHandler: typeof V.createHandler = lazyFunction('createHandler', () => load().createHandler);
/** `@fw/validate`'s `defineOperation`, loaded on first use. */
export const defineOperation: typeof V.defineOperation = lazyFunction('defineOperation', () => load().defineOperation);
/** `@fw/validate`'s `validate`, loaded on first use. */
export const validate: typeof V.validate = lazyFunction('validate', () => load().validate);
