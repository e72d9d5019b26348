/** `@fw/app/core`: everything `@fw/core` exports (its very objects), for apps that install only `@fw/app`. */
export * from '@fw/core';
