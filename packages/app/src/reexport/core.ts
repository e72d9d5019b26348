/** `@fw/app/core`: everything `@fw/core` exports, for apps that install only `@fw/app`. */
export * from '@fw/core';
