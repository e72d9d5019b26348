/** `@fw/app/openapi`: everything `@fw/openapi` exports, for apps that install only `@fw/app`. */
export * from '@fw/openapi';
